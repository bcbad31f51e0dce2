// Package runner owns the order of a run's steps and the guarantees that
// order gives. Engines supply SQL; nothing here depends on which engine runs.
package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
	"github.com/idemdata/idem/source"
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
	// CrashAt kills the process at that point of the run (tests only).
	CrashAt string
	// Logger receives progress; default discards.
	Logger *slog.Logger
	// Record, if set, sees every SQL statement the run executes.
	Record func(query string)
}

// Result is what one partition's run did. Its JSON form is the contract
// of `idem run --json`.
type Result struct {
	Job              string `json:"job"`
	Partition        string `json:"partition"`
	RunID            string `json:"run_id"`
	Action           string `json:"action"`
	RowsIn           int64  `json:"rows_in"`
	RowsDeduped      int64  `json:"rows_deduped"`
	RowsOutOfWindow  int64  `json:"rows_out_of_window"`
	Inserted         int64  `json:"inserted"`
	Updated          int64  `json:"updated"`
	Deleted          int64  `json:"deleted"`
	SkippedOlder     int64  `json:"skipped_older"`
	RowCount         int64  `json:"row_count"`
	Checksum         string `json:"checksum"`
	InputFingerprint string `json:"input_fingerprint"`
	DurationMS       int64  `json:"duration_ms"`
	Error            string `json:"error,omitempty"`
}

// InputError is bad input: the run stopped before changing anything.
type InputError struct {
	Msg string
}

func (e *InputError) Error() string { return e.Msg }

// Staging table names, on the run's own connection.
const (
	stageTable = "idem_stage"
	dedupTable = "idem_stage_dedup"
	planTable  = "idem_merge_plan"
)

// Run runs the job for opts.Date and the lookback partitions before it, in
// order, stopping at the first failure. Each partition gets a Result, the
// failed one included.
func Run(ctx context.Context, db engine.DB, j *job.Job, opts Options) ([]Result, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AsOf.IsZero() {
		opts.AsOf = opts.Now()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 10 * time.Minute
	}
	windows, err := j.Windows(opts.Date)
	if err != nil {
		return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
	}
	s := &session{q: db.Conn(), rec: opts.Record, log: opts.Logger}
	if err := ledger.Ensure(ctx, db, s); err != nil {
		return nil, err
	}
	var results []Result
	for _, w := range windows {
		r := &run{db: db, d: db.Dialect(), st: db.Statements(), job: j, w: w, opts: opts, log: opts.Logger,
			res: Result{Job: j.Name, Partition: w.Label}}
		began := time.Now()
		err := r.do(ctx)
		r.res.DurationMS = time.Since(began).Milliseconds()
		if err != nil {
			r.res.Action = ActionFailed
			r.res.Error = err.Error()
			results = append(results, r.res)
			return results, fmt.Errorf("%s partition %s: %w", j.Name, w.Label, err)
		}
		results = append(results, r.res)
	}
	return results, nil
}

// run is one partition's run.
type run struct {
	db   engine.DB
	d    engine.Dialect
	st   engine.Statements
	job  *job.Job
	w    job.Window
	opts Options
	log  *slog.Logger
	s    *session
	res  Result

	// What the steps learn, in order.
	table      string          // the target, quoted
	exists     bool            // the target table exists
	targetCols []engine.Column // its columns
	staged     bool            // the input was read into stageTable
	stageCols  []engine.Column // the input's columns
	src        string          // stageTable, or dedupTable when de-duplicated
}

func (r *run) crash(point string) {
	if r.opts.CrashAt != point {
		return
	}
	r.log.Warn("crashing on purpose", "point", point)
	// What kill -9 would do: no deferred cleanup, no rollback.
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// do runs one partition: the same order of steps for every strategy and
// engine, in one transaction holding the partition's lock.
func (r *run) do(ctx context.Context) (err error) {
	j, w := r.job, r.w
	startedAt := r.opts.Now()
	closed := j.Closed(w, r.opts.AsOf)
	if !closed && !r.opts.AllowOpen {
		r.res.Action = ActionNotClosed
		return nil
	}

	tx, err := r.db.Conn().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	release, err := r.db.Lock(ctx, tx, j.Name, r.lockScope(), r.opts.LockTimeout)
	if err != nil {
		tx.Rollback()
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
		release()
	}()
	r.s = &session{q: tx, rec: r.opts.Record, log: r.log}
	r.table = r.d.Table(engine.Table(j.Table()))

	if r.exists, err = r.tableExists(ctx); err != nil {
		return err
	}
	if r.exists {
		if r.targetCols, err = r.s.columns(ctx, r.d, r.table); err != nil {
			return err
		}
	}

	// Files are fingerprinted from their bytes before anything is read into
	// the database, so a skipped run reads nothing.
	var files []string
	if j.Source.Files != "" {
		if files, err = source.Files(j.Dir, job.RenderPath(j.Source.Files, w)); err != nil {
			return err
		}
		fp, err := source.FingerprintFiles(files)
		if err != nil {
			return err
		}
		if skipped, err := r.skip(ctx, fp); err != nil || skipped {
			return r.finishSkip(tx, err, skipped)
		}
	}

	r.staged = true
	switch {
	case j.Source.Query != "":
		if _, err := r.s.exec(ctx, r.st.StageQuery(stageTable, job.RenderSQL(j.Source.Query, w, r.d))); err != nil {
			return fmt.Errorf("running source.query: %w", err)
		}
	case len(files) > 0:
		if err := r.stageFiles(ctx, tx, files); err != nil {
			return &InputError{Msg: fmt.Sprintf("reading %s: %v", strings.Join(files, ", "), err)}
		}
	default:
		r.staged = false
		r.log.Info("no input files", "glob", job.RenderPath(j.Source.Files, w))
	}
	r.crash(CrashAfterStage)

	if r.staged {
		if r.stageCols, err = r.s.columns(ctx, r.d, r.d.Ident(stageTable)); err != nil {
			return err
		}
		if err := r.checkColumns(r.stageCols, r.targetCols); err != nil {
			return err
		}
		if j.Source.Query != "" {
			n, sum, err := r.s.checksum(ctx, r.st, r.d.Ident(stageTable), r.stageCols, "")
			if err != nil {
				return err
			}
			if skipped, err := r.skip(ctx, source.FingerprintRows(n, sum)); err != nil || skipped {
				return r.finishSkip(tx, err, skipped)
			}
		}
		if r.src, err = r.dedup(ctx, r.stageCols); err != nil {
			return err
		}
		if !r.exists {
			for _, q := range r.st.CreateTableFrom(engine.Table(j.Table()), stageTable, j.LoadedAt) {
				if _, err := r.s.exec(ctx, q); err != nil {
					return fmt.Errorf("creating %s: %w", j.Target.Table, err)
				}
			}
			r.exists = true
			if r.targetCols, err = r.s.columns(ctx, r.d, r.table); err != nil {
				return err
			}
		}
	}

	switch j.Strategy {
	case job.StrategyMerge:
		err = r.merge(ctx)
	default:
		err = r.partition(ctx)
	}
	if err != nil {
		return err
	}

	if err := ledger.Write(ctx, r.s, r.db, r.entry(startedAt, closed)); err != nil {
		return err
	}
	if err := r.dropStaging(ctx); err != nil {
		return err
	}
	r.crash(CrashBeforeCommit)
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	r.crash(CrashAfterCommit)
	r.res.Action = ActionLoaded
	return nil
}

// lockScope is what a run's lock covers. A partition run writes only its
// partition; a merge writes anywhere in the table, so merge runs of one job
// take turns whatever partition names them (on a server engine two
// concurrent merges could both insert one new key).
func (r *run) lockScope() string {
	if r.job.Strategy == job.StrategyMerge {
		return "*"
	}
	return r.w.Label
}

// stageFiles reads the input files into stageTable, with the engine's own
// loader where it has one.
func (r *run) stageFiles(ctx context.Context, tx *sql.Tx, files []string) error {
	in := engine.FileInput{Paths: files, Format: r.job.Source.Format, Types: r.job.Columns, Target: engine.Table(r.job.Table()),
		Exact: r.exactColumns()}
	if rs, ok := r.db.(engine.FileResolver); ok {
		var err error
		if in, err = rs.ResolveFiles(ctx, r.s, in); err != nil {
			return err
		}
	}
	if l, ok := r.db.(engine.FileLoader); ok {
		r.s.note("-- load " + strings.Join(files, ", ") + " into " + r.d.Ident(stageTable))
		return l.LoadFiles(ctx, tx, stageTable, in)
	}
	q, err := r.st.StageFiles(stageTable, in)
	if err != nil {
		return err
	}
	_, err = r.s.exec(ctx, q)
	return err
}

// partition replaces the window's rows with the staged in-window rows.
func (r *run) partition(ctx context.Context) error {
	var inWindow int64
	if r.staged {
		where, err := r.window(r.stageCols)
		if err != nil {
			return err
		}
		var total int64
		q := fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE %s) FROM %s", where, r.d.Ident(r.src))
		if err := r.s.QueryRowContext(ctx, q).Scan(&total, &inWindow); err != nil {
			return err
		}
		r.res.RowsOutOfWindow = total - inWindow
	}
	if !r.exists { // no input and no table: nothing to replace
		return nil
	}
	where, err := r.window(r.targetCols)
	if err != nil {
		return err
	}
	if inWindow == 0 && !r.job.AllowEmpty {
		n, err := r.s.count(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", r.table, where))
		if err != nil {
			return err
		}
		if n > 0 {
			return &InputError{Msg: fmt.Sprintf("the input has no rows for partition %s; the partition keeps its %d rows (set allow_empty: true to let an empty input empty it)", r.w.Label, n)}
		}
	}
	if r.res.Deleted, err = r.s.exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s", r.table, where)); err != nil {
		return fmt.Errorf("deleting partition %s: %w", r.w.Label, err)
	}
	r.crash(CrashAfterDelete)
	if r.staged {
		if err := r.insert(ctx, r.table, r.src, r.stageCols); err != nil {
			return err
		}
	}
	r.crash(CrashAfterWrite)
	r.res.RowCount, r.res.Checksum, err = r.s.checksum(ctx, r.st, r.table, r.dataColumns(r.targetCols), where)
	return err
}

// dropStaging drops the run's temporary tables so the next partition on this
// connection starts clean.
func (r *run) dropStaging(ctx context.Context) error {
	if !r.staged {
		return nil
	}
	for _, t := range []string{stageTable, dedupTable, planTable} {
		if _, err := r.s.exec(ctx, "DROP TABLE IF EXISTS "+r.d.Ident(t)); err != nil {
			return err
		}
	}
	return nil
}

// finishSkip ends the transaction of a run the ledger says is done.
func (r *run) finishSkip(tx *sql.Tx, err error, skipped bool) error {
	if err != nil {
		return err
	}
	r.res.Action = ActionSkipped
	return tx.Rollback()
}

// skip sets the run id and reports whether this run is already done. A
// partition run is done when its run id is the partition's last successful
// run and the partition still has the recorded row count and checksum. A
// merge run is done when its run id is in the ledger.
func (r *run) skip(ctx context.Context, fingerprint string) (bool, error) {
	j := r.job
	r.res.InputFingerprint = fingerprint
	r.res.RunID = source.RunID(j.Name, r.w.Label, j.DefinitionHash(), fingerprint)
	if r.opts.Force {
		return false, nil
	}
	if j.Strategy == job.StrategyMerge {
		prev, err := ledger.Find(ctx, r.s, r.db, j.Name, r.w.Label, r.res.RunID)
		if err != nil || prev == nil {
			return false, err
		}
		r.res.RowCount, r.res.Checksum = prev.RowCount, prev.Checksum
		return true, nil
	}
	last, err := ledger.Last(ctx, r.s, r.db, j.Name, r.w.Label)
	if err != nil || last == nil || last.RunID != r.res.RunID {
		return false, err
	}
	var n int64
	var sum string
	if r.exists {
		where, err := r.window(r.targetCols)
		if err != nil {
			return false, err
		}
		if n, sum, err = r.s.checksum(ctx, r.st, r.table, r.dataColumns(r.targetCols), where); err != nil {
			return false, err
		}
	}
	if n != last.RowCount || (n > 0 && sum != last.Checksum) {
		r.log.Info("partition changed since its last run; reloading", "partition", r.w.Label,
			"recorded_rows", last.RowCount, "rows", n)
		return false, nil
	}
	r.res.RowCount, r.res.Checksum = n, sum
	return true, nil
}

func (r *run) tableExists(ctx context.Context) (bool, error) {
	q, args := r.st.TableExists(engine.Table(r.job.Table()))
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
	if len(ps) > 0 {
		return &job.Error{File: r.job.Path, Problems: ps}
	}
	if target != nil {
		tn := names(target)
		for _, c := range have {
			if !slices.Contains(tn, c) {
				return &InputError{Msg: fmt.Sprintf("the source has column %q, which target %s does not have (its columns: %s)", c, r.job.Target.Table, strings.Join(tn, ", "))}
			}
		}
	}
	return nil
}

// exactColumns are the key and version columns: compared for equality and
// order, so never floating point.
func (r *run) exactColumns() []string {
	cols := slices.Clone([]string(r.job.Key))
	if r.job.LatestBy != "" {
		cols = append(cols, r.job.LatestBy)
	}
	return cols
}

// floatProblems refuses a key or version column that is floating point in
// the input or the target: distinct 20-digit keys round to one DOUBLE, and
// de-duplication would then keep one row of three.
func (r *run) floatProblems(stage, target []engine.Column) []job.Problem {
	paths := map[string]string{}
	for i, k := range r.job.Key {
		paths[k] = fmt.Sprintf("key[%d]", i)
	}
	if r.job.LatestBy != "" {
		paths[r.job.LatestBy] = "latest_by"
	}
	fix := "declare its type under columns: (DECIMAL(38,0) or VARCHAR for integers, DECIMAL(p,s) or VARCHAR otherwise)"
	if r.job.Source.Query != "" {
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
	total, err := r.s.count(ctx, "SELECT count(*) FROM "+r.d.Ident(stageTable))
	if err != nil {
		return "", err
	}
	r.res.RowsIn = total
	if len(j.Key) == 0 {
		return stageTable, nil
	}
	nulls := make([]string, len(j.Key))
	for i, k := range j.Key {
		nulls[i] = r.d.Ident(k) + " IS NULL"
	}
	cond := strings.Join(nulls, " OR ")
	n, err := r.s.count(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", r.d.Ident(stageTable), cond))
	if err != nil {
		return "", err
	}
	if n > 0 {
		return "", r.nullKeyError(ctx, n, cond, cols)
	}
	// Most inputs have no repeated key: counting distinct keys is much
	// cheaper than ranking every row, and then staging is already the
	// de-duplicated input.
	keys := make([]string, len(j.Key))
	for i, k := range j.Key {
		keys[i] = r.d.Ident(k)
	}
	distinct, err := r.s.count(ctx, fmt.Sprintf("SELECT count(*) FROM (SELECT DISTINCT %s FROM %s) AS k",
		strings.Join(keys, ", "), r.d.Ident(stageTable)))
	if err != nil {
		return "", err
	}
	if distinct == total {
		return stageTable, nil
	}
	if _, err := r.s.exec(ctx, r.st.Dedup(dedupTable, stageTable, j.Key, j.LatestBy, cols)); err != nil {
		return "", fmt.Errorf("de-duplicating the input: %w", err)
	}
	kept, err := r.s.count(ctx, "SELECT count(*) FROM "+r.d.Ident(dedupTable))
	if err != nil {
		return "", err
	}
	r.res.RowsDeduped = total - kept
	return dedupTable, nil
}

func (r *run) nullKeyError(ctx context.Context, n int64, cond string, cols []engine.Column) error {
	casts := make([]string, len(cols))
	for i, c := range cols {
		casts[i] = fmt.Sprintf("CAST(%s AS VARCHAR)", r.d.Ident(c.Name))
	}
	rows, err := r.s.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT 3",
		strings.Join(casts, ", "), r.d.Ident(stageTable), cond, strings.Join(casts, ", ")))
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
	return &InputError{Msg: fmt.Sprintf("%d input rows have a NULL in key (%s); a NULL key would be inserted again on every rerun. First: %s",
		n, strings.Join(r.job.Key, ", "), strings.Join(shown, "; "))}
}

// window is the SQL predicate selecting this partition's rows, with the
// window's bounds as typed literals of the partition column's type.
func (r *run) window(cols []engine.Column) (string, error) {
	col := r.job.Partition.Column
	var typ string
	for _, c := range cols {
		if c.Name == col {
			typ = c.Type
		}
	}
	kind, ok := r.d.TimeKindOf(typ)
	if !ok {
		return "", &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "partition.column",
			Msg: fmt.Sprintf("column %q is %s; it must be a date or timestamp (give its type under columns:)", col, typ)}}}
	}
	if kind == engine.KindDate && r.w.Grain == job.GrainHour {
		return "", &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "partition.grain",
			Msg: fmt.Sprintf("hour partitions need a timestamp column; %q is a DATE", col)}}}
	}
	c := r.d.Ident(col)
	return fmt.Sprintf("%s >= %s AND %s < %s", c, r.d.TimeLiteral(r.w.Start, kind), c, r.d.TimeLiteral(r.w.End, kind)), nil
}

func (r *run) insert(ctx context.Context, table, src string, cols []engine.Column) error {
	where, err := r.window(cols)
	if err != nil {
		return err
	}
	list := make([]string, len(cols))
	for i, c := range cols {
		list[i] = r.d.Ident(c.Name)
	}
	into, sel := strings.Join(list, ", "), strings.Join(list, ", ")
	var args []any
	if r.job.LoadedAt != "" {
		into += ", " + r.d.Ident(r.job.LoadedAt)
		sel += ", " + r.d.Placeholder(1)
		args = append(args, r.opts.Now().UTC())
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s", table, into, sel, r.d.Ident(src), where)
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
		Deleted: res.Deleted, SkippedOlder: res.SkippedOlder, RowCount: res.RowCount,
		Checksum: res.Checksum, PartitionClosed: closed, StartedAt: startedAt,
		FinishedAt: r.opts.Now(), IdemVersion: Version,
	}
}

func names(cols []engine.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// TableChecksum is `idem checksum`: the row count and checksum of a table,
// or of the rows where selects, leaving out the excluded columns.
func TableChecksum(ctx context.Context, db engine.DB, table engine.Table, where string, exclude []string) (int64, string, error) {
	s := &session{q: db.Conn(), log: slog.New(slog.DiscardHandler)}
	d := db.Dialect()
	cols, err := s.columns(ctx, d, d.Table(table))
	if err != nil {
		return 0, "", err
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
	return s.checksum(ctx, db.Statements(), d.Table(table), keep, where)
}
