package mysql_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/job"
)

// Benchmarks of loading into MySQL/MariaDB (numbers in BENCHMARKS.md):
//
//	go test ./engine/mysql -run '^$' -bench 'LoadCSV1M' -benchtime 3x -timeout 60m

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

// benchTableDDL is the table idem makes from the file: the bare load's
// target has the same shape.
const benchTableDDL = `CREATE TABLE bench_orders (order_id BIGINT, customer_id BIGINT, created_at DATETIME(6),
  status LONGTEXT, amount DECIMAL(12,2), updated_at DATETIME(6))`

// benchDatabase is an empty database idem_bench on the tests' server.
func benchDatabase(b *testing.B) (string, *sql.DB) {
	b.Helper()
	dsn := server.DSN(b)
	admin, err := adminDB(dsn)
	require.NoError(b, err)
	b.Cleanup(func() { admin.Close() })
	for _, q := range []string{"DROP DATABASE IF EXISTS idem_bench", "CREATE DATABASE idem_bench"} {
		_, err := admin.Exec(q)
		require.NoError(b, err)
	}
	base, _, _ := strings.Cut(dsn, "?")
	url := base[:strings.LastIndex(base, "/")+1] + "idem_bench"
	db, err := adminDB(url)
	require.NoError(b, err)
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	return url, db
}

// BenchmarkLoadCSV1M loads one partition of 1M rows: idem into a new
// table (a first load: built and swapped in), idem reloading it (--force:
// delete and insert in one transaction), and as the floor a bare LOAD
// DATA LOCAL INFILE of the same file into an empty table of the same shape.
func BenchmarkLoadCSV1M(b *testing.B) {
	csvPath := enginetest.OrdersCSV(b, 1_000_000)
	opts := idem.Options{Date: "2026-11-28", AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), LockTimeout: time.Minute}
	for _, bc := range []struct {
		name, extra string
		force       bool
	}{
		{"idem_first_load", "", false},
		{"idem_first_load_key", "key: [order_id]\nlatest_by: updated_at\n", false},
		{"idem_reload", "", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			url, db := benchDatabase(b)
			jobPath := filepath.Join(b.TempDir(), "job.yaml")
			require.NoError(b, os.WriteFile(jobPath, fmt.Appendf(nil, benchJob, url, csvPath, bc.extra), 0o644))
			j, err := job.Load(jobPath)
			require.NoError(b, err)
			if bc.force {
				_, err := idem.Run(context.Background(), j, opts)
				require.NoError(b, err)
			}
			for b.Loop() {
				b.StopTimer()
				if !bc.force {
					for _, q := range []string{"DROP TABLE IF EXISTS bench_orders", "DROP TABLE IF EXISTS idem_runs"} {
						_, err := db.Exec(q)
						require.NoError(b, err)
					}
				}
				o := opts
				o.Force = bc.force
				b.StartTimer()
				rs, err := idem.Run(context.Background(), j, o)
				require.NoError(b, err)
				require.Equal(b, int64(1_000_000), rs[0].RowCount)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/load")
		})
	}
	b.Run("bare_load_data_local", func(b *testing.B) {
		_, db := benchDatabase(b)
		gomysql.RegisterLocalFile(csvPath)
		for b.Loop() {
			b.StopTimer()
			for _, q := range []string{"DROP TABLE IF EXISTS bench_orders", benchTableDDL} {
				_, err := db.Exec(q)
				require.NoError(b, err)
			}
			b.StartTimer()
			res, err := db.Exec(`LOAD DATA LOCAL INFILE '` + csvPath + `' INTO TABLE bench_orders
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' IGNORE 1 LINES`)
			require.NoError(b, err)
			n, err := res.RowsAffected()
			require.NoError(b, err)
			require.Equal(b, int64(1_000_000), n)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/load")
	})
}

// mergeCSV writes (once) n rows of orders with keys 1..n; with newer, every
// tenth key has a newer version (and another status), the rest are as in
// the base file.
func mergeCSV(b *testing.B, n int, newer bool) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "idem-bench")
	require.NoError(b, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, fmt.Sprintf("merge-%d-%v.csv", n, newer))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	require.NoError(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "order_id,customer_id,status,amount,updated_at")
	for i := range n {
		status, ts := "placed", time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).Add(time.Duration(i%86400)*time.Second)
		if newer && i%10 == 0 {
			status, ts = "shipped", ts.Add(24*time.Hour)
		}
		fmt.Fprintf(w, "%d,%d,%s,%d.%02d,%s\n", i+1, i%9973, status, i%1000, i%100, ts.Format("2006-01-02 15:04:05"))
	}
	require.NoError(b, w.Flush())
	require.NoError(b, f.Close())
	require.NoError(b, os.Rename(tmp, path))
	return path
}

const mergeBenchJob = `idem: 1
job: bench_merge
target:
  url: %s
  table: bench_merge
source:
  files: %s
strategy: merge
key: [order_id]
latest_by: updated_at
columns:
  amount: DECIMAL(12,2)
`

// BenchmarkMerge merges a delivery of IDEM_BENCH_MERGE_ROWS rows (default
// 100k; every tenth a newer version, the rest unchanged) into a target of
// IDEM_BENCH_MERGE_TARGET rows (default 1M) that holds all their keys:
// idem's merge against one hand-written INSERT … ON DUPLICATE KEY UPDATE
// (version assigned last) after a bare LOAD DATA LOCAL of the same file.
// Each iteration merges into a fresh copy of the target (not timed).
func BenchmarkMerge(b *testing.B) {
	size := func(env string, def int) int {
		if v := os.Getenv(env); v != "" {
			var n int
			_, err := fmt.Sscan(v, &n)
			require.NoError(b, err)
			return n
		}
		return def
	}
	targetRows, rows := size("IDEM_BENCH_MERGE_TARGET", 1_000_000), size("IDEM_BENCH_MERGE_ROWS", 100_000)
	base, delta := mergeCSV(b, targetRows, false), mergeCSV(b, rows, true)
	url, db := benchDatabase(b)
	opts := idem.Options{Date: "2026-11-28", AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), LockTimeout: time.Minute}
	load := func(csvPath, name string) *job.Job {
		jobPath := filepath.Join(b.TempDir(), name+".yaml")
		require.NoError(b, os.WriteFile(jobPath, fmt.Appendf(nil, mergeBenchJob, url, csvPath), 0o644))
		j, err := job.Load(jobPath)
		require.NoError(b, err)
		return j
	}
	_, err := idem.Run(context.Background(), load(base, "base"), opts)
	require.NoError(b, err)
	for _, q := range []string{"RENAME TABLE bench_merge TO bench_merge_base", "DROP TABLE idem_runs"} {
		_, err := db.Exec(q)
		require.NoError(b, err)
	}
	fresh := func(b *testing.B) {
		b.Helper()
		for _, q := range []string{"DROP TABLE IF EXISTS bench_merge", "DROP TABLE IF EXISTS idem_runs",
			"CREATE TABLE bench_merge LIKE bench_merge_base", "INSERT INTO bench_merge SELECT * FROM bench_merge_base"} {
			_, err := db.Exec(q)
			require.NoError(b, err)
		}
	}
	b.Run("idem_merge", func(b *testing.B) {
		j := load(delta, "delta")
		for b.Loop() {
			b.StopTimer()
			fresh(b)
			b.StartTimer()
			rs, err := idem.Run(context.Background(), j, opts)
			require.NoError(b, err)
			require.Equal(b, int64(rows/10), rs[0].Updated)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/merge")
	})
	b.Run("bare_on_duplicate_key_update", func(b *testing.B) {
		gomysql.RegisterLocalFile(delta)
		for b.Loop() {
			b.StopTimer()
			fresh(b)
			b.StartTimer()
			for _, q := range []string{
				`CREATE TEMPORARY TABLE s (order_id BIGINT, customer_id BIGINT, status LONGTEXT, amount DECIMAL(12,2), updated_at DATETIME(6))`,
				`LOAD DATA LOCAL INFILE '` + delta + `' INTO TABLE s FIELDS TERMINATED BY ',' IGNORE 1 LINES`,
				// The version is assigned last: the other assignments
				// still see the old one.
				`INSERT INTO bench_merge (order_id, customer_id, status, amount, updated_at) SELECT * FROM s
ON DUPLICATE KEY UPDATE
  customer_id = IF(VALUES(updated_at) > bench_merge.updated_at, VALUES(customer_id), bench_merge.customer_id),
  status = IF(VALUES(updated_at) > bench_merge.updated_at, VALUES(status), bench_merge.status),
  amount = IF(VALUES(updated_at) > bench_merge.updated_at, VALUES(amount), bench_merge.amount),
  updated_at = IF(VALUES(updated_at) > bench_merge.updated_at, VALUES(updated_at), bench_merge.updated_at)`,
				`DROP TEMPORARY TABLE s`,
			} {
				_, err := db.Exec(q) // one connection: the temporary table stays
				require.NoError(b, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/merge")
	})
}
