package clickhouse_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// Benchmarks on embedded ClickHouse (see BENCHMARKS.md, "ClickHouse"):
//
//	go test ./engine/clickhouse -run '^$' -bench 'PartitionLoad1M|SwapCost' -benchtime 3x
//
// PartitionLoad1M: one day partition of 1,000,000 CSV rows loaded by idem
// into a fresh folder, against a bare INSERT INTO t SELECT * FROM file(…)
// into an empty table. SwapCost: reloading one day (10,000 rows) of a
// table of 30 days holding 3M and 30M rows: what the swap costs as the
// table grows.

const benchRows = 1_000_000

// writeCSV writes rows orders of day, deterministically (fixed-seed PCG).
func writeCSV(path string, rows int, day time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(20261128, 1))
	statuses := []string{"placed", "shipped", "completed", "return_pending", "returned"}
	fmt.Fprintln(w, "order_id,customer_id,order_date,status,amount,updated_at")
	for i := range rows {
		cents := rng.IntN(100_000) + 100
		at := day.Add(time.Duration(rng.IntN(86_400)) * time.Second)
		fmt.Fprintf(w, "%d,%d,%s,%s,%d.%02d,%s\n", i+1, rng.IntN(50_000)+1, day.Format(time.DateOnly),
			statuses[rng.IntN(len(statuses))], cents/100, cents%100, at.Format(time.DateTime))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

const benchJob = `idem: 1
job: bench_orders
target:
  url: chdb:%s
  table: orders
source:
  files: %q
strategy: partition
partition:
  column: order_date
  grain: day
columns:
  order_id: BIGINT
  customer_id: BIGINT
  order_date: DATE
  status: VARCHAR
  amount: DECIMAL(12,2)
  updated_at: TIMESTAMP
`

func runBench(b *testing.B, dir, target, csv, date string) runner.Result {
	b.Helper()
	j, err := job.Parse(fmt.Appendf(nil, benchJob, target, csv), dir, func(string) (string, bool) { return "", false })
	if err != nil {
		b.Fatal(err)
	}
	asOf := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	rs, err := idem.Run(context.Background(), j, idem.Options{Date: date, Force: true, AsOf: asOf, Now: func() time.Time { return asOf }})
	if err != nil {
		b.Fatal(err)
	}
	return rs[0]
}

func BenchmarkPartitionLoad1M(b *testing.B) {
	needChDB(b)
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	csv := filepath.Join(b.TempDir(), "orders_1m.csv")
	if err := writeCSV(csv, benchRows, day); err != nil {
		b.Fatal(err)
	}
	b.Run("idem", func(b *testing.B) {
		dir := b.TempDir()
		for i := range b.N {
			r := runBench(b, dir, fmt.Sprintf("idem-%d.chdb", i), csv, "2026-11-28")
			if r.Action != runner.ActionLoaded || r.RowCount != benchRows {
				b.Fatalf("unexpected result: %+v", r)
			}
		}
		b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("bare", func(b *testing.B) {
		dir := b.TempDir()
		ctx := context.Background()
		for i := range b.N {
			db, err := clickhouse.Open(ctx, filepath.Join(dir, fmt.Sprintf("bare-%d.chdb", i)), time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			for _, q := range []string{
				"CREATE TABLE t (order_id Nullable(Int64), customer_id Nullable(Int64), order_date Nullable(Date32), status Nullable(String), " +
					"amount Nullable(Decimal(12,2)), updated_at Nullable(DateTime64(6))) ENGINE = MergeTree PARTITION BY order_date ORDER BY tuple() SETTINGS allow_nullable_key = 1",
				fmt.Sprintf("INSERT INTO t SELECT * FROM file('%s', CSVWithNames)", csv),
			} {
				if _, err := db.Conn().ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

func BenchmarkSwapCost(b *testing.B) {
	needChDB(b)
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	csv := filepath.Join(b.TempDir(), "orders_10k.csv")
	if err := writeCSV(csv, 10_000, day); err != nil {
		b.Fatal(err)
	}
	for _, total := range []int{3_000_000, 30_000_000} {
		b.Run(fmt.Sprintf("rows=%dM", total/1_000_000), func(b *testing.B) {
			dir := b.TempDir()
			runBench(b, dir, "t.chdb", csv, "2026-11-28") // creates the table
			ctx := context.Background()
			db, err := clickhouse.Open(ctx, filepath.Join(dir, "t.chdb"), time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			// 30 other days, total rows in all (written straight in: the
			// table's size is the point, not how it got there).
			q := fmt.Sprintf(`INSERT INTO orders (order_id, customer_id, order_date, status, amount, updated_at)
SELECT number, number %% 50000, toDate('2026-10-29') + intDiv(number, %d), 'placed', 1.00, toDateTime64('2026-10-29 00:00:00', 6)
FROM numbers(%d)`, total/30, total)
			if _, err := db.Conn().ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
			db.Close()
			b.ResetTimer()
			for range b.N {
				if r := runBench(b, dir, "t.chdb", csv, "2026-11-28"); r.RowCount != 10_000 {
					b.Fatalf("unexpected result: %+v", r)
				}
			}
		})
	}
}
