// Package bench holds the SQL of idem-bench (cmd/idem-bench): the bare
// baselines idem is measured against, each the engine's own bulk path run
// by hand, and the statements that build the benchmark's large tables. It
// lives under engine/ because it is SQL text, one engine family per
// function, and nothing above engine/ may spell SQL; it is no part of a run.
package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"github.com/jackc/pgx/v5"
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
	// merges File into the existing table, newest updated_at wins.
	Kind   string `json:"kind"`
	Format string `json:"format"` // csv | jsonl | parquet
	File   string `json:"file"`
	// CSV is File's rows as CSV: PostgreSQL and MySQL have no reader for
	// JSON Lines or Parquet, so their fastest path for them is the bulk
	// load of the same rows as CSV.
	CSV string `json:"csv,omitempty"`
}

// Run runs the baseline and returns the table's row count afterwards.
func Run(ctx context.Context, op Op) (int64, error) {
	switch op.Engine {
	case "duckdb":
		return runDuckDB(ctx, op)
	case "postgres":
		return runPostgres(ctx, op)
	case "mysql":
		return runMySQL(ctx, op)
	case "clickhouse":
		return runClickHouse(ctx, op)
	}
	return 0, fmt.Errorf("unknown engine %q", op.Engine)
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func str(s string) string   { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func names() []string {
	n := make([]string, len(Columns))
	for i, c := range Columns {
		n[i] = ident(c[0])
	}
	return n
}

func createTable(table string, pg bool) string {
	defs := make([]string, len(Columns))
	for i, c := range Columns {
		typ := c[1]
		if pg && typ == "VARCHAR" {
			typ = "TEXT"
		}
		defs[i] = ident(c[0]) + " " + typ
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", ident(table), strings.Join(defs, ", "))
}

// guardedMerge is the hand-written merge: a newer version of a key
// replaces it, a new key is inserted.
func guardedMerge(table, src string) string {
	cols := names()
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
		ident(table), src, strings.Join(set, ", "), strings.Join(cols, ", "), strings.Join(vals, ", "))
}

// duckRead is DuckDB's reader of a file, with the benchmark's types.
func duckRead(format, file string) string {
	types := make([]string, len(Columns))
	for i, c := range Columns {
		types[i] = fmt.Sprintf("%s: %s", str(c[0]), str(c[1]))
	}
	switch format {
	case "parquet":
		return fmt.Sprintf("read_parquet(%s)", str(file))
	case "jsonl":
		return fmt.Sprintf("read_json(%s, format = 'newline_delimited', columns = {%s})", str(file), strings.Join(types, ", "))
	}
	return fmt.Sprintf("read_csv(%s, header = true, types = {%s})", str(file), strings.Join(types, ", "))
}

func openDuck(path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	// As idem's connection does: storage order matters to no benchmark.
	if _, err := db.Exec("SET preserve_insertion_order = false"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func runDuckDB(ctx context.Context, op Op) (int64, error) {
	db, err := openDuck(op.Target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var stmts []string
	switch op.Kind {
	case "load":
		stmts = []string{createTable(op.Table, false),
			fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", ident(op.Table), duckRead(op.Format, op.File))}
	case "merge":
		stmts = []string{guardedMerge(op.Table, "(SELECT * FROM "+duckRead(op.Format, op.File)+")")}
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", op.Kind, err)
		}
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+ident(op.Table)).Scan(&n); err != nil {
		return 0, err
	}
	return n, db.Close()
}

func runPostgres(ctx context.Context, op Op) (int64, error) {
	conn, err := pgx.Connect(ctx, op.Target)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	file := op.File
	if op.Format != "csv" {
		file = op.CSV
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	dest := op.Table
	switch op.Kind {
	case "load":
		if _, err := tx.Exec(ctx, createTable(op.Table, true)); err != nil {
			return 0, err
		}
	case "merge":
		dest = "bench_stage"
		if _, err := tx.Exec(ctx, fmt.Sprintf("CREATE TEMP TABLE %s (LIKE %s) ON COMMIT DROP", ident(dest), ident(op.Table))); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	if err := copyCSV(ctx, tx.Conn(), dest, file); err != nil {
		return 0, err
	}
	if op.Kind == "merge" {
		if _, err := tx.Exec(ctx, guardedMerge(op.Table, ident(dest))); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, err
	}
	var n int64
	err = conn.QueryRow(ctx, "SELECT count(*) FROM "+ident(op.Table)).Scan(&n)
	return n, err
}

// copyCSV streams a CSV file's bytes into COPY … FROM STDIN: what psql's
// \copy does, without psql.
func copyCSV(ctx context.Context, conn *pgx.Conn, table, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = conn.PgConn().CopyFrom(ctx, f, fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT csv, HEADER true)", ident(table), strings.Join(names(), ", ")))
	return err
}
