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
	type done struct {
		res Result
		ok  bool
	}
	out := make([]done, len(windows))
	var (
		mu      sync.Mutex
		next    int
		stopErr error // a job-file error: every partition would fail alike
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if stopErr != nil || ctx.Err() != nil || next >= len(windows) {
			return 0, false
		}
		next++
		return next - 1, true
	}
	var wg sync.WaitGroup
	for _, db := range dbs {
		wg.Go(func() {
			for {
				i, ok := take()
				if !ok {
					return
				}
				res, err := runWindow(ctx, db, j, windows[i], opts)
				mu.Lock()
				out[i] = done{res, true}
				var je *job.Error
				if errors.As(err, &je) && stopErr == nil {
					stopErr = err
				}
				if each != nil {
					each(res, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var results []Result
	for _, d := range out {
		if d.ok {
			results = append(results, d.res)
		}
	}
	if stopErr == nil && ctx.Err() != nil {
		stopErr = ctx.Err()
	}
	return results, stopErr
}

// ledgerState is ledger.State, remembered across a backfill's runs once a
// run has seen the ledger exist and current: idem never drops a column of
// it, and the catalog query costs about 4 ms a run on DuckDB, a third of a
// skipped partition. Only a committed ledger is seen (the query runs
// before this run's own Ensure), so a rolled-back run cannot mislead.
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
