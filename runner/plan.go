package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// Step kinds: what each text a run records is. Options.Record sees the
// texts; a plan sees them with their kinds.
const (
	KindPartition = "partition" // a comment: the partition and its interval
	KindBegin     = "begin"     // the run's transaction begins
	KindLock      = "lock"      // a comment: what the run locks, and how long it waits
	KindLoad      = "load"      // a comment: which files a bulk load reads, into what, and how
	KindSQL       = "sql"       // a statement run on the target
	KindCommit    = "commit"    // a run commits here; a plan rolls back instead
	KindRollback  = "rollback"  // the run ends without committing (skipped, failed)
)

// Step is one step of a plan.
type Step struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// PartitionPlan is what a run of one partition would execute. Its JSON
// form is the contract of `idem plan --json`.
type PartitionPlan struct {
	Job       string `json:"job"`
	Partition string `json:"partition"`
	Strategy  string `json:"strategy"`
	// Start and End are the partition's half-open interval (RFC 3339, in
	// partition.timezone or UTC).
	Start string `json:"start"`
	End   string `json:"end"`
	// Action is what the run would do: loaded, skipped, not_closed or
	// failed (then Error says why).
	Action string `json:"action"`
	Steps  []Step `json:"steps"`
	// Result is what `idem run --json` would print for the partition.
	Result Result `json:"result"`
	Error  string `json:"error,omitempty"`

	// Why a failed plan failed, for its outcome line: a run would exit 75
	// (locked) or 2 (refused), not 1; or the plan stopped before DDL it
	// cannot roll back (ErrPlanNeedsDDL).
	locked, refused, ddl bool
}

// Plan runs the job for opts.Date (and its lookback partitions) as Run
// would, step for step, and records every step; where a run would commit,
// it rolls back. So a plan shows exactly the statements a run executes on
// the target as it is now, and changes nothing: no table, schema, ledger
// row or failure record. It takes the run's locks (it waits for a run in
// progress, and then sees what that run wrote).
//
// With lookback, a run commits each partition before the next; a plan
// rolls each back, so a later partition is planned against the target
// without the earlier ones' changes (on a fresh target, say, each creates
// the table and the ledger).
//
// A partition whose run would skip is planned as skipped (the statements
// that decide it, then ROLLBACK); opts.Force plans the forced run. A plan
// stops at the first partition whose run would fail, as Run does, and
// returns that error.
func Plan(ctx context.Context, db engine.DB, j *job.Job, opts Options) ([]PartitionPlan, error) {
	opts = opts.withDefaults()
	opts.CrashAt = "" // a plan is no crash test
	windows, err := j.Windows(opts.Date)
	if err != nil {
		return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
	}
	var plans []PartitionPlan
	for _, w := range windows {
		p := PartitionPlan{Job: j.Name, Partition: w.Label, Strategy: j.Strategy,
			Start: w.Start.Format(time.RFC3339), End: w.End.Format(time.RFC3339),
			Steps: []Step{}}
		o := opts
		o.plan = func(kind, text string) { p.Steps = append(p.Steps, Step{Kind: kind, Text: text}) }
		res, err := runWindow(ctx, db, j, w, o)
		p.Result, p.Action, p.Error = res, res.Action, res.Error
		var je *job.Error
		p.locked, p.refused = errors.Is(err, engine.ErrLocked), errors.As(err, &je)
		p.ddl = errors.Is(err, ErrPlanNeedsDDL)
		plans = append(plans, p)
		if err != nil {
			return plans, err
		}
	}
	return plans, nil
}

// Text is the plan as `idem plan` prints it: each step in order,
// statements ending in ';', then what the run would report. Nothing in it
// depends on the clock, so it can be compared with a golden file.
func (p PartitionPlan) Text() string {
	var b strings.Builder
	for _, s := range p.Steps {
		b.WriteString(s.Text)
		if !strings.HasPrefix(s.Text, "--") {
			b.WriteString(";")
		}
		if s.Kind == KindCommit {
			b.WriteString(" -- a run commits here; the plan rolled back instead")
		}
		b.WriteString("\n\n")
	}
	b.WriteString("-- " + p.outcome() + "\n")
	return b.String()
}

// outcome says what the run would do, as `idem run` would report it, and
// that the plan changed nothing.
func (p PartitionPlan) outcome() string {
	r := p.Result
	head := fmt.Sprintf("plan of %s %s: ", p.Job, p.Partition)
	switch p.Action {
	case ActionLoaded:
		if p.Strategy == job.StrategyMerge {
			return head + fmt.Sprintf("a run would merge %d rows in (%d deduped): %d inserted, %d updated, %d deleted, %d deletes of absent keys remembered, %s; it would write %d rows, checksum %s (run %s). The plan rolled back: nothing was changed.",
				r.RowsIn, r.RowsDeduped, r.Inserted, r.Updated, r.Deleted, r.DeletedAbsent, r.NotWritten(), r.RowCount, r.Checksum, short(r.RunID))
		}
		verb := "load"
		if r.Reloaded != "" {
			verb = "reload (" + r.Reloaded + ")"
		}
		return head + fmt.Sprintf("a run would %s: %d rows in, %d deduped, %d out of window; %d inserted, %d deleted; partition then %d rows, checksum %s (run %s). The plan rolled back: nothing was changed.",
			verb, r.RowsIn, r.RowsDeduped, r.RowsOutOfWindow, r.Inserted, r.Deleted, r.RowCount, r.Checksum, short(r.RunID))
	case ActionSkipped:
		return head + fmt.Sprintf("a run would skip: already loaded from this input by run %s (%d rows, checksum %s); plan with --force for what a forced run would execute.",
			short(r.RunID), r.RowCount, r.Checksum)
	case ActionNotClosed:
		return head + fmt.Sprintf("not closed yet (it closes at %s): a run would do nothing; plan with --allow-open for what it would execute.", r.ClosesAt)
	}
	switch {
	case p.ddl:
		return head + "the plan stops here, having changed nothing: " + p.Error
	case p.locked:
		return head + "the lock was not obtained within --lock-timeout; a run would exit 75 (try again later), changing nothing: " + p.Error
	case p.refused:
		return head + "a run would refuse the job, and change nothing: " + p.Error
	default:
		return head + "a run would fail, and change nothing: " + p.Error
	}
}

// partitionMarker names the partition and its half-open interval. A merge
// is not confined to it: --date names the run, and the interval is what
// the templates see.
func (r *run) partitionMarker() string {
	zone := r.job.Partition.Timezone
	if zone == "" {
		zone = "UTC"
	}
	const layout = "2006-01-02 15:04:05"
	s := fmt.Sprintf("-- partition %s: [%s, %s) %s", r.w.Label, r.w.Start.Format(layout), r.w.End.Format(layout), zone)
	if r.job.Strategy == job.StrategyMerge {
		s += "; a merge may write any row of " + r.tableName()
	}
	return s
}

// lockMarker says what the run locks and how long it waits, and, where the
// engine says, how.
func (r *run) lockMarker() string {
	scope := r.lockScope()
	s := fmt.Sprintf("-- lock: %s, waiting up to %s", scope, job.FormatDuration(r.opts.LockTimeout))
	if d := r.caps.Locks.DescribeLock(scope); d != "" {
		s += ": " + d
	}
	return s
}

// loadMarker describes a bulk load of files into the staging table.
func (r *run) loadMarker(files []string, how string) string {
	return engine.LoadNote(files, r.sql.Ident(stageTable), how)
}

// recordLoad records what an engine's loader runs: its note on how the
// rows travel, then its statements.
func (r *run) recordLoad(text string) {
	if strings.HasPrefix(text, "-- load ") {
		r.s.mark(KindLoad, text)
		return
	}
	r.s.note(text)
}
