// Package baseline is idem-bench's DuckDB baseline: DuckDB's own readers
// and a hand-written MERGE, run on a database file.
package baseline

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver

	"github.com/idemdata/idem/engine/bench"
)

func init() { bench.Register("duckdb", duck{}) }

type duck struct{}

// read is DuckDB's reader of a file, with the benchmark's types.
func read(format, file string) string {
	types := make([]string, len(bench.Columns))
	for i, c := range bench.Columns {
		types[i] = fmt.Sprintf("%s: %s", bench.Str(c[0]), bench.Str(c[1]))
	}
	switch format {
	case "parquet":
		return fmt.Sprintf("read_parquet(%s)", bench.Str(file))
	case "jsonl":
		return fmt.Sprintf("read_json(%s, format = 'newline_delimited', columns = {%s})", bench.Str(file), strings.Join(types, ", "))
	}
	return fmt.Sprintf("read_csv(%s, header = true, types = {%s})", bench.Str(file), strings.Join(types, ", "))
}

func open(path string) (*sql.DB, error) {
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

func exec(ctx context.Context, path string, stmts ...string) error {
	db, err := open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := bench.Exec(ctx, db, stmts...); err != nil {
		return err
	}
	return db.Close()
}

func (duck) Run(ctx context.Context, op bench.Op) (int64, error) {
	var stmts []string
	switch op.Kind {
	case "load":
		stmts = []string{bench.Create(op.Table, bench.Same),
			fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", bench.Ident(op.Table), read(op.Format, op.File))}
	case "merge":
		stmts = []string{bench.GuardedMerge(op.Table, "(SELECT * FROM "+read(op.Format, op.File)+")")}
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	db, err := open(op.Target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return bench.ExecCount(ctx, db, op, stmts...)
}

func (duck) Fill(ctx context.Context, target, table string, from, n, perDay int64) error {
	return exec(ctx, target, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT k, k %% 9973 + 1, DATE '2024-01-01' + CAST(k // %d AS INTEGER),
       ['placed', 'shipped', 'completed', 'returned'][k %% 4 + 1],
       CAST(k %% 100000 AS DECIMAL(12,2)) / 100, TIMESTAMP '2024-01-01 00:00:00' + to_seconds(k %% 86400)
FROM range(%d, %d) AS g(k)`, bench.Ident(table), strings.Join(bench.Names(), ", "), perDay, from, from+n))
}

func (duck) CreateTable(ctx context.Context, target, table string, _ bool) error {
	return exec(ctx, target, bench.Create(table, bench.Same))
}

func (duck) Count(ctx context.Context, target, table string) (int64, error) {
	db, err := sql.Open("duckdb", target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return bench.ExecCount(ctx, db, bench.Op{Table: table})
}

// ToParquet writes a CSV of bench.Columns as a Parquet file, with an
// in-memory DuckDB.
func ToParquet(ctx context.Context, csv, parquet string) error {
	return exec(ctx, "", fmt.Sprintf("COPY (SELECT * FROM %s) TO %s (FORMAT parquet)", read("csv", csv), bench.Str(parquet)))
}
