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
	"fmt"
	"path/filepath"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/engine/postgres"
	"github.com/idemdata/idem/job"
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

// Run opens the job's target, runs the job for opts.Date (and its lookback
// partitions), and closes the target.
func Run(ctx context.Context, j *Job, opts Options) ([]Result, error) {
	// A bad --date is a usage error: find it before the target is opened
	// (opening a DuckDB target creates its file).
	if _, err := j.Windows(opts.Date); err != nil {
		return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
	}
	lockTimeout := opts.LockTimeout
	if lockTimeout <= 0 {
		lockTimeout = 10 * time.Minute
	}
	db, err := Open(ctx, j.Target.URL, j.Dir, lockTimeout)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return runner.Run(ctx, db, j, opts)
}

// ErrTarget marks a target URL that cannot be used: malformed, naming an
// engine this build lacks, or naming a file that is not a database. The CLI maps it to exit 2.
var ErrTarget = errors.New("unusable target URL")

type targetError struct{ error }

func (targetError) Is(target error) bool { return target == ErrTarget }

// Open opens a target URL. A relative DuckDB path resolves against dir (the
// job file's folder), so a job runs the same from any working directory.
func Open(ctx context.Context, url, dir string, lockTimeout time.Duration) (engine.DB, error) {
	name, rest, err := job.SplitURL(url)
	if err != nil {
		return nil, targetError{err}
	}
	switch name {
	case "duckdb":
		if rest != ":memory:" && !filepath.IsAbs(rest) {
			rest = filepath.Join(dir, rest)
		}
		db, err := duckdb.Open(ctx, rest, lockTimeout)
		if errors.Is(err, duckdb.ErrNotDatabase) {
			return nil, targetError{fmt.Errorf("%s: %w", job.Redact(url), err)}
		}
		return db, err
	case "postgres":
		return postgres.Open(ctx, rest, lockTimeout)
	}
	return nil, targetError{fmt.Errorf("%s targets are not supported by this version of idem yet (%s)", name, job.Redact(url))}
}
