package postgres_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/engine/postgres"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/internal/peakrss"
	"github.com/idemdata/idem/job"
)

// Benchmarks of loading CSV into PostgreSQL (numbers in BENCHMARKS.md):
//
//	go test ./engine/postgres -run '^$' -bench 'LoadCSV|LoadRows' -benchtime 3x
//	go test ./engine/postgres -run '^$' -bench PeakRSS -benchtime 1x

const benchJob = `idem: 1
job: bench
target:
  url: %s
  table: bench_orders
source:
  files: %s
strategy: partition
partition:
  column: created_at
columns:
  amount: DECIMAL(12,2)
%s`

const benchTableDDL = `CREATE TABLE bench_orders (order_id BIGINT, customer_id BIGINT, created_at TIMESTAMP,
  status TEXT, amount NUMERIC(12,2), updated_at TIMESTAMP)`

func benchDB(b *testing.B, url string) *sql.DB {
	b.Helper()
	db, err := sql.Open("pgx", url)
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkLoadCSV1M loads one partition of 1M rows into an empty table:
// idem without and with a key, and psql's \copy as the floor.
func BenchmarkLoadCSV1M(b *testing.B) {
	csvPath := enginetest.OrdersCSV(b, 1_000_000)
	for _, bc := range []struct{ name, extra string }{
		{"idem_nokey", ""},
		{"idem_key", "key: [order_id]\nlatest_by: updated_at\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			url := freshDatabase(b)
			db := benchDB(b, url)
			dir := b.TempDir()
			jobPath := filepath.Join(dir, "job.yaml")
			require.NoError(b, os.WriteFile(jobPath, fmt.Appendf(nil, benchJob, url, csvPath, bc.extra), 0o644))
			j, err := job.Load(jobPath)
			require.NoError(b, err)
			for b.Loop() {
				b.StopTimer()
				_, err := db.Exec(`DROP TABLE IF EXISTS bench_orders; DROP TABLE IF EXISTS idem_runs`)
				require.NoError(b, err)
				b.StartTimer()
				rs, err := idem.Run(context.Background(), j, idem.Options{Date: "2026-11-28", AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
				require.NoError(b, err)
				require.Equal(b, int64(1_000_000), rs[0].RowCount)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/load")
		})
	}
	b.Run("psql_copy", func(b *testing.B) {
		psql, err := exec.LookPath("psql")
		if err != nil {
			b.Skip("psql is not installed")
		}
		url := freshDatabase(b)
		db := benchDB(b, url)
		for b.Loop() {
			b.StopTimer()
			_, err := db.Exec(`DROP TABLE IF EXISTS bench_orders; ` + benchTableDDL)
			require.NoError(b, err)
			b.StartTimer()
			out, err := exec.Command(psql, url, "-v", "ON_ERROR_STOP=1", "-c",
				fmt.Sprintf(`\copy bench_orders from '%s' csv header`, csvPath)).CombinedOutput()
			require.NoError(b, err, "%s", out)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/load")
	})
}

// BenchmarkLoadRows1M times the reader's rows copied into a staging
// table: reading (both passes, or the second alone) and binary COPY,
// against COPY of the file's bytes as CSV (the server parses them), the
// old path's floor. Each load is rolled back.
func BenchmarkLoadRows1M(b *testing.B) {
	benchLoadRows(b, enginetest.OrdersCSV(b, 1_000_000))
}

func benchLoadRows(b *testing.B, csvPath string) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, freshDatabase(b), time.Minute)
	require.NoError(b, err)
	defer db.Close()
	spec := input.Spec{Paths: []string{csvPath}, Format: "csv", Types: map[string]input.Type{"amount": input.DecimalType(12, 2)}}
	in, err := input.Scan(ctx, spec)
	require.NoError(b, err)
	d := postgres.Dialect{}
	cols := make([]engine.Column, len(in.Columns))
	names := make([]string, len(in.Columns))
	for i, c := range in.Columns {
		cols[i] = engine.Column{Name: c.Name, Type: d.ColumnType(c.Type)}
		names[i] = d.Ident(c.Name)
	}
	stage := engine.Table{Name: engine.StageTable}
	// load stages the rows in a transaction it rolls back.
	load := func(b *testing.B, copyRows func(tx *sql.Tx) int64) {
		tx, err := db.Begin(ctx)
		require.NoError(b, err)
		defer tx.Rollback()
		for _, q := range d.CreateStage(stage.Name, cols) {
			_, err := tx.ExecContext(ctx, q)
			require.NoError(b, err)
		}
		require.Equal(b, in.Rows, copyRows(tx))
	}
	rows := func(in *input.Input) func(tx *sql.Tx) int64 {
		return func(tx *sql.Tx) int64 {
			r := in.Read(ctx)
			defer r.Close()
			n, err := db.LoadRows(ctx, tx, stage, cols, r, nil)
			require.NoError(b, err)
			return n
		}
	}
	b.Run("scan+read+copy", func(b *testing.B) {
		for b.Loop() {
			in, err := input.Scan(ctx, spec)
			require.NoError(b, err)
			load(b, rows(in))
		}
		b.ReportMetric(float64(in.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("read+copy", func(b *testing.B) {
		for b.Loop() {
			load(b, rows(in))
		}
		b.ReportMetric(float64(in.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("csv_copy", func(b *testing.B) {
		stmt := fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT csv, HEADER true)", d.Ident(stage.Name), strings.Join(names, ", "))
		for b.Loop() {
			load(b, func(tx *sql.Tx) int64 {
				f, err := os.Open(csvPath)
				require.NoError(b, err)
				defer f.Close()
				var n int64
				require.NoError(b, db.Conn().(*sql.Conn).Raw(func(dc any) error {
					tag, err := dc.(*stdlib.Conn).Conn().PgConn().CopyFrom(ctx, f, stmt)
					n = tag.RowsAffected()
					return err
				}))
				return n
			})
		}
		b.ReportMetric(float64(in.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkPeakRSS10M runs the idem binary loading a 10M-row CSV (about
// 640 MB) into PostgreSQL and reports its peak resident memory. The goal is
// under 256 MB: the file is streamed, never held.
func BenchmarkPeakRSS10M(b *testing.B) {
	csvPath := enginetest.OrdersCSV(b, 10_000_000)
	url := freshDatabase(b)
	bin := enginetest.Binary(b)
	dir := b.TempDir()
	for _, bc := range []struct{ name, extra string }{
		{"nokey", ""},
		{"key", "key: [order_id]\nlatest_by: updated_at\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			jobPath := filepath.Join(dir, bc.name+".yaml")
			require.NoError(b, os.WriteFile(jobPath, fmt.Appendf(nil, benchJob, url, csvPath, bc.extra), 0o644))
			db := benchDB(b, url)
			var peak int64
			for b.Loop() {
				b.StopTimer()
				_, err := db.Exec(`DROP TABLE IF EXISTS bench_orders; DROP TABLE IF EXISTS idem_runs`)
				require.NoError(b, err)
				b.StartTimer()
				var out bytes.Buffer
				cmd := exec.Command(bin, "run", jobPath, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
				cmd.Stdout, cmd.Stderr = &out, &out
				s, err := peakrss.Run(context.Background(), cmd) // the run's own peak, not this process's
				require.NoError(b, err, "%s", out.String())
				peak = max(peak, s.KiB)
			}
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
		})
	}
}
