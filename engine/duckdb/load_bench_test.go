package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// BenchmarkLoadRows1M loads IDEM_BENCH_CSV (the benchmark's 1M-row CSV)
// into a staging table: the reader's two passes and DuckDB's inserts.
//
//	IDEM_BENCH_CSV=… go test ./engine/duckdb -run '^$' -bench LoadRows1M -benchtime 3x
func BenchmarkLoadRows1M(b *testing.B) {
	path := os.Getenv("IDEM_BENCH_CSV")
	if path == "" {
		b.Skip("IDEM_BENCH_CSV names the CSV file to load")
	}
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "b.duckdb"), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	d := Dialect{}
	for b.Loop() {
		in, err := input.Scan(ctx, input.Spec{Paths: []string{path}, Format: "csv"})
		if err != nil {
			b.Fatal(err)
		}
		cols := make([]engine.Column, len(in.Columns))
		for i, c := range in.Columns {
			cols[i] = engine.Column{Name: c.Name, Type: d.ColumnType(c.Type)}
		}
		for _, q := range append([]string{"DROP TABLE IF EXISTS idem_stage"}, d.CreateStage("idem_stage", cols)...) {
			if _, err := db.conn.ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		rows := in.Read(ctx)
		n, err := db.LoadRows(ctx, db.conn, engine.Table{Name: "idem_stage"}, cols, rows, func(string) {})
		rows.Close()
		if err != nil || n != in.Rows {
			b.Fatal(n, err)
		}
	}
}
