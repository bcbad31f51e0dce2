package idem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/lint"
	"github.com/idemdata/idem/runner"
)

// BackfillOptions control a backfill: the options of a run (Date is
// ignored) and the range.
type BackfillOptions struct {
	Options
	// From and To name the first and last partition, both included.
	From, To string
	// Parallel is how many partitions run at once, each on its own
	// connection, on engines with concurrent writers (default 1). DuckDB
	// allows one writing process per file: its partitions run one after
	// the other on one connection, whatever Parallel says.
	Parallel int
	// Each, if set, sees each partition's result as it finishes, with the
	// run's error (nil when it loaded, skipped or was not closed). Calls
	// are serialized.
	Each func(Result, error)
}

// Backfilled is what a backfill did.
type Backfilled struct {
	// Results are the partitions run, in partition order.
	Results []Result
	// Failed, NotClosed and Locked name partitions: failed runs, partitions
	// not closed yet, and runs whose lock was not obtained in time.
	Failed, NotClosed, Locked []string
	// NotRun names the partitions never started: the backfill stopped
	// early (a job-file error, or it was cancelled).
	NotRun []string
	// Workers is how many partitions ran at once.
	Workers int
}

// ConcurrentWriters reports whether a target URL's engine lets several
// connections write at once (a server), as opposed to DuckDB's one writing
// process per file.
func ConcurrentWriters(url string) bool {
	t, err := job.ParseTargetURL(url)
	return err == nil && t.Driver.ConcurrentWriters
}

// Backfill runs every partition from opts.From to opts.To, each its own
// run exactly as Run would do it for that date (same run id, lock and
// ledger row), without lookback. The job's target is opened once per
// worker. A failed partition does not stop the others; the error is
// non-nil only when the backfill could not start or stopped early (a
// job-file error, which every partition would hit, or cancellation).
func Backfill(ctx context.Context, j *Job, opts BackfillOptions) (*Backfilled, error) {
	if err := lint.Err(j); err != nil { // as Run: refused before any target is opened
		return nil, err
	}
	windows, err := j.Range(opts.From, opts.To)
	if err != nil {
		return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
	}
	dbs, err := openWorkers(ctx, j, opts, len(windows))
	defer func() {
		for _, db := range dbs {
			closeTarget(ctx, db)
		}
	}()
	if err != nil {
		return nil, err
	}
	b := &Backfilled{Workers: len(dbs)}
	red := job.NewRedactor(j.Target.URL, j.Source.URL)
	results, err := runner.Backfill(ctx, dbs, j, windows, opts.Options, b.record(red, opts.Each))
	for i := range results {
		results[i].Error = red.String(results[i].Error)
	}
	b.Results = results
	b.NotRun = notRun(windows, results)
	for _, l := range []*[]string{&b.Failed, &b.NotClosed, &b.Locked} {
		sortLabels(*l)
	}
	if err != nil {
		return b, red.Error(fmt.Errorf("backfill stopped: %w", err))
	}
	return b, nil
}

// openWorkers opens one connection to the target per worker: opts.Parallel
// of them on engines with concurrent writers, else one, and never more
// than the partitions. Only a failure to open the first is an error.
func openWorkers(ctx context.Context, j *Job, opts BackfillOptions, partitions int) ([]engine.DB, error) {
	lockTimeout := opts.LockTimeout
	if lockTimeout <= 0 {
		lockTimeout = 10 * time.Minute
	}
	workers := max(opts.Parallel, 1)
	if !ConcurrentWriters(j.Target.URL) {
		workers = 1
	}
	workers = min(workers, partitions)
	var dbs []engine.DB
	for i := range workers {
		db, err := Open(ctx, j.Target.URL, j.Dir, lockTimeout)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			// Fewer connections than asked (a server's connection limit,
			// say) still backfill, more slowly.
			if opts.Logger != nil {
				opts.Logger.Warn("backfill continues with fewer workers", "workers", i, "error", err)
			}
			break
		}
		dbs = append(dbs, db)
	}
	return dbs, nil
}

// record returns the callback that redacts each partition's result, files
// it under b's failed, locked or not-closed partitions and passes it on
// to each.
func (b *Backfilled) record(red *job.Redactor, each func(Result, error)) func(Result, error) {
	return func(r Result, err error) {
		// Driver text never holds the password by construction; this is
		// the second line, as in Run.
		r.Error, err = red.String(r.Error), red.Error(err)
		switch {
		case errors.Is(err, engine.ErrLocked):
			b.Locked = append(b.Locked, r.Partition)
		case err != nil:
			b.Failed = append(b.Failed, r.Partition)
		case r.Action == runner.ActionNotClosed:
			b.NotClosed = append(b.NotClosed, r.Partition)
		}
		if each != nil {
			each(r, err)
		}
	}
}

// notRun names the windows no result is for, in window order.
func notRun(windows []job.Window, results []Result) []string {
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.Partition] = true
	}
	var labels []string
	for _, w := range windows {
		if !ran[w.Label] {
			labels = append(labels, w.Label)
		}
	}
	return labels
}

// closeTarget closes a target, removing a database file this process
// created if nothing was committed to it (as Run does).
func closeTarget(ctx context.Context, db engine.DB) {
	if u, ok := db.(interface {
		RemoveIfUnused(context.Context) (bool, error)
	}); ok {
		u.RemoveIfUnused(context.WithoutCancel(ctx))
		return
	}
	db.Close()
}

// sortLabels sorts partition labels, which sort as their times do.
func sortLabels(ls []string) { slices.Sort(ls) }
