package idem

import (
	"context"
	"errors"
	"time"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// VerifyReport is what Verify found; see runner.VerifyReport.
type VerifyReport = runner.VerifyReport

// Verify checks that j is idempotent for opts.Date: it runs the job twice
// into scratch tables next to its target (same engine and database, with
// a scratch ledger), compares the two, and, for file sources, changes one
// input row in a copy of the input and checks that only that row's key
// changes. The target table and idem_runs are not touched; the scratch
// tables are dropped before Verify returns. The verdict is in the report
// (Verdict "pass" or "fail"); an error means a run could not be made.
//
// On DuckDB, Verify holds the database file for its whole duration, as a
// run does: other processes wait for it (up to their lock timeout).
func Verify(ctx context.Context, j *Job, opts Options) (*VerifyReport, error) {
	db, err := openForRun(ctx, j, opts)
	if err != nil {
		return nil, err
	}
	rep, err := runner.Verify(ctx, db, j, opts)
	if rep != nil && rep.CleanupErr != nil {
		// The connection died with a cancelled statement: drop the
		// scratch tables on a new one (DuckDB: after letting go of the
		// file).
		db.Close()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		db, err2 := openForRun(cctx, j, opts)
		if err2 == nil {
			err2 = runner.DropScratch(cctx, db, rep.Leftover)
			db.Close()
		}
		if err2 != nil {
			err = errors.Join(err, rep.CleanupErr, err2)
		}
		return rep, job.NewRedactor(j.Target.URL, j.Source.URL).Error(err)
	}
	red := job.NewRedactor(j.Target.URL, j.Source.URL)
	err = red.Error(err)
	if rep != nil {
		rep.Reason = red.String(rep.Reason)
		for i := range rep.Runs {
			rep.Runs[i].Error = red.String(rep.Runs[i].Error)
		}
	}
	// A DuckDB file that verify created holds nothing once the scratch
	// tables are gone: it is removed, as after a refused run.
	closeTarget(ctx, db)
	return rep, err
}
