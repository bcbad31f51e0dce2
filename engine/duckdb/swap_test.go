package duckdb_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/engine/duckdb/swapfake"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// swapDB is DuckDB pretending that its DDL commits the open transaction
// (see engine/duckdb/swapfake).
type swapDB = swapfake.DB

var ddl = regexp.MustCompile(`(?i)^\s*(CREATE|ALTER|DROP)\b`)

// runRecorded runs j for date on db and returns the result and every text
// the run recorded.
func runRecorded(t *testing.T, db engine.DB, j *job.Job, date string, force bool) (runner.Result, []string) {
	t.Helper()
	var rec []string
	res, err := runner.Run(t.Context(), db, j, runner.Options{Date: date, Force: force, LockTimeout: time.Second,
		AsOf: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), Now: func() time.Time { return time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC) }, Record: func(q string) { rec = append(rec, q) }})
	require.NoError(t, err)
	return res[len(res)-1], rec
}

// requireNoDDLInTx fails when a DDL statement ran between BEGIN and the
// transaction's end.
func requireNoDDLInTx(t *testing.T, rec []string) {
	t.Helper()
	in, began := false, false
	for _, q := range rec {
		switch {
		case q == "BEGIN":
			in, began = true, true
		case q == "COMMIT" || q == "ROLLBACK":
			in = false
		case in && ddl.MatchString(q):
			t.Fatalf("DDL inside the data transaction: %s\nrecord:\n%s", q, strings.Join(rec, "\n"))
		}
	}
	if !began && !strings.Contains(strings.Join(rec, "\n"), "FROM \"idem_runs\"") {
		t.Fatalf("neither a data transaction nor a skip in:\n%s", strings.Join(rec, "\n"))
	}
}

func openBoth(t *testing.T) (plain *duckdb.DB, swapped swapDB) {
	t.Helper()
	dir := t.TempDir()
	a, err := duckdb.Open(t.Context(), filepath.Join(dir, "plain.duckdb"), time.Second)
	require.NoError(t, err)
	b, err := duckdb.Open(t.Context(), filepath.Join(dir, "swapped.duckdb"), time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, swapDB{DB: b}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func checksum(t *testing.T, db engine.DB, table string) (int64, string) {
	t.Helper()
	n, sum, err := runner.TableChecksum(t.Context(), db, engine.Table{Name: table}, "", nil)
	require.NoError(t, err)
	return n, sum
}

func tableNames(t *testing.T, db engine.DB) []string {
	t.Helper()
	rows, err := db.Conn().QueryContext(t.Context(), "SELECT table_name FROM information_schema.tables ORDER BY 1")
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	return out
}

// The swap path, partition strategy: a first load builds the table and
// swaps it in, a rerun skips, a changed row replaces only that row, a new
// column rebuilds the table, and no DDL ever runs in the data transaction.
// Every result equals the transactional path's on the same inputs.
func TestSwapPathPartition(t *testing.T) {
	plain, swapped := openBoth(t)
	dir := t.TempDir()
	j, err := job.Parse([]byte(`idem: 1
job: orders
source:
  files: in/orders-{{ date }}.csv
target:
  table: orders
strategy: partition
partition:
  column: day
key: [id]
loaded_at: loaded_at
on_schema_change: add_columns
`), dir, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	both := func(date string, force bool) runner.Result {
		want, _ := runRecorded(t, plain, j, date, force)
		got, rec := runRecorded(t, swapped, j, date, force)
		requireNoDDLInTx(t, rec)
		require.Equal(t, want.Action, got.Action)
		require.Equal(t, [3]int64{want.Inserted, want.Deleted, want.RowCount}, [3]int64{got.Inserted, got.Deleted, got.RowCount})
		require.Equal(t, want.Checksum, got.Checksum)
		wn, ws := checksum(t, plain, "orders")
		gn, gs := checksum(t, swapped, "orders")
		require.Equal(t, [2]any{wn, ws}, [2]any{gn, gs}, "tables differ after %s", date)
		require.NotContains(t, tableNames(t, swapped), "orders"+engine.BuildSuffix)
		return got
	}

	writeFile(t, filepath.Join(dir, "in/orders-2024-05-01.csv"), "id,day,amount\n1,2024-05-01,10\n2,2024-05-01,20\n1,2024-05-01,10\n")
	res := both("2024-05-01", false)
	require.Equal(t, runner.ActionLoaded, res.Action)
	require.EqualValues(t, 2, res.Inserted)

	res = both("2024-05-01", false)
	require.Equal(t, runner.ActionSkipped, res.Action)

	writeFile(t, filepath.Join(dir, "in/orders-2024-05-02.csv"), "id,day,amount\n3,2024-05-02,30\n")
	both("2024-05-02", false)
	_, before := checksum(t, swapped, "orders")

	// One changed row: only it changes; the other partition stays.
	writeFile(t, filepath.Join(dir, "in/orders-2024-05-01.csv"), "id,day,amount\n1,2024-05-01,10\n2,2024-05-01,21\n")
	res = both("2024-05-01", false)
	require.EqualValues(t, 2, res.Deleted)
	_, after := checksum(t, swapped, "orders")
	require.NotEqual(t, before, after)

	// A new column changes the table's shape: built beside it, swapped in.
	writeFile(t, filepath.Join(dir, "in/orders-2024-05-03.csv"), "id,day,amount,note\n4,2024-05-03,40,new\n")
	_, rec := runRecorded(t, swapped, j, "2024-05-03", false)
	requireNoDDLInTx(t, rec)
	require.Contains(t, strings.Join(rec, "\n"), engine.BuildSuffix, "a shape change must build and swap")
	n, _ := checksum(t, swapped, "orders")
	require.EqualValues(t, 4, n)
}

// The swap path, merge strategy with deletes: tombstones and the merge
// plan are made before the transaction, and the result equals the
// transactional path's in every load order.
func TestSwapPathMerge(t *testing.T) {
	plain, swapped := openBoth(t)
	dir := t.TempDir()
	j, err := job.Parse([]byte(`idem: 1
job: customers
source:
  files: in/customers-{{ date }}.csv
target:
  table: customers
strategy: merge
key: [id]
latest_by: version
delete_when: gone
`), dir, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, "in/customers-2024-05-01.csv"), "id,version,name,gone\n1,1,a,false\n2,1,b,false\n3,1,c,false\n")
	writeFile(t, filepath.Join(dir, "in/customers-2024-05-02.csv"), "id,version,name,gone\n1,2,a2,false\n2,2,b,true\n")
	writeFile(t, filepath.Join(dir, "in/customers-2024-05-03.csv"), "id,version,name,gone\n2,1,b-old,false\n4,1,d,false\n")
	for _, date := range []string{"2024-05-03", "2024-05-01", "2024-05-02", "2024-05-01"} {
		want, _ := runRecorded(t, plain, j, date, true)
		got, rec := runRecorded(t, swapped, j, date, true)
		requireNoDDLInTx(t, rec)
		require.Equal(t, [5]int64{want.Inserted, want.Updated, want.Deleted, want.DeletedAbsent, want.SkippedOlder},
			[5]int64{got.Inserted, got.Updated, got.Deleted, got.DeletedAbsent, got.SkippedOlder}, date)
		wn, ws := checksum(t, plain, "customers")
		gn, gs := checksum(t, swapped, "customers")
		require.Equal(t, [2]any{wn, ws}, [2]any{gn, gs}, "tables differ after %s", date)
	}
	n, _ := checksum(t, swapped, "customers")
	require.EqualValues(t, 3, n) // 1 (v2), 3, 4; 2 stays deleted
}

// planDDL: a plan rolls back where a run commits, and DDL on such an
// engine cannot be rolled back, so a plan there stops before the first DDL
// on a persistent object (runner.ErrPlanNeedsDDL) and changes nothing. On
// the suite's fresh targets that is before the run's end, so these cases,
// which compare a whole plan with the run, do not apply.
const planDDL = "a plan on an engine whose DDL commits stops before DDL it cannot roll back (runner.ErrPlanNeedsDDL)"

// TestConformanceSwapPath runs the conformance suite's in-process cases on
// the swap path: every guarantee holds when DDL stays out of the data
// transaction, in-process and in the binary (built with the swapfake
// engine).
func TestConformanceSwapPath(t *testing.T) {
	if testing.Short() {
		t.Skip("in the full run only; with -short, TestSwapPath* cover the swap path")
	}
	enginetest.Run(t, enginetest.Harness{
		Target: func(t *testing.T) string {
			return "duckdb-swap:" + filepath.Join(t.TempDir(), "target.duckdb")
		},
		GeneratedKeyTable: harness.GeneratedKeyTable,
		Unsupported: map[string]string{
			"PlanOfAFailingRunRecordsNothing": planDDL,
			"PlanEqualsRunMerge":              planDDL,
			"PlanEqualsRunPartitionQuery":     planDDL,
			"PlanEqualsRunPartitionFiles":     planDDL,
		},
	})
}

// A rebuild for a new column keeps the target's columns as they were: their
// types come from the target, not from how the input reads (an amount
// DECIMAL(12,2) stays one though the file reads as BIGINT, a text code
// stays text though it reads as a number),
// as the transactional path's ADD COLUMN keeps them.
func TestSwapPathRebuildKeepsTargetTypes(t *testing.T) {
	plain, swapped := openBoth(t)
	dir := t.TempDir()
	for _, db := range []engine.DB{plain, swapped} {
		_, err := db.Conn().ExecContext(t.Context(), `CREATE TABLE orders (id BIGINT, day DATE, amount DECIMAL(12,2), code VARCHAR);
INSERT INTO orders VALUES (1, DATE '2024-05-01', 10.25, '007')`)
		require.NoError(t, err)
	}
	j, err := job.Parse([]byte(`idem: 1
job: orders
source:
  files: in/orders-{{ date }}.csv
target:
  table: orders
strategy: partition
partition:
  column: day
on_schema_change: add_columns
`), dir, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, "in/orders-2024-05-02.csv"), "id,day,amount,code,note\n2,2024-05-02,2,12,new\n")
	types := func(db engine.DB) []string {
		rows, err := db.Conn().QueryContext(t.Context(), "SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_name = 'orders' ORDER BY ordinal_position")
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		return out
	}
	want, _ := runRecorded(t, plain, j, "2024-05-02", false)
	got, rec := runRecorded(t, swapped, j, "2024-05-02", false)
	requireNoDDLInTx(t, rec)
	require.Contains(t, strings.Join(rec, "\n"), engine.BuildSuffix, "a shape change must build and swap")
	require.Equal(t, []string{"id BIGINT", "day DATE", "amount DECIMAL(12,2)", "code VARCHAR", "note VARCHAR"}, types(plain))
	require.Equal(t, types(plain), types(swapped))
	require.Equal(t, want.Checksum, got.Checksum)
	wn, ws := checksum(t, plain, "orders")
	gn, gs := checksum(t, swapped, "orders")
	require.Equal(t, [2]any{wn, ws}, [2]any{gn, gs})
}

// The runner sizes DuckDB's memory for each run: a load runs under the
// lower limit, a merge under the higher (engine.MemorySizer).
func TestRunsSizeMemory(t *testing.T) {
	t.Setenv("IDEM_DUCKDB_MEMORY_LIMIT", "")
	if runtime.NumCPU() > 4 {
		t.Skip("the limit is 64 MB a core on this many cores")
	}
	db, err := duckdb.Open(t.Context(), filepath.Join(t.TempDir(), "m.duckdb"), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "in"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in", "2026-11-28.csv"), []byte("id,day\n1,2026-11-28\n"), 0o644))
	limit := func() string {
		var v string
		require.NoError(t, db.Conn().QueryRowContext(t.Context(), "SELECT current_setting('memory_limit')").Scan(&v))
		return v
	}
	// DuckDB's MB are 10^6 bytes; the limit is above what the instance
	// holds (a few MB here).
	for _, tc := range []struct {
		table, strategy string
		want            float64
	}{
		{"a", "partition\npartition:\n  column: day", 256e6},
		{"b", "merge\nkey: [id]\nlatest_by: day", 384e6},
		{"c", "partition\npartition:\n  column: day", 256e6},
	} {
		j, err := job.Parse([]byte("idem: 1\njob: "+tc.table+"\nsource:\n  files: in/{{ date }}.csv\ntarget:\n  table: "+tc.table+"\nstrategy: "+tc.strategy+"\n"),
			dir, func(string) (string, bool) { return "", false })
		require.NoError(t, err)
		runRecorded(t, db, j, "2026-11-28", false)
		got := sizeOf(t, limit())
		require.GreaterOrEqual(t, got, tc.want*0.999, "after a %s run", strings.Fields(tc.strategy)[0])
		require.Less(t, got, tc.want+16e6, "after a %s run", strings.Fields(tc.strategy)[0])
	}
}

// memoryUses records the memory each run asks for, in order.
type memoryUses struct {
	*duckdb.DB
	uses []engine.MemoryUse
}

func (m *memoryUses) Capabilities() engine.Capabilities {
	c := m.DB.Capabilities()
	c.Memory = m
	return c
}

func (m *memoryUses) SizeMemory(ctx context.Context, q engine.Querier, use engine.MemoryUse) error {
	m.uses = append(m.uses, use)
	return m.DB.SizeMemory(ctx, q, use)
}

// A file's rows are loaded under the limit for rows streamed in, and the
// run's steps after them under its own: with a direct first load, into
// staging, and on a merge alike.
func TestFileRowsLoadStreamed(t *testing.T) {
	db, err := duckdb.Open(t.Context(), filepath.Join(t.TempDir(), "m.duckdb"), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	m := &memoryUses{DB: db}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "in"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in", "2026-11-28.csv"), []byte("id,day\n1,2026-11-28\n"), 0o644))
	for _, tc := range []struct {
		table, strategy string
		use             engine.MemoryUse
	}{
		{"a", "partition\npartition:\n  column: day", engine.MemoryLoad},
		{"a", "partition\npartition:\n  column: day", engine.MemoryLoad}, // into staging, the table existing
		{"b", "merge\nkey: [id]\nlatest_by: day", engine.MemoryMerge},
	} {
		j, err := job.Parse([]byte("idem: 1\njob: "+tc.table+"\nsource:\n  files: in/{{ date }}.csv\ntarget:\n  table: "+tc.table+"\nstrategy: "+tc.strategy+"\n"),
			dir, func(string) (string, bool) { return "", false })
		require.NoError(t, err)
		m.uses = nil
		runRecorded(t, m, j, "2026-11-28", true)
		require.Equal(t, []engine.MemoryUse{tc.use, engine.MemoryStream, tc.use}, m.uses, "table %s", tc.table)
	}
}
