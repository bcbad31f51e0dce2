// Package runner owns the order of a run's steps and the guarantees that
// order gives. Engines supply SQL; nothing here depends on which engine runs.
package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
)

// Version is recorded in the ledger.
var Version = "0.1.0-dev"

// Actions a run reports.
const (
	ActionLoaded    = "loaded"
	ActionSkipped   = "skipped"
	ActionNotClosed = "not_closed"
	ActionFailed    = "failed"
)

// Crash points, for IDEM_CRASH_AT.
const (
	CrashAfterStage   = "after_stage"
	CrashAfterDelete  = "after_delete"
	CrashAfterWrite   = "after_write"
	CrashBeforeCommit = "before_commit"
	CrashAfterCommit  = "after_commit"
)

// WaitBeforeBuild is a point only waited at (Options.WaitAt): a first
// load has looked at the target, found none, and is about to build it
// (on an engine.Swapper, having let go of its partition's lock and not
// yet holding the table's).
const WaitBeforeBuild = "before_build"

// CrashPoints lists every crash point in run order.
var CrashPoints = []string{CrashAfterStage, CrashAfterDelete, CrashAfterWrite, CrashBeforeCommit, CrashAfterCommit}

// Options control one invocation.
type Options struct {
	// Date names the partition (its form follows the job's grain).
	Date string
	// AsOf decides whether a partition is closed. It is never visible to
	// transforms.
	AsOf time.Time
	// Force loads even when the ledger says the run is already done.
	Force bool
	// AllowOpen loads a partition that is not closed yet.
	AllowOpen bool
	// LockTimeout bounds the wait for another run of the same partition.
	LockTimeout time.Duration
	// Now stamps metadata (loaded_at, started_at, finished_at) and nothing
	// else. Default time.Now.
	Now func() time.Time
	// Faults stop the run on purpose (tests only).
	Faults
	// Logger receives progress; default discards.
	Logger *slog.Logger
	// Record, if set, sees every SQL statement the run executes, in order,
	// and markers for what is not a statement sent through it: the
	// partition, BEGIN, the lock, bulk loads (comments) and COMMIT or
	// ROLLBACK. `idem plan` prints the same texts (see Plan).
	Record func(query string)
	// Progress, if set, sees each step of a partition's run.
	Progress func(Progress)

	// ledgerCurrent is shared by a backfill's runs (see ledgerState).
	ledgerCurrent *atomic.Bool
	// plan, set by Plan, sees every step with its kind, and makes the run
	// roll back where it would commit (see plan.go).
	plan func(kind, text string)
}

// Faults are where a run stops on purpose: tests only.
type Faults struct {
	// CrashAt kills the process at that point of the run.
	CrashAt string
	// WaitAt stops the run at that point until its context is cancelled,
	// after saying so on the logger (a signal then arrives at a known
	// step).
	WaitAt string
	// WaitFor, with WaitAt, is a file whose creation ends the wait: the
	// run then goes on (two runs interleave at known steps).
	WaitFor string
	// afterStep, if set, is called with each step's name once the step has
	// succeeded: an error it returns is the step's (runSteps).
	afterStep func(step string) error
}

// Result is what one partition's run did. Its JSON form is the contract
// of `idem run --json`.
type Result struct {
	Job       string `json:"job"`
	Partition string `json:"partition"`
	RunID     string `json:"run_id"`
	Action    string `json:"action"`
	// The embedded structs' fields are Result's own in its JSON form, in
	// this order.
	InputRows
	Writes
	Sums
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
	Notes
}

// InputRows counts the input's rows: read, dropped as duplicates, and
// outside the partition.
type InputRows struct {
	RowsIn          int64 `json:"rows_in"`
	RowsDeduped     int64 `json:"rows_deduped"`
	RowsOutOfWindow int64 `json:"rows_out_of_window"`
}

// Writes counts what a run wrote to the target.
type Writes struct {
	Inserted      int64 `json:"inserted"`
	Updated       int64 `json:"updated"`
	Deleted       int64 `json:"deleted"`
	DeletedAbsent int64 `json:"deleted_absent"` // deletes of keys the table did not hold, remembered
	SkippedOlder  int64 `json:"skipped_older"`
	// KeptOnTie counts staged rows whose version equals the key's current
	// row's, and which lost to it by content (the row order): not older,
	// and not written.
	KeptOnTie int64 `json:"kept_on_tie"`
}

// NotWritten says what a merge's plan did not write: rows older than the
// table's, and (when there are any) ties the table's row kept.
func (w Writes) NotWritten() string {
	s := fmt.Sprintf("%d skipped as not newer", w.SkippedOlder)
	if w.KeptOnTie > 0 {
		s += fmt.Sprintf(", %d kept on a tie (an equal version; the table's row comes first by content)", w.KeptOnTie)
	}
	return s
}

// Sums are what the ledger compares: the partition's (or a merge's
// table's) rows and checksum after the run, and the input's fingerprint.
type Sums struct {
	RowCount         int64  `json:"row_count"`
	Checksum         string `json:"checksum"`
	InputFingerprint string `json:"input_fingerprint"`
}

// Notes say more about a run where there is more to say.
type Notes struct {
	// OutOfWindow lists, per partition, the input rows that belong to
	// another partition and were not written by this run.
	OutOfWindow []PartitionRows `json:"out_of_window,omitempty"`
	// ClosesAt is when a not-closed partition closes (RFC 3339, UTC).
	ClosesAt string `json:"closes_at,omitempty"`
	// Reloaded says why a run whose input was already loaded loaded again:
	// the partition had changed since (rows or checksum differ).
	Reloaded string `json:"reloaded,omitempty"`
}

// PartitionRows is a count of rows that belong to one partition.
type PartitionRows struct {
	Partition string `json:"partition"`
	Rows      int64  `json:"rows"`
}

// InputError is bad input: the run stopped before changing anything.
type InputError struct {
	Msg string
	Err error // the underlying error (a reader's or the database's), if any
	// File, Line and Column locate the fault where it is known (Line 0
	// and Column "" where not).
	File   string
	Line   int
	Column string
	at     error // the located fault, when the input was read to find it
}

func (e *InputError) Error() string { return e.Msg }

// Unwrap gives both the underlying error and the located fault, so
// errors.Is and errors.As see through either.
func (e *InputError) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Err, e.at} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Staging table names, on the run's own connection.
const (
	stageTable = engine.StageTable
	dedupTable = engine.DedupTable
	planTable  = engine.MergePlanTable
)

// Run runs the job for opts.Date and the lookback partitions before it, in
// order, stopping at the first failure. Each partition gets a Result, the
// failed one included.
func Run(ctx context.Context, db engine.DB, j *job.Job, opts Options) ([]Result, error) {
	opts = opts.withDefaults()
	windows, err := j.Windows(opts.Date)
	if err != nil {
		return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
	}
	var results []Result
	for _, w := range windows {
		res, err := runWindow(ctx, db, j, w, opts)
		results = append(results, res)
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

// runWindow runs one partition (opts already defaulted, the ledger
// ensured). A failure is recorded in the failures table, best effort.
func runWindow(ctx context.Context, db engine.DB, j *job.Job, w job.Window, opts Options) (Result, error) {
	caps := db.Capabilities()
	r := &run{db: db, sql: db.SQL(), caps: caps, proto: newProtocol(caps), job: j, w: w, opts: opts, log: opts.Logger,
		res: Result{Job: j.Name, Partition: w.Label}}
	began := time.Now()
	err := r.do(ctx)
	// A run that ends before its ledger row still names its run id (a
	// failure's record, the result).
	if ferr := r.awaitFingerprint(); err == nil {
		err = ferr
	}
	err = interpret(ctx, caps, err)
	r.res.DurationMS = time.Since(began).Milliseconds()
	if err != nil {
		r.res.Action = ActionFailed
		r.res.Error = err.Error()
		if r.opts.plan == nil { // a plan writes nothing, a failure record neither
			r.recordFailure(ctx, err)
		}
		return r.res, fmt.Errorf("%s partition %s: %w", j.Name, w.Label, err)
	}
	return r.res, nil
}

// interpret names why a run stopped in the terms the exit codes need: a
// cancelled context is an interruption (whatever the driver said when its
// connection was closed under it), and the engine maps its own errors (a
// lock timeout in any statement) onto the engine's sentinels.
func interpret(ctx context.Context, caps engine.Capabilities, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && !errors.Is(err, engine.ErrInterrupted) {
		return fmt.Errorf("%w (%w)", engine.ErrInterrupted, err)
	}
	return caps.Errors.Interpret(err)
}

// lockScope is what a run's lock covers: the table it writes, named with
// its schema, so runs of two jobs on one table exclude each other too. A
// partition run writes only its partition; a merge writes anywhere in the
// table, so it excludes every other run of the table (on a server engine
// two concurrent merges could both insert one new key, and a merge beside
// a partition run could write into the partition being replaced).
func (r *run) lockScope() engine.LockScope {
	s := engine.LockScope{Table: r.qualifiedTable()}
	if r.job.Strategy != job.StrategyMerge {
		s.Partition = r.w.Label
	}
	return s
}

// checkColumnTypes refuses a columns: type the reader does not know, or a
// partition.timezone the target database does not know, as a job-file
// error (exit 2) before anything is read or written, with the job's other
// problems.
func (r *run) checkColumnTypes(ctx context.Context) error {
	ps, err := r.headerProblems(ctx)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(r.job.Columns))
	for _, c := range names {
		if _, err := input.ParseType(r.job.Columns[c]); err != nil {
			ps = append(ps, job.Problem{Path: "columns." + c, Line: r.job.Pos.Columns[c], Msg: err.Error()})
		}
	}
	if r.job.Partition.Timezone != "" {
		if err := r.caps.Zones.CheckZone(ctx, r.job.Partition.Timezone); err != nil {
			if ctx.Err() != nil {
				return err
			}
			ps = append(ps, job.Problem{Path: "partition.timezone", Line: r.job.Pos.Timezone.Line,
				Msg: fmt.Sprintf("%q is not a zone the target database knows: %v", r.job.Partition.Timezone, firstLine(err))})
		}
	}
	if len(ps) > 0 {
		return &job.Error{File: r.job.Path, Problems: ps}
	}
	return nil
}

func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// checkOwner refuses to write a table another job has written, unless
// this job names that job under target.shared_with: two jobs replacing one
// partition would undo each other on every run, and each would reload
// what the other wrote. Table names are compared without case on every
// engine (DuckDB folds it), and jobs sharing a table must spell it alike:
// the lock they take turns on is keyed by its name.
func (r *run) checkOwner(ctx context.Context) error {
	if !r.ledger { // no run has written anything yet
		return nil
	}
	owners, err := ledger.Owners(ctx, r.s, r.db, r.tableName(), r.job.Name)
	if err != nil {
		return err
	}
	var foreign, spelled []string
	for _, o := range owners {
		switch {
		case !slices.Contains([]string(r.job.Target.SharedWith), o.Job):
			who := fmt.Sprintf("%q", o.Job)
			if o.Table != r.tableName() {
				who += " (as " + o.Table + ")"
			}
			foreign = append(foreign, who)
		case o.Table != r.tableName():
			spelled = append(spelled, fmt.Sprintf("%q writes it as %s", o.Job, o.Table))
		}
	}
	if len(foreign) > 0 {
		return &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "target.table", Msg: fmt.Sprintf(
			"%s is loaded by job %s (per %s; table names are compared without case); a table has one owning job: give this job its own table, or, if both jobs really write it, name the other under target.shared_with",
			r.tableName(), strings.Join(foreign, ", "), r.sql.Table(r.db.Names().Ledger))}}}
	}
	if len(spelled) > 0 {
		return &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "target.table", Msg: fmt.Sprintf(
			"%s is shared with a job that spells it otherwise: %s; spell it alike in every job that shares it, so that their runs take turns on one lock",
			r.tableName(), strings.Join(spelled, "; "))}}}
	}
	return nil
}

// tableName is the qualified target as the ledger records it.
func (r *run) tableName() string {
	t := r.qualifiedTable()
	return t.Schema + "." + t.Name
}

// qualifiedTable is the target with the engine's default schema filled in.
func (r *run) qualifiedTable() engine.Table {
	t := engine.Table(r.job.Table())
	if t.Schema == "" {
		t.Schema = r.db.Names().DefaultSchema
	}
	return t
}

// placeStep counts where the staged rows belong, and refuses an input
// with no rows for the partition.
func (r *run) placeStep(ctx context.Context) error {
	if err := r.startChecksum(ctx); err != nil {
		return err
	}
	var inWindow int64
	if r.staged && r.res.RowsIn > 0 {
		var err error
		if inWindow, err = r.placeRows(ctx); err != nil {
			return err
		}
	}
	if inWindow == 0 && !r.job.AllowEmpty {
		return r.emptyError(ctx)
	}
	r.inWindow = inWindow
	return r.checkShrink(ctx, inWindow)
}

// checkShrink refuses, before anything is written, a partition run that
// would leave max_shrink or more fewer rows than the ledger recorded last
// time: a source read while it was partly loaded (a lagging replica, an
// export cut short) looks like a complete one otherwise.
func (r *run) checkShrink(ctx context.Context, rows int64) error {
	if r.job.MaxShrink == 0 || !r.ledger {
		return nil
	}
	last, err := ledger.Last(ctx, r.s, r.db, r.job.Name, r.w.Label)
	if errors.Is(err, ledger.ErrNoRun) {
		return nil
	}
	if err != nil {
		return err
	}
	if last.RowCount <= 0 || rows >= last.RowCount {
		return nil
	}
	drop := 100 * float64(last.RowCount-rows) / float64(last.RowCount)
	if drop < float64(r.job.MaxShrink) {
		return nil
	}
	return &InputError{Msg: fmt.Sprintf("partition %s would go from %d rows (its last run's) to %d, %.1f%% fewer, and max_shrink is %g%%: nothing was written (if the source really lost those rows, raise max_shrink for this run)",
		r.w.Label, last.RowCount, rows, drop, float64(r.job.MaxShrink))}
}

// deletePartition deletes the window's rows from the target.
func (r *run) deletePartition(ctx context.Context) error {
	if !r.exists { // no input and no table: nothing to replace
		return nil
	}
	if r.direct {
		return r.deleteOutside(ctx)
	}
	where, err := r.window(r.targetCols)
	if err != nil {
		return err
	}
	if r.res.Deleted, err = r.s.exec(ctx, r.sql.Write.DeleteWhere(r.table, where)); err != nil {
		return fmt.Errorf("deleting partition %s: %w", r.w.Label, err)
	}
	return nil
}

// insertPartition inserts the staged in-window rows.
func (r *run) insertPartition(ctx context.Context) error {
	if !r.exists || !r.staged || r.res.RowsIn == 0 {
		return nil
	}
	if r.direct { // loaded there already; deleteOutside kept the partition's
		r.res.Inserted = r.inWindow
		return nil
	}
	return r.insert(ctx, r.table, r.src, r.stageCols)
}

// checksumPartition counts and checksums the partition as written.
func (r *run) checksumPartition(ctx context.Context) error {
	if !r.exists {
		return nil
	}
	if r.split != nil {
		return r.splitChecksum(ctx)
	}
	if r.placed != nil {
		r.s.mark(KindSQL, "-- partition checksum: taken by the placement count's scan above (only rows outside the window were deleted since)")
		r.res.RowCount, r.res.Checksum = r.placed.n, r.placed.sum
		return nil
	}
	where, err := r.window(r.targetCols)
	if err != nil {
		return err
	}
	r.res.RowCount, r.res.Checksum, err = r.s.checksum(ctx, r.sql, r.table, r.dataColumns(r.targetCols), where)
	return err
}

// placeRows counts the staged rows in the window, refuses rows whose
// partition value is NULL (they belong to no partition) unless the job
// skips them, and reports the partitions the other rows belong to.
func (r *run) placeRows(ctx context.Context) (int64, error) {
	where, err := r.window(r.stageCols)
	if err != nil {
		return 0, err
	}
	total, inWindow, nulls, err := r.placement(ctx, where)
	if err != nil {
		return 0, err
	}
	r.res.RowsOutOfWindow = total - inWindow
	if nulls > 0 && r.job.Partition.OnNull != job.OnNullSkip {
		return 0, &InputError{Msg: fmt.Sprintf("%d input rows have no %s (NULL), so they belong to no partition; set partition.on_null: skip to leave them out%s",
			nulls, r.job.Partition.Column, r.locate([]string{r.job.Partition.Column}))}
	}
	if total-inWindow-nulls == 0 {
		return inWindow, nil
	}
	if r.res.OutOfWindow, err = r.otherPartitions(ctx, where); err != nil {
		return 0, err
	}
	if r.job.Partition.OutOfWindow == job.OutOfWindowFail {
		return 0, &InputError{Msg: fmt.Sprintf("%d input rows belong to other partitions (%s) and partition.out_of_window is fail; nothing was loaded",
			total-inWindow-nulls, describeRows(r.res.OutOfWindow))}
	}
	return inWindow, nil
}

// placement counts the staged rows, those in the window (where) and those
// with no partition value. On a direct first load into a table of the
// run's transaction, the same scan checksums the window's rows where the
// engine can (engine.PlacementChecksummer): they are the partition as the
// run leaves it, since only rows outside the window are deleted after.
func (r *run) placement(ctx context.Context, where string) (total, inWindow, nulls int64, err error) {
	col := r.job.Partition.Column
	pc, fold := r.sql.Check.(engine.PlacementChecksummer)
	// Only a direct load into the new target itself, in the run's
	// transaction, has the partition as the run leaves it.
	intoTarget := r.direct && r.built == engine.Table(r.job.Table())
	if !fold || !intoTarget || r.split != nil {
		q := r.sql.Write.Placement(r.srcTable(), where, col)
		err = r.s.QueryRowContext(ctx, q).Scan(&total, &inWindow, &nulls)
		return total, inWindow, nulls, err
	}
	var sum string
	q := pc.PlacementChecksum(r.srcTable(), where, col, r.dataColumns(r.targetCols))
	if err = r.s.QueryRowContext(ctx, q).Scan(&total, &inWindow, &nulls, &sum); err != nil {
		return 0, 0, 0, err
	}
	r.placed = &partitionSum{n: inWindow, sum: checksumTag(r.sql) + normalizeSum(sum)}
	return total, inWindow, nulls, nil
}

// maxReported bounds how many partitions an out-of-window report lists.
const maxReported = 20

// otherPartitions groups the staged rows outside the window by the
// partition they belong to.
func (r *run) otherPartitions(ctx context.Context, where string) ([]PartitionRows, error) {
	col := r.job.Partition.Column
	var typ string
	for _, c := range r.stageCols {
		if c.Name == col {
			typ = c.Type
		}
	}
	kind, _ := r.sql.Types.TimeKindOf(typ)
	start := r.sql.Types.PartitionStart(r.sql.Ident(col), kind, string(r.w.Grain), r.job.Partition.Timezone)
	c := r.sql.Cond
	q := r.sql.Inspect.GroupCount(r.srcTable(), start, c.And(c.Not(where), c.NotNull(col)))
	rows, err := r.s.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("grouping out-of-window rows: %w", err)
	}
	defer rows.Close()
	var out []PartitionRows
	for rows.Next() {
		var p time.Time
		var n int64
		if err := rows.Scan(&p, &n); err != nil {
			return nil, err
		}
		out = append(out, PartitionRows{Partition: r.w.Grain.Label(p), Rows: n})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) > maxReported { // keep the nearest: the latest before and the earliest after
		i, _ := slices.BinarySearchFunc(out, r.w.Label, func(p PartitionRows, l string) int { return strings.Compare(p.Partition, l) })
		lo := max(0, min(i-maxReported/2, len(out)-maxReported))
		out = out[lo : lo+maxReported]
	}
	return out, nil
}

func describeRows(ps []PartitionRows) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s: %d", p.Partition, p.Rows)
	}
	return strings.Join(parts, ", ")
}

// emptyError refuses an input with no rows for the partition: a missing or
// truncated delivery must not pass for an empty day.
func (r *run) emptyError(ctx context.Context) error {
	what := "the input has no rows"
	if r.res.RowsIn > 0 {
		what = fmt.Sprintf("none of the input's %d rows", r.res.RowsIn)
		if r.job.Strategy == job.StrategyPartition {
			what += " falls"
		}
	}
	if r.job.Strategy == job.StrategyMerge {
		return &InputError{Msg: what + "; nothing was merged (set allow_empty: true if an empty input is normal)"}
	}
	msg := fmt.Sprintf("%s in partition %s", what, r.w.Label)
	if r.res.RowsIn == 0 {
		msg = fmt.Sprintf("%s for partition %s", what, r.w.Label)
	}
	n := int64(0)
	if r.exists {
		where, err := r.window(r.targetCols)
		if err != nil {
			return err
		}
		if n, err = r.s.count(ctx, r.sql.Inspect.Count(r.table, where)); err != nil {
			return err
		}
	}
	if n > 0 {
		return &InputError{Msg: fmt.Sprintf("%s; the partition keeps its %d rows (set allow_empty: true to let an empty input empty it)", msg, n)}
	}
	return &InputError{Msg: msg + "; nothing was loaded (set allow_empty: true if an empty partition is normal)"}
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// dropStaging drops the run's temporary tables so the next partition on this
// connection starts clean.
func (r *run) dropStaging(ctx context.Context) error {
	if !r.staged {
		return nil
	}
	// Only the tables this run made: each statement costs a few hundred
	// microseconds, which a backfill pays for every partition.
	tables := []string{stageTable}
	if r.job.LatestBy == job.LatestByRun { // left by a failed versionRows
		tables = append(tables, engine.VersionedTable)
	}
	if r.src == dedupTable {
		tables = append(tables, dedupTable)
	}
	if r.job.Strategy == job.StrategyMerge {
		tables = append(tables, planTable)
	}
	for _, t := range tables {
		if _, err := r.s.exec(ctx, r.sql.Temp.DropTemp(t)); err != nil {
			return err
		}
	}
	return nil
}

// skip reports whether this run is already done. A
// partition run is done when its run id is the partition's last successful
// run and the partition still has the recorded row count and checksum. A
// merge run is done when its run id is in the ledger.
func (r *run) skip(ctx context.Context) (bool, error) {
	j := r.job
	if r.opts.Force || !r.ledger {
		return false, nil
	}
	if j.Strategy == job.StrategyMerge {
		prev, err := ledger.Find(ctx, r.s, r.db, j.Name, r.w.Label, r.res.RunID)
		if errors.Is(err, ledger.ErrNoRun) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if err := r.checkMergeTarget(ctx); err != nil {
			return false, err
		}
		r.res.RowCount, r.res.Checksum = prev.RowCount, prev.Checksum
		return true, nil
	}
	var last *ledger.Entry
	var err error
	if r.pre != nil {
		last = r.pre.last
	} else if last, err = ledger.Last(ctx, r.s, r.db, j.Name, r.w.Label); errors.Is(err, ledger.ErrNoRun) {
		return false, nil
	}
	if err != nil || last.RunID != r.res.RunID {
		return false, err
	}
	// A partition loaded while open is confirmed by its first run after it
	// closed, same input or not, so the ledger (and `idem status`) says so.
	if !last.PartitionClosed && j.Closed(r.w, r.opts.AsOf) {
		r.res.Reloaded = fmt.Sprintf("run %s loaded it while it was open; it is closed now", short(last.RunID))
		return false, nil
	}
	n, sum, err := r.partitionSum(ctx, last)
	if err != nil {
		return false, err
	}
	if n != last.RowCount || (n > 0 && sum != last.Checksum) {
		r.res.Reloaded = fmt.Sprintf("the partition changed since run %s: it had %d rows, checksum %s; now %d rows, checksum %s",
			short(last.RunID), last.RowCount, last.Checksum, n, sum)
		return false, nil
	}
	r.res.RowCount, r.res.Checksum = n, sum
	return true, nil
}

// partitionSum is the partition's row count and checksum, as taken while
// the input was hashed (checksumAhead), or now, with the function that
// made last's.
func (r *run) partitionSum(ctx context.Context, last *ledger.Entry) (int64, string, error) {
	if r.pre != nil {
		return r.pre.n, r.pre.sum, nil
	}
	if !r.exists {
		return 0, "", nil
	}
	where, err := r.window(r.targetCols)
	if err != nil {
		return 0, "", err
	}
	return r.s.checksumLike(ctx, r.sql, last.Checksum, r.table, r.dataColumns(r.targetCols), where)
}

func (r *run) tableExists(ctx context.Context) (bool, error) {
	q, args := r.sql.Catalog.TableExists(engine.Table(r.job.Table()))
	rows, err := r.s.QueryContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// checkColumns checks, before anything is written, that the input has every
// column the job names and the target has every input column.
func (r *run) checkColumns(stage, target []engine.Column) error {
	have := names(stage)
	var ps []job.Problem
	for _, rc := range r.job.RequiredColumns() {
		if !slices.Contains(have, rc[1]) {
			ps = append(ps, job.Problem{Path: rc[0], Msg: fmt.Sprintf("column %q is not in the source (its columns: %s)", rc[1], strings.Join(have, ", "))})
		}
	}
	if r.job.LoadedAt != "" && slices.Contains(have, r.job.LoadedAt) {
		ps = append(ps, job.Problem{Path: "loaded_at", Msg: fmt.Sprintf("column %q is also in the source; loaded_at must name a column idem fills", r.job.LoadedAt)})
	}
	ps = append(ps, r.floatProblems(stage, target)...)
	ps = append(ps, r.jsonProblems()...)
	if len(ps) > 0 {
		return &job.Error{File: r.job.Path, Problems: ps}
	}
	if target == nil {
		return nil
	}
	tn := names(target)
	r.newCols = nil
	for _, c := range stage {
		if slices.Contains(tn, c.Name) {
			continue
		}
		if r.job.OnSchemaChange != job.SchemaAddColumns {
			return &InputError{Msg: fmt.Sprintf("the input has column %q, which target %s does not have (its columns: %s); set on_schema_change: add_columns to add it",
				c.Name, r.job.Target.Table, strings.Join(tn, ", "))}
		}
		if typ, ok := r.stagedAs[c.Name]; ok {
			c.Type = typ
		}
		r.newCols = append(r.newCols, c)
	}
	for _, c := range tn {
		if c != r.job.LoadedAt && !r.addsVersion(c) && !slices.Contains(have, c) {
			return &InputError{Msg: fmt.Sprintf("%s lacks column %q, which target %s has; it would load as NULL and a reload would erase the column's values (its columns: %s)",
				r.inputName(), c, r.job.Target.Table, strings.Join(have, ", "))}
		}
	}
	return nil
}

// addsVersion reports whether target column c is the one latest_by: run
// adds to the input (job.RunVersionColumn): the source never has it.
func (r *run) addsVersion(c string) bool {
	return r.job.LatestBy == job.LatestByRun && c == job.RunVersionColumn
}

// inputName names the input in messages: its files (at most 3) or the query.
func (r *run) inputName() string {
	if len(r.files) == 0 {
		return "the source query"
	}
	names := make([]string, 0, 3)
	for i, f := range r.files {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(r.files)-3))
			break
		}
		names = append(names, filepath.Base(f))
	}
	return "the input (" + strings.Join(names, ", ") + ")"
}

// checkTypes refuses a staged column whose values the target's column
// would take only with loss (decimals into an integer column, text into a
// date): the type of an existing column never changes silently. A column
// that is NULL in the whole input has no type of its own to conflict.
func (r *run) checkTypes(ctx context.Context) error {
	if !r.exists {
		return nil
	}
	targetType := map[string]string{}
	for _, c := range r.targetCols {
		targetType[c.Name] = c.Type
	}
	for _, c := range r.stageCols {
		tt, ok := targetType[c.Name]
		if !ok {
			continue
		}
		change := engine.TypeChange(c.Name, c.Type, tt)
		if change == "" {
			continue
		}
		n, err := r.s.count(ctx, r.sql.Inspect.Count(r.sql.Ident(stageTable), r.sql.Cond.NotNull(c.Name)))
		if err != nil {
			return err
		}
		if n > 0 {
			return &InputError{Msg: fmt.Sprintf("%s (%s); a column's type never changes silently: give the input's type under columns:, or change the target's column yourself",
				change, r.inputName())}
		}
	}
	return nil
}

// addColumns adds the input's new columns to the target, nullable, in the
// run's transaction (on_schema_change: add_columns). Nothing is ever
// dropped or narrowed.
func (r *run) addColumns(ctx context.Context) error {
	if len(r.newCols) == 0 {
		return nil
	}
	for _, c := range r.newCols {
		add := append([]string{r.sql.Stage.AddColumn(engine.Table(r.job.Table()), stageTable, c)}, r.markJSON(engine.Table(r.job.Table()), []string{c.Name})...)
		for _, q := range add {
			if _, err := r.s.exec(ctx, q); err != nil {
				return fmt.Errorf("adding column %q to %s: %w", c.Name, r.job.Target.Table, err)
			}
		}
		r.log.Info("added column", "table", r.job.Target.Table, "column", c.Name, "type", c.Type)
	}
	var err error
	r.targetCols, err = r.s.columns(ctx, r.sql, r.table)
	return err
}

// exactColumns are the key and version columns: compared for equality and
// order, so never floating point.
func (r *run) exactColumns() []string { return exactColumns(r.job) }

func exactColumns(j *job.Job) []string {
	cols := slices.Clone([]string(j.Key))
	if v := j.VersionColumn(); v != "" {
		cols = append(cols, v)
	}
	return cols
}

// exactPaths names the key and version columns by their path in the job.
func (r *run) exactPaths() map[string]string {
	paths := map[string]string{}
	for i, k := range r.job.Key {
		paths[k] = fmt.Sprintf("key[%d]", i)
	}
	if v := r.job.VersionColumn(); v != "" {
		paths[v] = "latest_by"
	}
	return paths
}

// jsonProblems refuses a key or version column the reader found to be
// JSON: engines neither order nor index it alike (PostgreSQL's json has
// no order, MariaDB compares it under a collation of its own).
func (r *run) jsonProblems() []job.Problem {
	if r.scanned == nil {
		return nil
	}
	paths := r.exactPaths()
	var ps []job.Problem
	for _, c := range r.scanned.Columns {
		if p, ok := paths[c.Name]; ok && c.Type.Kind == input.JSON {
			ps = append(ps, job.Problem{Path: p, Msg: fmt.Sprintf("column %q is read as JSON; a key or version column must not be JSON, which engines neither order nor index alike: declare it VARCHAR under columns:", c.Name)})
		}
	}
	return ps
}

// floatProblems refuses a key or version column that is floating point in
// the input or the target: distinct 20-digit keys round to one DOUBLE, and
// de-duplication would then keep one row of three.
func (r *run) floatProblems(stage, target []engine.Column) []job.Problem {
	paths := r.exactPaths()
	fix := "declare its type under columns: (DECIMAL(38,0) or VARCHAR for integers, DECIMAL(p,s) or VARCHAR otherwise)"
	if r.job.Source.IsQuery() {
		fix = "cast it in source.query (to DECIMAL(38,0), DECIMAL(p,s) or text)"
	}
	var ps []job.Problem
	for _, c := range stage {
		if p, ok := paths[c.Name]; ok && engine.IsFloat(c.Type) {
			ps = append(ps, job.Problem{Path: p, Msg: fmt.Sprintf("column %q is read as %s; a key or version column must not be floating point, where distinct values round to one: %s", c.Name, c.Type, fix)})
		}
	}
	for _, c := range target {
		if p, ok := paths[c.Name]; ok && engine.IsFloat(c.Type) {
			ps = append(ps, job.Problem{Path: p, Msg: fmt.Sprintf("column %q of target %s is %s; a key or version column must not be floating point, where distinct values round to one: change its type", c.Name, r.job.Target.Table, c.Type)})
		}
	}
	return ps
}

// dedup resolves duplicates on the key before anything is written, and
// refuses NULL key parts: NULL = NULL is not true in SQL, so such a row
// would be inserted again on every rerun.
func (r *run) dedup(ctx context.Context, cols []engine.Column) (string, error) {
	j := r.job
	stage := r.stagedTable()
	total := r.res.RowsIn // the reader counted the files' rows
	if r.scanned == nil {
		var err error
		if total, err = r.s.count(ctx, r.sql.Inspect.Count(stage, "")); err != nil {
			return "", err
		}
	}
	r.res.RowsIn = total
	if len(j.Key) == 0 {
		return stageTable, nil
	}
	cond := r.sql.Cond.AnyNull(j.Key)
	n, err := r.s.count(ctx, r.sql.Inspect.Count(stage, cond))
	if err != nil {
		return "", err
	}
	if n > 0 {
		return "", r.nullKeyError(ctx, n, stage, cond, cols)
	}
	// Most inputs have no repeated key: counting distinct keys is much
	// cheaper than ranking every row, and then staging is already the
	// de-duplicated input.
	distinct, err := r.s.count(ctx, r.sql.Inspect.CountDistinct(stage, j.Key))
	if err != nil {
		return "", err
	}
	if distinct == total {
		return stageTable, r.keepDirect(ctx, cols)
	}
	if r.direct {
		if err := r.unbuild(ctx, cols); err != nil {
			return "", err
		}
	}
	if _, err := r.s.exec(ctx, r.sql.Stage.Dedup(dedupTable, stageTable, j.Key, j.VersionColumn(), j.DeleteWhen, cols)); err != nil {
		return "", fmt.Errorf("de-duplicating the input: %w", err)
	}
	kept, err := r.s.count(ctx, r.sql.Inspect.Count(r.sql.Ident(dedupTable), ""))
	if err != nil {
		return "", err
	}
	r.res.RowsDeduped = total - kept
	return dedupTable, nil
}

func (r *run) nullKeyError(ctx context.Context, n int64, stage, cond string, cols []engine.Column) error {
	rows, err := r.s.QueryContext(ctx, r.sql.Inspect.Sample(stage, names(cols), cond, 3))
	if err != nil {
		return err
	}
	defer rows.Close()
	var shown []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			s := "NULL"
			if v.Valid {
				s = fmt.Sprintf("%q", v.String)
			}
			parts[i] = cols[i].Name + "=" + s
		}
		shown = append(shown, "{"+strings.Join(parts, ", ")+"}")
	}
	return &InputError{Msg: fmt.Sprintf("%d input rows have a NULL in key (%s); a NULL key would be inserted again on every rerun. First: %s%s",
		n, strings.Join(r.job.Key, ", "), strings.Join(shown, "; "), r.locate(r.job.Key))}
}

// window is the SQL predicate selecting this partition's rows, with the
// window's bounds as typed literals of the partition column's type.
func (r *run) window(cols []engine.Column) (string, error) {
	return windowCond(r.sql, r.job, r.w, cols)
}

// windowCond is the predicate selecting window w's rows of a table of cols.
func windowCond(d *engine.SQL, j *job.Job, w job.Window, cols []engine.Column) (string, error) {
	col := j.Partition.Column
	var typ string
	for _, c := range cols {
		if c.Name == col {
			typ = c.Type
		}
	}
	kind, ok := d.Types.TimeKindOf(typ)
	if !ok {
		return "", &job.Error{File: j.Path, Problems: []job.Problem{{Path: "partition.column",
			Msg: fmt.Sprintf("column %q is %s; it must be a date or timestamp (give its type under columns:)", col, typ)}}}
	}
	if kind == engine.KindDate && w.Grain == job.GrainHour {
		return "", &job.Error{File: j.Path, Problems: []job.Problem{{Path: "partition.grain",
			Msg: fmt.Sprintf("hour partitions need a timestamp column; %q is a DATE", col)}}}
	}
	return d.Cond.Between(col, d.TimeLiteral(w.Start, kind), d.TimeLiteral(w.End, kind)), nil
}

func (r *run) insert(ctx context.Context, table, src string, cols []engine.Column) error {
	where, err := r.window(cols)
	if err != nil {
		return err
	}
	var args []any
	if r.job.LoadedAt != "" {
		args = append(args, r.opts.Now().UTC())
	}
	q := r.sql.Write.InsertSelect(table, names(cols), r.job.LoadedAt, r.sql.Ident(src), where)
	if r.res.Inserted, err = r.s.exec(ctx, q, args...); err != nil {
		return fmt.Errorf("inserting into %s: %w", r.job.Target.Table, err)
	}
	return nil
}

// dataColumns are the target's columns that count in a checksum: all but
// the loaded_at metadata column.
func (r *run) dataColumns(cols []engine.Column) []engine.Column {
	var out []engine.Column
	for _, c := range cols {
		if c.Name != r.job.LoadedAt {
			out = append(out, c)
		}
	}
	return out
}

func (r *run) entry(startedAt time.Time, closed bool) *ledger.Entry {
	res := r.res
	return &ledger.Entry{
		Job: res.Job, Partition: res.Partition, RunID: res.RunID,
		InputFingerprint: res.InputFingerprint, DefinitionHash: r.job.DefinitionHash(),
		Strategy: r.job.Strategy, RowsIn: res.RowsIn, RowsDeduped: res.RowsDeduped,
		RowsOutOfWindow: res.RowsOutOfWindow, Inserted: res.Inserted, Updated: res.Updated,
		Deleted: res.Deleted, DeletedAbsent: res.DeletedAbsent, SkippedOlder: res.SkippedOlder, KeptOnTie: res.KeptOnTie, RowCount: res.RowCount,
		Checksum: res.Checksum, PartitionClosed: closed, StartedAt: startedAt,
		FinishedAt: r.opts.Now(), IdemVersion: Version, TargetTable: r.tableName(), TableRows: r.tableRows,
		InputObjects: r.remote.record(),
	}
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func names(cols []engine.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// ErrNotFound marks a table or column, named by the caller of
// TableChecksum, that does not exist.
var ErrNotFound = errors.New("does not exist")

// TableChecksum is `idem checksum`: the row count and checksum of a table,
// or of the rows where selects, leaving out the excluded columns. where is
// one SQL condition (engine.CheckExpression); it runs as the caller's SQL,
// so for input that is not trusted open db with idem.OpenReadOnly, whose
// connection cannot write. A missing table or excluded column is an error
// wrapping ErrNotFound.
func TableChecksum(ctx context.Context, db engine.DB, table engine.Table, where string, exclude []string) (int64, string, error) {
	if where != "" {
		if err := engine.CheckExpression(where, engine.LexiconOf(db.SQL().Dialect).Rules); err != nil {
			return 0, "", fmt.Errorf("the condition %w", err)
		}
		where = "(" + where + ")"
	}
	s := &session{q: db.Conn(), log: slog.New(slog.DiscardHandler)}
	d := db.SQL()
	name := job.TableName(table).String()
	cols, err := s.columns(ctx, d, d.Table(table))
	if err != nil {
		// Asked only now, so that a view still has a checksum.
		q, args := d.Catalog.TableExists(table)
		rows, qerr := s.QueryContext(ctx, q, args...)
		if qerr == nil {
			found := rows.Next()
			rows.Close()
			if !found {
				return 0, "", fmt.Errorf("table %s %w", name, ErrNotFound)
			}
		}
		return 0, "", fmt.Errorf("reading the columns of %s: %w", name, err)
	}
	have := names(cols)
	for _, x := range exclude {
		if !slices.Contains(have, x) {
			return 0, "", fmt.Errorf("excluded column %q of %s %w; its columns: %s", x, name, ErrNotFound, strings.Join(have, ", "))
		}
	}
	var keep []engine.Column
	for _, c := range cols {
		if !slices.Contains(exclude, c.Name) {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return 0, "", errors.New("every column is excluded")
	}
	return s.checksum(ctx, d, d.Table(table), keep, where)
}
