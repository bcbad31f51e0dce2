// Package ledger reads and writes idem_runs, the table in the target
// database that records every committed run, in the same transaction as the
// run's data.
package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/idemdata/idem/engine"
)

// Entry is one row of idem_runs.
type Entry struct {
	Job              string
	Partition        string
	RunID            string
	Seq              int64 // order of runs within (job, partition)
	InputFingerprint string
	DefinitionHash   string
	Strategy         string
	RowsIn           int64
	RowsDeduped      int64
	RowsOutOfWindow  int64
	Inserted         int64
	Updated          int64
	Deleted          int64
	DeletedAbsent    int64 // merge: deletes of keys the table did not hold, remembered
	SkippedOlder     int64
	KeptOnTie        int64 // merge: staged rows that tied on the version and lost by content
	RowCount         int64
	Checksum         string
	PartitionClosed  bool
	StartedAt        time.Time
	FinishedAt       time.Time
	IdemVersion      string
	// TargetTable is the schema-qualified table the run wrote: a table has
	// one owning job unless its jobs declare otherwise.
	TargetTable string
	// TableRows is a merge run's target's row count after it (0: not
	// recorded, by a partition run or an older idem): a rerun is skipped
	// only while the table still holds it.
	TableRows int64
	// InputObjects are the input objects the run loaded (EncodeObjects),
	// "" when its input was local files or a query.
	InputObjects string
	// JobSeq orders a job's runs across its partitions as they were
	// recorded (0: recorded by an older idem); runs recorded at once by
	// two partitions' runs may share one.
	JobSeq int64
}

// InputObject is one object a run loaded: its URL (no query, no
// credential), size and identity as listed, and the hash of the bytes
// read.
type InputObject struct {
	URL      string `json:"url"`
	Size     int64  `json:"size"`
	Identity string `json:"identity"`
	SHA256   string `json:"sha256"`
}

// EncodeObjects is objs as input_objects holds them ("" for none).
func EncodeObjects(objs []InputObject) string {
	if len(objs) == 0 {
		return ""
	}
	b, _ := json.Marshal(objs)
	return string(b)
}

// Objects are the input objects the run loaded, none for a run of local
// files or a query.
func (e *Entry) Objects() ([]InputObject, error) {
	if e.InputObjects == "" {
		return nil, nil
	}
	var objs []InputObject
	if err := json.Unmarshal([]byte(e.InputObjects), &objs); err != nil {
		return nil, fmt.Errorf("reading input_objects of run %s: %w", e.RunID, err)
	}
	return objs, nil
}

// ErrNoRun is returned by Last and Find when the ledger holds no such run.
var ErrNoRun = errors.New("no run in the ledger")

// State reports whether idem_runs exists, and whether it is current (has
// every column this version writes; a ledger from an older version lacks
// some until Ensure adds them). Until a run commits there is no ledger: a
// refused run must leave no trace, so the ledger is created (or brought up
// to date) inside a run's transaction, and a missing ledger means no
// previous run. The catalog is asked rather than the table, so the answer
// costs no failed statement (which would abort a PostgreSQL transaction).
func State(ctx context.Context, q engine.Querier, db engine.DB) (exists, current bool, err error) {
	have, err := columnNames(ctx, q, db)
	if err != nil {
		return false, false, err
	}
	current = len(have) > 0
	for _, c := range runs.names() {
		current = current && have[c]
	}
	return len(have) > 0, current, nil
}

// columnNames are the columns idem_runs has (none when it does not exist).
func columnNames(ctx context.Context, q engine.Querier, db engine.DB) (map[string]bool, error) {
	t := db.Names().Ledger
	if t.Schema == "" {
		t.Schema = db.Names().DefaultSchema
	}
	query, args := db.SQL().Records.ColumnNames(t)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("looking for the ledger table: %w", err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("looking for the ledger table: %w", err)
		}
		have[c] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("looking for the ledger table: %w", err)
	}
	return have, nil
}

// readColumns are the columns of idem_runs a read selects, by their index
// among runs' fields: all of them, but on a ledger an older idem wrote
// that no run has brought up to date yet (idem status reads it without
// writing) only those it has; the others read as their zero values. None
// when there is no ledger.
func readColumns(ctx context.Context, q engine.Querier, db engine.DB) ([]int, error) {
	have, err := columnNames(ctx, q, db)
	if err != nil {
		return nil, err
	}
	var idx []int
	for i, c := range runs.names() {
		if have[c] {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

// selectRunsOf selects the columns idx of idem_runs' rows where eq holds,
// ordered by orderBy.
func selectRunsOf(db engine.DB, idx []int, eq, orderBy []string) string {
	all := runs.def().Columns
	cols := make([]engine.ColumnDef, len(idx))
	for i, k := range idx {
		cols[i] = all[k]
	}
	return db.SQL().Records.Select(db.Names().Ledger, cols, eq, orderBy)
}

// destOf are the scan destinations in e of the columns idx.
func destOf(e *Entry, idx []int) []any {
	all := runs.dest(e)
	out := make([]any, len(idx))
	for i, k := range idx {
		out[i] = all[k]
	}
	return out
}

// Exists reports whether idem_runs exists (see State).
func Exists(ctx context.Context, q engine.Querier, db engine.DB) (bool, error) {
	exists, _, err := State(ctx, q, db)
	return exists, err
}

// Ensure creates idem_runs if it does not exist, and adds the columns an
// older version's ledger lacks.
func Ensure(ctx context.Context, db engine.DB, q engine.Querier) error {
	for _, ddl := range db.SQL().Ledger.LedgerDDL(db.Names().Ledger, runs.def()) {
		if _, err := q.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("creating the ledger table: %w", err)
		}
	}
	return nil
}

// selectRuns selects idem_runs' rows where eq holds, ordered by orderBy.
func selectRuns(db engine.DB, eq, orderBy []string) string {
	return db.SQL().Records.Select(db.Names().Ledger, runs.def().Columns, eq, orderBy)
}

// Last returns the latest committed run of (job, partition), or an error
// wrapping ErrNoRun when it has none.
func Last(ctx context.Context, q engine.Querier, db engine.DB, job, partition string) (*Entry, error) {
	// A partition has a few rows; picking the latest here is cheaper than
	// DuckDB's top-N for ORDER BY … LIMIT 1
	// (docs/decisions/0015-ledger-reads-on-skip.md).
	query := selectRuns(db, []string{"job", "partition"}, nil)
	rows, err := q.QueryContext(ctx, query, job, partition)
	if err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	defer rows.Close()
	var last *Entry
	for rows.Next() {
		var e Entry
		if err := rows.Scan(runs.dest(&e)...); err != nil {
			return nil, fmt.Errorf("reading the ledger: %w", err)
		}
		if last == nil || e.Seq > last.Seq {
			last = &e
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	if last == nil {
		return nil, fmt.Errorf("%w: job %s, partition %s", ErrNoRun, job, partition)
	}
	return last, nil
}

// Find returns the ledger row of one run id, or an error wrapping ErrNoRun
// when the ledger does not hold it.
func Find(ctx context.Context, q engine.Querier, db engine.DB, job, partition, runID string) (*Entry, error) {
	query := selectRuns(db, []string{"job", "partition", "run_id"}, nil)
	var e Entry
	err := q.QueryRowContext(ctx, query, job, partition, runID).Scan(runs.dest(&e)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: job %s, partition %s, run %s", ErrNoRun, job, partition, runID)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	return &e, nil
}

// Owner is a job that has written a table, and the table as it spelled it.
type Owner struct {
	Job, Table string
}

// Owners returns the jobs other than job ("" for none) that have written
// table (as "schema.name"), in order. Table names are compared as
// engine.SameName compares them, on every engine: a name DuckDB folds to
// the same table is that table.
func Owners(ctx context.Context, q engine.Querier, db engine.DB, table, job string) ([]Owner, error) {
	query := db.SQL().Records.DistinctPairs(db.Names().Ledger, "job", "target_table")
	rows, err := q.QueryContext(ctx, query, job)
	if err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	defer rows.Close()
	var out []Owner
	for rows.Next() {
		var j string
		var t sql.NullString // rows an older version wrote name no table
		if err := rows.Scan(&j, &t); err != nil {
			return nil, fmt.Errorf("reading the ledger: %w", err)
		}
		if t.Valid && engine.SameName(t.String, table) {
			out = append(out, Owner{Job: j, Table: t.String})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	return out, nil
}

// DefinitionChanged reports whether job's latest runs were under another
// definition hash than def, or none was under def: a change of the job's
// definition (its key, say, or the key changed back) makes the next run
// the first under it. The latest are those of the greatest job_seq (all
// of them when two runs share it); among runs an older idem recorded
// (job_seq 0) those of the latest finished_at, a clock that only says
// which to look at when nothing newer was recorded (docs/decisions/0025).
// A tie says changed, which costs a look, never a wrong answer.
func DefinitionChanged(ctx context.Context, q engine.Querier, db engine.DB, job, def string) (bool, error) {
	cols := []engine.ColumnDef{{Name: "definition_hash", Type: engine.TypeText}, {Name: "job_seq", Type: engine.TypeInt64}, {Name: "finished_at", Type: engine.TypeInstant}}
	rows, err := q.QueryContext(ctx, db.SQL().Records.Select(db.Names().Ledger, cols, []string{"job"}, nil), job)
	if err != nil {
		return false, fmt.Errorf("reading the ledger: %w", err)
	}
	defer rows.Close()
	var latest latestRuns
	seen := false
	for rows.Next() {
		var d string
		var seq int64
		var at time.Time
		if err := rows.Scan(&d, &seq, &at); err != nil {
			return false, fmt.Errorf("reading the ledger: %w", err)
		}
		seen = seen || d == def
		latest.add(seq, at, d != def)
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("reading the ledger: %w", err)
	}
	return !seen || latest.other, nil
}

// latestRuns follows a job's latest runs: whether any of them was under
// another definition.
type latestRuns struct {
	any   bool
	seq   int64
	at    time.Time
	other bool
}

// add takes one run in: its job_seq, its finished_at, and whether it was
// under another definition.
func (l *latestRuns) add(seq int64, at time.Time, other bool) {
	switch c := recorded(seq, at, l.seq, l.at); {
	case !l.any || c > 0:
		*l = latestRuns{any: true, seq: seq, at: at, other: other}
	case c == 0:
		l.other = l.other || other
	}
}

// recorded orders two runs of a job by when they were recorded: 1 when
// the first (its job_seq and finished_at) was recorded after the second,
// -1 before, 0 when they cannot be told apart. job_seq decides; runs an
// older idem recorded (job_seq 0) are ordered by finished_at.
func recorded(seq int64, at time.Time, seq2 int64, at2 time.Time) int {
	switch {
	case seq != seq2:
		return cmp.Compare(seq, seq2)
	case seq == 0:
		return at.Compare(at2)
	}
	return 0
}

// Write records e, giving it the next sequence number of its partition. Call
// it inside the run's transaction, after the partition lock is held.
func Write(ctx context.Context, q engine.Querier, db engine.DB, e *Entry) error {
	rec := db.SQL().Records
	seqSQL := rec.NextSeq(db.Names().Ledger, "seq", []string{"job", "partition"}, "run_id")
	var same int64
	if err := q.QueryRowContext(ctx, seqSQL, e.Job, e.Partition, e.RunID).Scan(&e.Seq, &same); err != nil {
		return fmt.Errorf("writing the ledger: %w", err)
	}
	jobSQL := rec.NextSeq(db.Names().Ledger, "job_seq", []string{"job"}, "")
	if err := q.QueryRowContext(ctx, jobSQL, e.Job).Scan(&e.JobSeq); err != nil {
		return fmt.Errorf("writing the ledger: %w", err)
	}
	args := runs.values(e)
	// A new run id is a plain insert: the partition's lock keeps out any
	// other writer of its rows, and DuckDB's ON CONFLICT costs several
	// milliseconds a run (a backfill writes hundreds).
	stmt := rec.Insert(db.Names().Ledger, runs.names())
	if same > 0 {
		stmt = db.SQL().Ledger.Upsert(db.Names().Ledger, runs.names(), runs.key)
	}
	if _, err := q.ExecContext(ctx, stmt, args...); err != nil {
		return fmt.Errorf("writing the ledger: %w", err)
	}
	return nil
}
