// Package idem runs data load jobs that are idempotent by construction:
// running a job again on the same input leaves the target table exactly as
// running it once.
//
// A Go program loads a job file and runs it for a partition:
//
//	j, err := idem.Load("jobs/orders.yaml")
//	results, err := idem.Run(ctx, j, idem.Options{Date: "2026-11-28"})
//
// The command-line tool in cmd/idem is a thin layer over this package.
package idem

import (
	"context"
	"errors"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/lint"
	"github.com/idemdata/idem/runner"
)

// Job is a parsed and validated job file.
type Job = job.Job

// Options control a run; see runner.Options.
type Options = runner.Options

// Result is what one partition's run did.
type Result = runner.Result

// Load reads and validates a job file; ${VAR} come from the environment.
func Load(path string) (*Job, error) { return job.Load(path) }

// Lint returns what lint finds in a job: errors, which Run and Backfill
// refuse unless the job waives them under lint.allow, and warnings.
func Lint(j *Job) []lint.Finding { return lint.Check(j) }

// Run opens the job's target, runs the job for opts.Date (and its lookback
// partitions), and closes the target. A job with lint errors is refused
// (a *job.Error) before anything is opened.
func Run(ctx context.Context, j *Job, opts Options) ([]Result, error) {
	// Here rather than in Load, so that status and lint still read a job
	// they would refuse to run; and here rather than in the command line,
	// so that a library caller cannot run it either.
	if err := lint.Err(j); err != nil {
		return nil, err
	}
	// The input's hash, which every run takes, overlaps opening the target.
	stop := runner.HashAhead(j, opts.Date)
	defer stop()
	db, err := openForRun(ctx, j, opts)
	if err != nil {
		return nil, err
	}
	results, err := runner.Run(ctx, db, j, opts)
	// Driver text never holds the password by construction; this is the
	// second line, for library users who print errors themselves.
	red := job.NewRedactor(j.Target.URL, j.Source.URL)
	err = red.Error(err)
	for i := range results {
		results[i].Error = red.String(results[i].Error)
	}
	// A run that committed nothing to a database file it created (a
	// refused job, a failed or skipped run) removes the file again: exit 2
	// promises nothing was touched, and a new target left unchanged is no
	// target. Only an engine that creates files at Open has this.
	closeTarget(ctx, db)
	return results, err
}

// openForRun opens a job's target for a run, a plan or a verify of
// opts.Date. A bad --date is a usage error found before anything is opened
// (opening a DuckDB target creates its file).
func openForRun(ctx context.Context, j *Job, opts Options) (engine.DB, error) {
	if _, err := j.Windows(opts.Date); err != nil {
		return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
	}
	lockTimeout := opts.LockTimeout
	if lockTimeout <= 0 {
		lockTimeout = 10 * time.Minute
	}
	return Open(ctx, j.Target.URL, j.Dir, lockTimeout)
}

// ErrTarget marks a target URL that cannot be used: malformed, naming an
// engine this build lacks (none registered its scheme), or naming a file
// that is not a database. The CLI maps it to exit 2.
var ErrTarget = errors.New("unusable target URL")

type targetError struct{ error }

func (targetError) Is(target error) bool { return target == ErrTarget }
func (e targetError) Unwrap() error      { return e.error }

// Open opens a target URL with the engine registered for its scheme
// (engine.Register). A relative file path resolves against dir (the job
// file's folder), so a job runs the same from any working directory.
func Open(ctx context.Context, url, dir string, lockTimeout time.Duration) (engine.DB, error) {
	db, err := open(ctx, url, dir, lockTimeout, false)
	return db, job.NewRedactor(url).Error(err)
}

// OpenReadOnly opens an existing target so that nothing run on it can write
// (DuckDB: access_mode READ_ONLY, which also reads a file this process may
// not write; PostgreSQL: every transaction READ ONLY). A DuckDB file that
// does not exist is an error wrapping both ErrTarget and fs.ErrNotExist,
// and is not created.
func OpenReadOnly(ctx context.Context, url, dir string, lockTimeout time.Duration) (engine.DB, error) {
	db, err := open(ctx, url, dir, lockTimeout, true)
	return db, job.NewRedactor(url).Error(err)
}

func open(ctx context.Context, url, dir string, lockTimeout time.Duration, readOnly bool) (engine.DB, error) {
	t, err := job.ParseTargetURL(url)
	if err != nil {
		return nil, targetError{err}
	}
	db, err := t.Driver.Open(ctx, t.Location, engine.OpenOptions{URL: url, Dir: dir, LockTimeout: lockTimeout, ReadOnly: readOnly})
	if errors.Is(err, engine.ErrBadTarget) {
		return nil, targetError{err}
	}
	if err != nil {
		return nil, err
	}
	return db, nil
}
