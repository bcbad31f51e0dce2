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
	"github.com/idemdata/idem/job"
)

// Benchmarks of loading into MySQL/MariaDB (numbers in BENCHMARKS.md):
//
//	go test ./engine/mysql -run '^$' -bench 'LoadCSV1M' -benchtime 3x -timeout 60m

// benchCSV writes (once, cached in the temp folder) an orders CSV of n rows,
// all on 2026-11-28, about 64 bytes a row: the same file as PostgreSQL's
// benchmark.
func benchCSV(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "idem-bench")
	require.NoError(b, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, fmt.Sprintf("orders-%d.csv", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	require.NoError(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "order_id,customer_id,created_at,status,amount,updated_at")
	statuses := []string{"placed", "shipped", "completed", "returned"}
	for i := range n {
		ts := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).Add(time.Duration(i%86400) * time.Second).Format("2006-01-02 15:04:05")
		fmt.Fprintf(w, "%d,%d,%s,%s,%d.%02d,%s\n", i+1, i%9973, ts, statuses[i%4], i%1000, i%100, ts)
	}
	require.NoError(b, w.Flush())
	require.NoError(b, f.Close())
	require.NoError(b, os.Rename(tmp, path))
	return path
}

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
	csvPath := benchCSV(b, 1_000_000)
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
