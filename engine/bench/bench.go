// Package bench holds what idem-bench's baselines share (cmd/idem-bench):
// the benchmark's columns, an Op, and the SQL that reads alike on every
// engine. Each engine owns its baseline, the engine's own bulk path run by
// hand, in its baseline package (engine/<name>/baseline), which registers
// it here; this package imports no engine. It is no part of a run.
package bench

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemdata/idem/engine"
)

// Columns are the benchmark's orders, in file order, with the types idem
// stages them as (amount's is given in the job's columns:).
var Columns = [][2]string{
	{"order_id", "BIGINT"},
	{"customer_id", "BIGINT"},
	{"order_date", "DATE"},
	{"status", "VARCHAR"},
	{"amount", "DECIMAL(12,2)"},
	{"updated_at", "TIMESTAMP"},
}

// Op is one baseline, run in its own process (idem-bench baseline) so its
// wall time and peak memory are measured as idem's are.
type Op struct {
	Engine string `json:"engine"` // duckdb | postgres | mysql | clickhouse
	Target string `json:"target"` // duckdb: a file path; postgres, mysql: a URL; clickhouse: a chDB folder
	Table  string `json:"table"`
	// Kind: "load" creates the table and bulk-loads File into it; "merge"
	// merges File into the existing table, newest updated_at wins; "pipe"
	// creates the table and streams Query's rows from the PostgreSQL
	// database Source into it through the engine's bulk load; "checksum"
	// reads the count and checksum of the rows of Day (PartitionChecksum)
	// and changes nothing.
	Kind   string `json:"kind"`
	Day    string `json:"day,omitempty"` // YYYY-MM-DD, of Kind "checksum"
	Format string `json:"format"`        // csv | jsonl | parquet
	File   string `json:"file"`
	// CSV is File's rows as CSV: PostgreSQL and MySQL have no reader for
	// JSON Lines or Parquet, so their fastest path for them is the bulk
	// load of the same rows as CSV.
	CSV string `json:"csv,omitempty"`
	// Source and Query: a pipe's PostgreSQL URL and the query it reads
	// there (see engine/postgres/baseline.SourceQuery).
	Source string `json:"source,omitempty"`
	Query  string `json:"query,omitempty"`
	// UniqueKey: a load then indexes order_id uniquely, where idem gives
	// a merge's table that index (PostgreSQL, MySQL).
	UniqueKey bool `json:"unique_key,omitempty"`
}

// Baseline is one engine's side of the benchmark.
type Baseline interface {
	// Run runs op and returns the table's row count afterwards.
	Run(ctx context.Context, op Op) (int64, error)
	// Fill appends n generated orders (see Fill).
	Fill(ctx context.Context, target, table string, from, n, perDay int64) error
	// CreateTable creates an empty table of Columns (see CreateTable).
	CreateTable(ctx context.Context, target, table string, uniqueKey bool) error
	// Count returns the number of rows of table.
	Count(ctx context.Context, target, table string) (int64, error)
}

var registry = struct {
	sync.Mutex
	m map[string]Baseline
}{m: map[string]Baseline{}}

// Register makes an engine's baseline known by name; its baseline package
// calls it from init.
func Register(name string, b Baseline) {
	registry.Lock()
	defer registry.Unlock()
	registry.m[name] = b
}

func lookup(name string) (Baseline, error) {
	registry.Lock()
	defer registry.Unlock()
	if b, ok := registry.m[name]; ok {
		return b, nil
	}
	known := make([]string, 0, len(registry.m))
	for n := range registry.m {
		known = append(known, n)
	}
	sort.Strings(known)
	return nil, fmt.Errorf("no baseline for engine %q (registered: %s)", name, strings.Join(known, ", "))
}

// Run runs the baseline and returns the table's row count afterwards.
func Run(ctx context.Context, op Op) (int64, error) {
	b, err := lookup(op.Engine)
	if err != nil {
		return 0, err
	}
	return b.Run(ctx, op)
}

// Fill appends n generated orders, keys from+0 … from+n-1, to table (which
// has Columns). Order dates are clustered, perDay consecutive keys a day
// from 2024-01-01, as a table loaded a partition at a time is; they never
// reach 2026. Every value is a function of the key: no randomness.
func Fill(ctx context.Context, engineName, target, table string, from, n, perDay int64) error {
	b, err := lookup(engineName)
	if err != nil {
		return err
	}
	return b.Fill(ctx, target, table, from, n, perDay)
}

// CreateTable creates an empty table of Columns; with uniqueKey, a unique
// index on order_id, as idem gives a merge target it creates (ClickHouse:
// a ReplacingMergeTree on order_id, versioned by updated_at, the table a
// ClickHouse user upserts into).
func CreateTable(ctx context.Context, engineName, target, table string, uniqueKey bool) error {
	b, err := lookup(engineName)
	if err != nil {
		return err
	}
	return b.CreateTable(ctx, target, table, uniqueKey)
}

// Count returns the number of rows of table.
func Count(ctx context.Context, engineName, target, table string) (int64, error) {
	b, err := lookup(engineName)
	if err != nil {
		return 0, err
	}
	return b.Count(ctx, target, table)
}

// Exec runs stmts on db, one after another.
func Exec(ctx context.Context, db *sql.DB, stmts ...string) error {
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// ExecCount runs op's statements on db and returns table's row count
// afterwards, on the same connection pool: a baseline's timed work.
func ExecCount(ctx context.Context, db *sql.DB, op Op, stmts ...string) (int64, error) {
	if err := Exec(ctx, db, stmts...); err != nil {
		return 0, fmt.Errorf("%s: %w", op.Kind, err)
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+Ident(op.Table)).Scan(&n); err != nil {
		return 0, err
	}
	return n, db.Close()
}

// Ident quotes an identifier.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Str quotes a string literal.
func Str(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Names are Columns' names, quoted.
func Names() []string {
	n := make([]string, len(Columns))
	for i, c := range Columns {
		n[i] = Ident(c[0])
	}
	return n
}

// Create creates table with Columns, each type spelled by typ.
func Create(table string, typ func(string) string) string {
	defs := make([]string, len(Columns))
	for i, c := range Columns {
		defs[i] = Ident(c[0]) + " " + typ(c[1])
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", Ident(table), strings.Join(defs, ", "))
}

// Same is a column type as Columns spell it.
func Same(typ string) string { return typ }

// GuardedMerge is the hand-written MERGE: a newer version of a key
// replaces it, a new key is inserted.
func GuardedMerge(table, src string) string {
	cols := Names()
	set := make([]string, 0, len(cols))
	vals := make([]string, len(cols))
	for i, c := range cols {
		vals[i] = "s." + c
		if i > 0 {
			set = append(set, c+" = s."+c)
		}
	}
	return fmt.Sprintf(`MERGE INTO %s AS t USING %s AS s ON t.order_id = s.order_id
WHEN MATCHED AND t.updated_at < s.updated_at THEN UPDATE SET %s
WHEN NOT MATCHED THEN INSERT (%s) VALUES (%s)`,
		Ident(table), src, strings.Join(set, ", "), strings.Join(cols, ", "), strings.Join(vals, ", "))
}

// PartitionChecksum is an unchanged rerun's skip check done by hand: the
// engine's own count and row checksum (q.Check, the query idem's runner
// takes of a partition) of table's rows whose order_date is day, with cols
// typed as the engine's driver names them (some checksums hash a value by
// its type).
func PartitionChecksum(q *engine.SQL, table, day string, cols []engine.Column) (string, error) {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return "", err
	}
	where := q.Cond.Between("order_date", q.TimeLiteral(d, engine.KindDate), q.TimeLiteral(d.AddDate(0, 0, 1), engine.KindDate))
	return q.Check.Checksum(q.Ident(table), cols, where), nil
}

// Typed is Columns with each type spelled by typ.
func Typed(typ func(string) string) []engine.Column {
	cols := make([]engine.Column, len(Columns))
	for i, c := range Columns {
		cols[i] = engine.Column{Name: c[0], Type: typ(c[1])}
	}
	return cols
}

// RowQuerier is what ReadChecksum reads with: *sql.DB, *sql.Conn.
type RowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ReadChecksum runs a PartitionChecksum query and returns its row count;
// the checksum is read as the skip reads it, and not needed here.
func ReadChecksum(ctx context.Context, db RowQuerier, query string) (int64, error) {
	var n int64
	var sum sql.NullString
	if err := db.QueryRowContext(ctx, query).Scan(&n, &sum); err != nil {
		return 0, fmt.Errorf("checksum: %w", err)
	}
	return n, nil
}
