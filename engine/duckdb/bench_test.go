package duckdb_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// Benchmarks of one day partition of 1,000,000 CSV rows loaded by idem
// against the same load done by DuckDB alone:
//
//	go test ./engine/duckdb/ -run '^$' -bench BenchmarkPartitionLoad1M -benchtime 5x -count 3
//
// Every iteration writes into a fresh database file, and opening and closing
// it is timed for idem and bare alike. With IDEM_BENCH_STEPS=1 each
// benchmark also logs where its time went, statement by statement.

const (
	benchRows = 1_000_000
	benchDate = "2026-11-28"
)

// benchColumns are the CSV's columns with their types, in file order.
var benchColumns = [][2]string{
	{"order_id", "BIGINT"},
	{"customer_id", "BIGINT"},
	{"order_date", "DATE"},
	{"status", "VARCHAR"},
	{"amount", "DECIMAL(12,2)"},
	{"updated_at", "TIMESTAMP"},
}

// writeBenchCSV writes benchRows orders of benchDate. It is deterministic:
// order ids are a permutation of 1..benchRows (unique, not sorted) and the
// other values come from a fixed-seed PCG.
func writeBenchCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(20261128, 1))
	statuses := []string{"placed", "shipped", "completed", "return_pending", "returned"}
	names := make([]string, len(benchColumns))
	for i, c := range benchColumns {
		names[i] = c[0]
	}
	fmt.Fprintln(w, strings.Join(names, ","))
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	const step = 999_983 // prime, so i*step mod benchRows permutes 0..benchRows-1
	var buf []byte
	for i := range benchRows {
		id := int64(i)*step%benchRows + 1
		cents := rng.IntN(100_000) + 100
		at := day.Add(time.Duration(rng.IntN(86_400)) * time.Second)
		buf = buf[:0]
		buf = fmt.Appendf(buf, "%d,%d,%s,%s,%d.%02d,%s\n", id, rng.IntN(50_000)+1, benchDate,
			statuses[rng.IntN(len(statuses))], cents/100, cents%100, at.Format(time.DateTime))
		if _, err := w.Write(buf); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func benchJobYAML(csv, key string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "idem: 1\njob: bench_orders\ntarget:\n  url: ${BENCH_TARGET}\n  table: orders\n")
	fmt.Fprintf(&b, "source:\n  files: %q\nstrategy: partition\npartition:\n  column: order_date\n  grain: day\n", csv)
	b.WriteString(key)
	b.WriteString("columns:\n")
	for _, c := range benchColumns {
		fmt.Fprintf(&b, "  %s: %q\n", c[0], c[1])
	}
	return []byte(b.String())
}

func BenchmarkPartitionLoad1M(b *testing.B) {
	// Generated once per run of this benchmark (not per iteration), before
	// any timing starts; the sub-benchmarks share it.
	csv := filepath.Join(b.TempDir(), "orders_1m.csv")
	if err := writeBenchCSV(csv); err != nil {
		b.Fatal(err)
	}
	steps := os.Getenv("IDEM_BENCH_STEPS") != ""

	b.Run("idem", func(b *testing.B) { benchIdem(b, csv, "", steps) })
	b.Run("idem_key", func(b *testing.B) {
		benchIdem(b, csv, "key: [order_id]\nlatest_by: updated_at\n", steps)
	})
	b.Run("bare", func(b *testing.B) { benchBare(b, csv, steps) })
}

func benchIdem(b *testing.B, csv, key string, steps bool) {
	ctx := context.Background()
	dir := b.TempDir()
	var target string
	lookup := func(name string) (string, bool) {
		if name == "BENCH_TARGET" {
			return "duckdb:" + target, true
		}
		return "", false
	}
	asOf := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	opts := idem.Options{Date: benchDate, Force: true, AsOf: asOf, Now: func() time.Time { return asOf }}
	st := newStepTimes()

	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := range b.N {
		b.StopTimer()
		if i > 0 {
			removeDB(b, target)
		}
		target = filepath.Join(dir, fmt.Sprintf("idem-%d.duckdb", i))
		b.StartTimer()

		j, err := job.Parse(benchJobYAML(csv, key), dir, lookup)
		if err != nil {
			b.Fatal(err)
		}
		var results []idem.Result
		if steps {
			results, err = runWithSteps(ctx, j, opts, target, st)
		} else {
			results, err = idem.Run(ctx, j, opts)
		}
		if err != nil {
			b.Fatal(err)
		}
		if len(results) != 1 || results[0].Action != runner.ActionLoaded || results[0].Inserted != benchRows {
			b.Fatalf("unexpected result: %+v", results)
		}
	}
	b.StopTimer()
	reportRows(b, cpu0)
	if steps {
		st.log(b)
	}
}

// runWithSteps is idem.Run with its open, run and close timed apart, and
// every statement of the run timed from its start to the next one's.
func runWithSteps(ctx context.Context, j *job.Job, opts idem.Options, path string, st *stepTimes) ([]idem.Result, error) {
	st.start()
	db, err := duckdb.Open(ctx, path, time.Minute)
	if err != nil {
		return nil, err
	}
	st.mark("open")
	label := "(before first statement)"
	opts.Record = func(q string) {
		st.mark(label)
		label = stepLabel(q)
	}
	res, err := runner.Run(ctx, db, j, opts)
	st.mark(label) // the last record is the COMMIT (or ROLLBACK) marker: the time since is the commit's
	cerr := db.Close()
	st.mark("close")
	if err == nil {
		err = cerr
	}
	return res, err
}

func benchBare(b *testing.B, csv string, steps bool) {
	ctx := context.Background()
	dir := b.TempDir()
	defs := make([]string, len(benchColumns))
	types := make([]string, len(benchColumns))
	for i, c := range benchColumns {
		defs[i] = fmt.Sprintf("%s %s", c[0], c[1])
		types[i] = fmt.Sprintf("'%s': '%s'", c[0], c[1])
	}
	create := "CREATE TABLE t (" + strings.Join(defs, ", ") + ")"
	insert := fmt.Sprintf("INSERT INTO t SELECT * FROM read_csv('%s', header = true, types = {%s})",
		strings.ReplaceAll(csv, "'", "''"), strings.Join(types, ", "))
	st := newStepTimes()
	var path string

	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := range b.N {
		b.StopTimer()
		if i > 0 {
			removeDB(b, path)
		}
		path = filepath.Join(dir, fmt.Sprintf("bare-%d.duckdb", i))
		b.StartTimer()

		if steps {
			st.start()
		}
		db, err := sql.Open("duckdb", path)
		if err != nil {
			b.Fatal(err)
		}
		conn, err := db.Conn(ctx) // the driver opens the file here, as duckdb.Open does
		if err != nil {
			b.Fatal(err)
		}
		if steps {
			st.mark("open")
		}
		if _, err := conn.ExecContext(ctx, create); err != nil {
			b.Fatal(err)
		}
		if steps {
			st.mark("CREATE TABLE")
		}
		r, err := conn.ExecContext(ctx, insert)
		if err != nil {
			b.Fatal(err)
		}
		if steps {
			st.mark("INSERT ... read_csv (autocommit)")
		}
		if n, err := r.RowsAffected(); err != nil || n != benchRows {
			b.Fatalf("inserted %d rows (%v), want %d", n, err, benchRows)
		}
		if err := conn.Close(); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		if steps {
			st.mark("close")
		}
	}
	b.StopTimer()
	reportRows(b, cpu0)
	if steps {
		st.log(b)
	}
}

func reportRows(b *testing.B, cpu0 time.Duration) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(benchRows)*float64(b.N)/s, "rows/s")
	}
	// CPU time of the whole process (DuckDB's threads included): on a
	// shared machine it varies less than wall time does.
	if cpu1 := processCPU(); cpu0 > 0 && cpu1 > cpu0 {
		b.ReportMetric(float64(cpu1-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	}
}

// processCPU is the user+system time of this process and all its threads,
// from /proc (assuming the usual 100 ticks a second); 0 where there is no
// /proc.
func processCPU() time.Duration {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// Fields after the parenthesized command name; utime and stime are
	// fields 14 and 15 of the line, 12 and 13 after the name.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

func removeDB(b *testing.B, path string) {
	for _, p := range []string{path, path + ".wal"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
	}
}

// stepLabel names a statement of a run by what it does.
func stepLabel(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	for _, p := range []struct{ prefix, label string }{
		{"CREATE TABLE IF NOT EXISTS", "ledger DDL"},
		{"SELECT 1 FROM information_schema.tables", "table exists (then fingerprint: sha256 of the file)"},
		{`CREATE TEMP TABLE "idem_stage_dedup"`, "dedup CTAS (QUALIFY row_number)"},
		{`CREATE TEMP TABLE "idem_stage"`, "stage CTAS (read_csv into temp table)"},
		{`SELECT count(*) FROM "idem_stage" WHERE`, "count NULL keys"},
		{`SELECT count(*) FROM (SELECT DISTINCT`, "count distinct keys"},
		{`SELECT count(*) FROM "idem_stage_dedup"`, "count deduped rows"},
		{`SELECT count(*) FROM "idem_stage"`, "count staged rows"},
		{"SELECT count(*), count(*) FILTER", "count in-window rows"},
		{"SELECT count(*), CAST(coalesce(sum(hash(", "checksum of the partition"},
		{"CREATE SCHEMA", "create schema"},
		{"DELETE FROM", "delete partition"},
		{`INSERT INTO "idem_runs"`, "ledger upsert"},
		{"INSERT INTO", "insert partition"},
		{"SELECT coalesce(max(", "ledger next seq"},
	} {
		if strings.HasPrefix(q, p.prefix) {
			return p.label
		}
	}
	if strings.HasPrefix(q, "CREATE TABLE") && strings.HasSuffix(q, "LIMIT 0") {
		return "create target (CTAS LIMIT 0)"
	}
	if strings.HasPrefix(q, "SELECT * FROM") && strings.HasSuffix(q, "LIMIT 0") {
		return "column types (" + strings.TrimSuffix(strings.TrimPrefix(q, "SELECT * FROM "), " LIMIT 0") + ")"
	}
	if len(q) > 60 {
		q = q[:60] + "..."
	}
	return q
}

// stepTimes sums wall and CPU time per step over a benchmark's
// iterations. start begins a step; mark ends it, names it, and begins the
// next.
type stepTimes struct {
	order     []string
	wall, cpu map[string]time.Duration
	calls     map[string]int
	last      time.Time
	lastCPU   time.Duration
}

func newStepTimes() *stepTimes {
	return &stepTimes{wall: map[string]time.Duration{}, cpu: map[string]time.Duration{}, calls: map[string]int{}}
}

func (s *stepTimes) start() { s.last, s.lastCPU = time.Now(), processCPU() }

func (s *stepTimes) mark(label string) {
	now, cpu := time.Now(), processCPU()
	if _, ok := s.wall[label]; !ok {
		s.order = append(s.order, label)
	}
	s.wall[label] += now.Sub(s.last)
	s.cpu[label] += cpu - s.lastCPU
	s.calls[label]++
	s.last, s.lastCPU = now, cpu
}

func (s *stepTimes) log(b *testing.B) {
	var sum, sumCPU time.Duration
	for l, d := range s.wall {
		sum += d
		sumCPU += s.cpu[l]
	}
	if sum == 0 {
		return
	}
	n := time.Duration(b.N)
	ms := func(d time.Duration) float64 { return float64(d/n) / 1e6 }
	var lines []string
	for _, l := range s.order { // run order
		lines = append(lines, fmt.Sprintf("  %8.1f ms/op %5.1f%% %8.0f cpu-ms/op  %s (x%d/op)", ms(s.wall[l]),
			100*float64(s.wall[l])/float64(sum), ms(s.cpu[l]), l, s.calls[l]/b.N))
	}
	// Not b.Logf: the testing package cuts benchmark logs to 10 lines.
	fmt.Fprintf(os.Stderr, "%s: per-step time over %d iterations (%.1f ms/op, %.0f cpu-ms/op in all):\n%s\n",
		b.Name(), b.N, ms(sum), ms(sumCPU), strings.Join(lines, "\n"))
}
