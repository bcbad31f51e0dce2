// Package ledger reads and writes idem_runs, the table in the target
// database that records every committed run, in the same transaction as the
// run's data.
package ledger

import (
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
	t := db.Names().Ledger
	if t.Schema == "" {
		t.Schema = db.Names().DefaultSchema
	}
	query, args := db.SQL().Records.ColumnNames(t)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return false, false, fmt.Errorf("looking for the ledger table: %w", err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return false, false, fmt.Errorf("looking for the ledger table: %w", err)
		}
		have[c] = true
	}
	if err := rows.Err(); err != nil {
		return false, false, fmt.Errorf("looking for the ledger table: %w", err)
	}
	current = len(have) > 0
	for _, c := range runs.names() {
		current = current && have[c]
	}
	return len(have) > 0, current, nil
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

// DefinitionChanged reports whether job's latest runs (by finished_at;
// all of them on a tie) were under another definition hash than def, or
// none was under def: a change of the job's definition (its key, say, or
// the key changed back) makes the next run the first under it. A clock
// only orders runs here, to decide whether to look harder; on a tie it
// says changed, which costs a look, never a wrong answer.
func DefinitionChanged(ctx context.Context, q engine.Querier, db engine.DB, job, def string) (bool, error) {
	cols := []engine.ColumnDef{{Name: "definition_hash", Type: engine.TypeText}, {Name: "finished_at", Type: engine.TypeInstant}}
	rows, err := q.QueryContext(ctx, db.SQL().Records.Select(db.Names().Ledger, cols, []string{"job"}, nil), job)
	if err != nil {
		return false, fmt.Errorf("reading the ledger: %w", err)
	}
	defer rows.Close()
	var latest time.Time
	seen, other := false, false
	for rows.Next() {
		var d string
		var at time.Time
		if err := rows.Scan(&d, &at); err != nil {
			return false, fmt.Errorf("reading the ledger: %w", err)
		}
		seen = seen || d == def
		switch {
		case at.After(latest):
			latest, other = at, d != def
		case at.Equal(latest):
			other = other || d != def
		}
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("reading the ledger: %w", err)
	}
	return !seen || other, nil
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
