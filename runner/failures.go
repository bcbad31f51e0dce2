package runner

import (
	"context"
	"errors"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
)

// Recorded reports whether a run that failed with err leaves a record in
// idem_failures. Recorded: every failure of the run itself (bad input, a
// database error, a failed commit). Not recorded: job-file errors (exit 2,
// which promise to touch nothing), a lock not obtained in time (exit 75:
// nothing was tried), a cancelled run (the process is being stopped) and a
// lost connection (the record would go over the connection that is gone; the
// run's exit 1 and message say what happened).
func Recorded(err error) bool {
	var je *job.Error
	switch {
	case err == nil, errors.As(err, &je), errors.Is(err, engine.ErrLocked), errors.Is(err, engine.ErrInterrupted),
		errors.Is(err, engine.ErrConnLost), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}

// recordFailure writes the failed attempt on the run's connection, after
// its transaction rolled back. Best effort: a failure to record is logged
// and never replaces the run's own error.
func (r *run) recordFailure(ctx context.Context, err error) {
	if !Recorded(err) {
		return
	}
	// The record must not outlive its caller by much, nor hang a run that
	// already failed.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	s := &session{q: r.db.Conn(), log: r.log}
	f := &ledger.Failure{Job: r.job.Name, Partition: r.w.Label, RunID: r.res.RunID, Error: err.Error(),
		FailedAt: r.opts.Now(), IdemVersion: Version}
	recorded, e := ledger.RecordFailure(ctx, s, r.db, f)
	switch {
	case e != nil:
		r.log.Warn("could not record the failure in idem_failures", "partition", r.w.Label, "error", e)
	case !recorded:
		r.log.Debug("failure not recorded: the target has no ledger yet", "partition", r.w.Label)
	}
}
