package duckdb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/runner"
)

// Benchmarks of a merge of 1,000,000 staged rows (100,000 updates of
// existing keys, 900,000 new keys) into a 10,000,000-row table, done by
// idem against the same merge written by hand:
//
//	go test ./engine/duckdb/ -run '^$' -bench BenchmarkMerge1Minto10M -benchtime 3x -count 3
//
// The data is deterministic and generated once with DuckDB's own SQL into
// a cache folder (mergeCacheDir) that later runs reuse. Every iteration
// copies the pristine 10M-row database file to a fresh path outside the
// timer; opening and closing the database are timed for idem and bare
// alike.

const (
	mergeTargetRows = 10_000_000
	mergeInputRows  = 1_000_000
	mergeUpdates    = mergeInputRows / 10 // every tenth input row updates a key
	mergeInserts    = mergeInputRows - mergeUpdates
	mergeDate       = "2026-11-28"
	mergeTable      = "orders"
)

// mergeColumns are the target's and the CSV's columns, in order.
var mergeColumns = [][2]string{
	{"order_id", "BIGINT"},
	{"customer_id", "BIGINT"},
	{"status", "VARCHAR"},
	{"amount", "DECIMAL(12,2)"},
	{"updated_at", "TIMESTAMP"},
}

// mergeStatuses is a DuckDB list literal; a row's status is a function of
// its key, and an update's status is the next one in the list.
const mergeStatuses = "['placed', 'shipped', 'completed', 'return_pending', 'returned']"

// mergeCacheDir holds the generated data; IDEM_MERGE_BENCH_DIR overrides
// it. Its name carries a version: change it when the data changes.
func mergeCacheDir() string {
	if d := os.Getenv("IDEM_MERGE_BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "idem-merge-bench-v1")
}

// mergeTargetSQL creates the 10M-row target. Keys 1..mergeTargetRows are
// stored in a scrambled order (7,000,003 is prime to 10^7, so r*7000003 mod
// 10^7 permutes 0..10^7-1); every other column is a function of the key.
// Versions lie between 2026-01-01 and mid-October 2026.
func mergeTargetSQL() string {
	return fmt.Sprintf(`CREATE TABLE %[1]s AS
SELECT order_id,
       (order_id * 7919) %% 50000 + 1 AS customer_id,
       %[2]s[order_id %% 5 + 1] AS status,
       CAST(CAST((order_id * 37) %% 100000 + 100 AS DECIMAL(12,2)) / 100 AS DECIMAL(12,2)) AS amount,
       TIMESTAMP '2026-01-01 00:00:00' + to_seconds(order_id %% 25000000) AS updated_at
FROM (SELECT (r * 7000003) %% %[3]d + 1 AS order_id FROM range(%[3]d) AS g(r) ORDER BY r)`,
		mergeTable, mergeStatuses, mergeTargetRows)
}

// mergeInputSQL writes the 1M-row CSV. Input row j updates an existing key
// when j is a multiple of 10 (the keys (j/10)*3000017 mod 10^7 + 1 are
// distinct) with the next status, another amount and a version on
// mergeDate, strictly newer than the target's; otherwise it is the new key
// 10^7+j+1.
func mergeInputSQL(path string) string {
	return fmt.Sprintf(`COPY (
SELECT order_id,
       (order_id * 7919) %% 50000 + 1 AS customer_id,
       %[1]s[(order_id + CAST(upd AS BIGINT)) %% 5 + 1] AS status,
       CAST(CAST((order_id * 37 + j) %% 100000 + 100 AS DECIMAL(12,2)) / 100 AS DECIMAL(12,2)) AS amount,
       TIMESTAMP '%[2]s 00:00:00' + to_seconds(j %% 86400) AS updated_at
FROM (
  SELECT j, j %% 10 = 0 AS upd,
         CASE WHEN j %% 10 = 0 THEN ((j // 10) * 3000017) %% %[3]d + 1 ELSE %[3]d + j + 1 END AS order_id
  FROM range(%[4]d) AS g(j))
ORDER BY j
) TO '%[5]s' (FORMAT csv, HEADER true)`,
		mergeStatuses, mergeDate, mergeTargetRows, mergeInputRows, strings.ReplaceAll(path, "'", "''"))
}

// mergeData returns the pristine target database and the input CSV,
// generating them on first use. Generation happens in a sibling folder
// renamed into place, so an interrupted or concurrent run never leaves a
// half-written cache.
func mergeData(b *testing.B) (pristine, csv string) {
	b.Helper()
	dir := mergeCacheDir()
	pristine, csv = filepath.Join(dir, "target.duckdb"), filepath.Join(dir, "input.csv")
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return pristine, csv
	}
	began := time.Now()
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-*")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	db, err := sql.Open("duckdb", filepath.Join(tmp, "target.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{mergeTargetSQL(), mergeInputSQL(filepath.Join(tmp, "input.csv")), "CHECKPOINT"} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			b.Fatalf("generating the merge benchmark data: %v\n%s", err, q)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run may have finished first; its data is the same.
		if _, serr := os.Stat(filepath.Join(dir, "complete")); serr != nil {
			b.Fatal(err)
		}
	}
	fmt.Fprintf(os.Stderr, "generated merge benchmark data in %s (%.1fs)\n", dir, time.Since(began).Seconds())
	return pristine, csv
}

// mergeCopy copies the pristine database to dst and syncs it, so neither
// the copy nor its write-back falls into the timed part.
func mergeCopy(b *testing.B, pristine, dst string) {
	b.Helper()
	for _, p := range []string{dst, dst + ".wal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			b.Fatal(err)
		}
	}
	in, err := os.Open(pristine)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		b.Fatal(err)
	}
	if err := errors.Join(out.Sync(), out.Close()); err != nil {
		b.Fatal(err)
	}
}

func mergeRemove(b *testing.B, path string) {
	b.Helper()
	for _, p := range []string{path, path + ".wal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			b.Fatal(err)
		}
	}
}

func mergeJobYAML(target, csv string) []byte {
	var s strings.Builder
	fmt.Fprintf(&s, "idem: 1\njob: bench_merge\ntarget:\n  url: %q\n  table: %s\n", "duckdb:"+target, mergeTable)
	fmt.Fprintf(&s, "source:\n  files: %q\n  format: csv\nstrategy: merge\nkey: [order_id]\nlatest_by: updated_at\ncolumns:\n", csv)
	for _, c := range mergeColumns {
		fmt.Fprintf(&s, "  %s: %q\n", c[0], c[1])
	}
	return []byte(s.String())
}

// mergeContent is what the merged table holds: its row count and a sum of
// row hashes. idem and bare must leave the same table.
var mergeContent struct {
	sync.Mutex
	by map[string]string
}

// mergeVerify checks, outside the timer, the merged table's content and
// that every sub-benchmark produced the same one.
func mergeVerify(b *testing.B, name, path string) {
	b.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	names := make([]string, len(mergeColumns))
	for i, c := range mergeColumns {
		names[i] = c[0]
	}
	var n, newer int64
	var sum string
	q := fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE updated_at >= TIMESTAMP '%s'), CAST(sum(hash(%s)) AS VARCHAR) FROM %s",
		mergeDate, strings.Join(names, ", "), mergeTable)
	if err := db.QueryRow(q).Scan(&n, &newer, &sum); err != nil {
		b.Fatal(err)
	}
	if n != mergeTargetRows+mergeInserts || newer != mergeInputRows {
		b.Fatalf("%s: merged table has %d rows, %d of them from the input; want %d and %d",
			name, n, newer, mergeTargetRows+mergeInserts, mergeInputRows)
	}
	got := fmt.Sprintf("%d rows, hash sum %s", n, sum)
	mergeContent.Lock()
	defer mergeContent.Unlock()
	if mergeContent.by == nil {
		mergeContent.by = map[string]string{}
	}
	mergeContent.by[name] = got
	for other, s := range mergeContent.by {
		if s != got {
			b.Fatalf("%s left %s but %s left %s", name, got, other, s)
		}
	}
}

func BenchmarkMerge1Minto10M(b *testing.B) {
	pristine, csv := mergeData(b)
	b.Run("idem", func(b *testing.B) { mergeBenchIdem(b, pristine, csv) })
	b.Run("bare", func(b *testing.B) { mergeBenchBare(b, pristine, csv) })
}

func mergeBenchIdem(b *testing.B, pristine, csv string) {
	ctx := context.Background()
	dir := b.TempDir()
	// AsOf is fixed so the partition counts as closed whatever the clock.
	asOf := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	opts := idem.Options{Date: mergeDate, Force: true, AsOf: asOf}
	var target string

	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if i > 0 {
			mergeRemove(b, target)
		}
		target = filepath.Join(dir, fmt.Sprintf("idem-%d.duckdb", i))
		mergeCopy(b, pristine, target)
		jobFile := filepath.Join(dir, "merge.yaml")
		if err := os.WriteFile(jobFile, mergeJobYAML(target, csv), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()

		j, err := idem.Load(jobFile)
		if err != nil {
			b.Fatal(err)
		}
		results, err := idem.Run(ctx, j, opts)
		if err != nil {
			b.Fatal(err)
		}

		if i == 0 {
			b.StopTimer()
			if len(results) != 1 || results[0].Action != runner.ActionLoaded ||
				results[0].Inserted != mergeInserts || results[0].Updated != mergeUpdates ||
				results[0].RowsIn != mergeInputRows || results[0].RowCount != mergeInputRows {
				b.Fatalf("unexpected result: %+v", results)
			}
			mergeVerify(b, "idem", target)
			b.StartTimer()
		}
	}
	b.StopTimer()
	mergeReportRows(b)
}

func mergeBenchBare(b *testing.B, pristine, csv string) {
	ctx := context.Background()
	dir := b.TempDir()
	var names, types, set, vals []string
	for _, c := range mergeColumns {
		names = append(names, c[0])
		types = append(types, fmt.Sprintf("'%s': '%s'", c[0], c[1]))
		vals = append(vals, "s."+c[0])
		if c[0] != "order_id" {
			set = append(set, fmt.Sprintf("%s = s.%s", c[0], c[0]))
		}
	}
	stage := fmt.Sprintf("CREATE TEMP TABLE s AS SELECT * FROM read_csv('%s', header = true, types = {%s})",
		strings.ReplaceAll(csv, "'", "''"), strings.Join(types, ", "))
	merge := fmt.Sprintf(`MERGE INTO %s AS t USING s ON t.order_id = s.order_id
WHEN MATCHED AND t.updated_at < s.updated_at THEN UPDATE SET %s
WHEN NOT MATCHED THEN INSERT (%s) VALUES (%s)`,
		mergeTable, strings.Join(set, ", "), strings.Join(names, ", "), strings.Join(vals, ", "))
	var path string

	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if i > 0 {
			mergeRemove(b, path)
		}
		path = filepath.Join(dir, fmt.Sprintf("bare-%d.duckdb", i))
		mergeCopy(b, pristine, path)
		b.StartTimer()

		db, err := sql.Open("duckdb", path)
		if err != nil {
			b.Fatal(err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, stage); err != nil {
			b.Fatal(err)
		}
		r, err := tx.ExecContext(ctx, merge)
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}

		if i == 0 {
			b.StopTimer()
			if n, err := r.RowsAffected(); err != nil || n != mergeInputRows {
				b.Fatalf("merged %d rows (%v), want %d", n, err, mergeInputRows)
			}
			mergeVerify(b, "bare", path)
			b.StartTimer()
		}
	}
	b.StopTimer()
	mergeReportRows(b)
}

func mergeReportRows(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(mergeInputRows)*float64(b.N)/s, "rows/s")
	}
}
