package runner

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
)

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AsOf.IsZero() {
		o.AsOf = o.Now()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 10 * time.Minute
	}
	return o
}

// Backfill runs each of windows as its own run, exactly as Run runs one
// partition (same steps, lock, ledger row and run id), without lookback.
// Each DB of dbs is one worker (one connection) taking the next window;
// len(dbs) partitions run at once. A failed partition does not stop the
// others; a job-file error (it would fail every partition) stops handing
// out new ones, as does ctx's cancellation. each sees every result as it
// finishes (calls are serialized); the results come back in window order,
// with the windows never started left out.
func Backfill(ctx context.Context, dbs []engine.DB, j *job.Job, windows []job.Window, opts Options, each func(Result, error)) ([]Result, error) {
	opts = opts.withDefaults()
	opts.ledgerCurrent = new(atomic.Bool)
	if len(dbs) == 0 {
		return nil, errors.New("backfill: no database")
	}
	b := &backfill{ctx: ctx, job: j, windows: windows, opts: opts, each: each, out: make([]windowDone, len(windows))}
	var wg sync.WaitGroup
	for _, db := range dbs {
		wg.Go(func() { b.work(db) })
	}
	wg.Wait()
	return b.results()
}

// backfill is the windows a backfill's workers share.
type backfill struct {
	ctx     context.Context
	job     *job.Job
	windows []job.Window
	opts    Options
	each    func(Result, error)

	mu      sync.Mutex
	next    int
	stopErr error        // a job-file error: every partition would fail alike
	out     []windowDone // by window
}

// windowDone is a window's result; ok says the window ran.
type windowDone struct {
	res Result
	ok  bool
}

// work runs windows on db until none is left to take.
func (b *backfill) work(db engine.DB) {
	for {
		i, ok := b.take()
		if !ok {
			return
		}
		res, err := runWindow(b.ctx, db, b.job, b.windows[i], b.opts)
		b.finish(i, res, err)
	}
}

// take hands out the next window's index, or none once the windows are all
// handed out, a job-file error stopped the backfill, or ctx is cancelled.
func (b *backfill) take() (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopErr != nil || b.ctx.Err() != nil || b.next >= len(b.windows) {
		return 0, false
	}
	b.next++
	return b.next - 1, true
}

// finish records window i's result and passes it to each.
func (b *backfill) finish(i int, res Result, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.out[i] = windowDone{res, true}
	var je *job.Error
	if errors.As(err, &je) && b.stopErr == nil {
		b.stopErr = err
	}
	if b.each != nil {
		b.each(res, err)
	}
}

// results are the windows that ran, in window order, and why the backfill
// stopped early, if it did.
func (b *backfill) results() ([]Result, error) {
	var results []Result
	for _, d := range b.out {
		if d.ok {
			results = append(results, d.res)
		}
	}
	if b.stopErr == nil && b.ctx.Err() != nil {
		return results, b.ctx.Err()
	}
	return results, b.stopErr
}

// ledgerState is ledger.State, remembered across a backfill's runs once a run
// has seen the ledger exist and current: idem never drops a column of it, and
// the catalog query is much of a skip's cost
// (docs/decisions/0015-ledger-reads-on-skip.md). Only a committed ledger is
// seen (the query runs before this run's own Ensure), so a rolled-back run
// cannot mislead.
func (r *run) ledgerState(ctx context.Context) (exists, current bool, err error) {
	known := r.opts.ledgerCurrent
	if known != nil && known.Load() {
		return true, true, nil
	}
	exists, current, err = ledger.State(ctx, r.s, r.db)
	if err == nil && exists && current && known != nil {
		known.Store(true)
	}
	return exists, current, err
}
