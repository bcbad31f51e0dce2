package enginetest

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// guardCases: what one engine would refuse, cut short, fold or write
// twice is refused on every engine, and a failed run leaves nothing it
// created.
var guardCases = []testCase{
	{"NamesTooLongRefused", testNamesTooLong},
	{"TableNamesDifferingInCaseHaveOneOwner", testTableNameCase},
	{"MergeOntoKeyHeldTwiceFails", testMergeKeyHeldTwice},
	{"MergeKeyChangedAndBack", testMergeKeyChanged},
	{"MergeKeyChangedBackAfterAClockAhead", testMergeKeyChangedClockAhead},
	{"MergeKeyChangedTombstones", testMergeKeyChangedTombstones},
	{"FailedFirstMergeLeavesNoTombstones", testFailedFirstMerge},
	{"InterruptedFirstMergeLeavesNoTombstones", testInterruptedFirstMerge},
	{"LeftoverTombstonesMadeLikeTheTarget", testLeftoverTombstones},
}

// A table or column name of 64 bytes (PostgreSQL would cut it to 63), or a
// table name leaving no room for the tables idem builds beside it, is a
// job error (exit 2) on every engine, and the target stays as it was.
func testNamesTooLong(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	e.MustRun(e.Job(filesJob), "2026-11-28")
	long := strings.Repeat("x", 64)
	bodies := map[string]struct{ table, body, path string }{
		"table of 64 bytes":      {long, filesJob, "target.table"},
		"table of 52 bytes":      {long[:52], filesJob, "target.table"},
		"key column of 64":       {"orders", strings.Replace(filesJob, "key: [order_id]", "key: ["+long+"]", 1), "key[0]"},
		"columns: entry of 64":   {"orders", strings.Replace(filesJob, "columns:\n", "columns:\n  "+long+": BIGINT\n", 1), "columns." + long},
		"loaded_at column of 64": {"orders", strings.Replace(filesJob, "loaded_at: _loaded_at", "loaded_at: "+long, 1), "loaded_at"},
	}
	for name, b := range bodies {
		text := "idem: 1\ntarget:\n  url: " + e.URL + "\n  table: " + e.Sales(b.table) + "\n" + b.body
		path := e.Write(strings.ReplaceAll(name, " ", "_")+".yaml", text)
		_, err := job.Load(path)
		var je *job.Error
		require.ErrorAs(t, err, &je, name)
		require.Contains(t, err.Error(), b.path+": ", name)
		require.Contains(t, err.Error(), "63", name)
		e.RequireUntouched(func() {
			code, out := runIdem(t, nil, "run", path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
			require.Equal(t, 2, code, "%s: %s", name, out)
		})
	}
}

// Table names are compared without case on every engine: a second job
// spelling the table otherwise is refused as a second owner (on DuckDB it
// is the same table), and jobs sharing a table spell it alike, since they
// take turns on a lock keyed by its name.
func testTableNameCase(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	e.MustRun(e.Job(namedJob(filesJob, "a")), "2026-11-28")
	before := e.Checksum("", "_loaded_at")
	upper := func(shared bool) *job.Job {
		extra := ""
		if shared {
			extra = "  shared_with: [a_orders_daily]\n"
		}
		text := fmt.Sprintf("idem: 1\ntarget:\n  url: %s\n  table: %s\n%s%s", e.URL, e.Sales("ORDERS"), extra, namedJob(filesJob, "b"))
		j, err := job.Load(e.Write(fmt.Sprintf("upper_%v.yaml", shared), text))
		require.NoError(t, err)
		return j
	}
	for _, tc := range []struct {
		shared bool
		want   string
	}{
		{false, e.Sales("ORDERS") + ` is loaded by job "a_orders_daily" (as ` + e.Sales("orders") + `)`},
		{true, `"a_orders_daily" writes it as ` + e.Sales("orders") + `; spell it alike`},
	} {
		j := upper(tc.shared)
		e.RequireUntouched(func() {
			_, err := e.Run(j, "2026-11-28")
			var je *job.Error
			require.ErrorAs(t, err, &je, "%v", err)
			require.Contains(t, err.Error(), "target.table: ")
			require.Contains(t, err.Error(), tc.want)
		})
		e.RequireUntouched(func() {
			code, out := runIdem(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
			require.Equal(t, 2, code, out)
		})
	}
	require.Equal(t, before, e.Checksum("", "_loaded_at"))
}

// A merge onto a table that holds a key twice (here written by a job
// without key sharing the table) fails naming the key and the table
// (exit 1), and writes nothing; once one row of the key is left, the
// merge runs. The key has two columns, as a key may.
func testMergeKeyHeldTwice(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	const head = "order_id,status,day,updated_at\n"
	e.Write("p/2026-11-28.csv", head+"1,placed,2026-11-28,2026-11-28 10:00:00\n1,placed,2026-11-28,2026-11-28 10:00:00\n2,placed,2026-11-28,2026-11-28 10:00:00\n")
	p := e.jobWithTarget(`job: keyless
source:
  files: p/{{ date }}.csv
strategy: partition
partition:
  column: day
`, true, "keyed")
	e.MustRun(p, "2026-11-28")
	e.Write("m/2026-11-29.csv", head+"1,placed,2026-11-28,2026-11-29 10:00:00\n3,placed,2026-11-29,2026-11-29 10:00:00\n")
	m := e.jobWithTarget(`job: keyed
source:
  files: m/{{ date }}.csv
strategy: merge
key: [order_id, status]
latest_by: updated_at
`, true, "keyless")
	cols := []string{"order_id", "status", "day", "updated_at"}
	before := e.Rows("", cols...)
	_, err := e.Run(m, "2026-11-29")
	var rk *runner.RepeatedKeyError
	require.ErrorAs(t, err, &rk, "%v", err)
	require.Contains(t, err.Error(), e.Sales("orders")+` holds key {order_id="1", status="placed"} in 2 rows`)
	require.Equal(t, before, e.Rows("", cols...), "nothing written")
	require.Equal(t, 0, e.LedgerRows("keyed", "2026-11-29", ""))
	code, out := runIdem(t, nil, "run", m.Path, "--date", "2026-11-29", "--as-of", "2026-12-01T00:00:00Z")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, `holds key {order_id="1", status="placed"} in 2 rows`)
	require.Equal(t, before, e.Rows("", cols...), "nothing written")

	// The repair: one row of the key left (here, none: the merge brings
	// its newer row).
	e.Exec(`DELETE FROM ` + e.Sales("orders") + ` WHERE order_id = 1`)
	r := e.MustRun(m, "2026-11-29")
	require.Equal(t, int64(2), r.Inserted)
	require.Equal(t, []string{"1|placed|2026-11-29 10:00:00", "2|placed|2026-11-28 10:00:00", "3|placed|2026-11-29 10:00:00"},
		e.Rows("", "order_id", "status", "updated_at"))
}

// A merge job whose key changes goes on merging by the new key on every
// engine (MariaDB's unique index on the old key made the new one fail to
// build); changed back, the rows the wider key kept apart are a key held
// twice, named, and nothing is written.
func testMergeKeyChanged(t *testing.T, h Harness) { mergeKeyChanged(t, h, 0) }

// The same when the first run's host clock ran a day ahead: its
// finished_at is the latest, yet the run under the wider key came after
// it, so the key changed back is a first merge under it all the same.
func testMergeKeyChangedClockAhead(t *testing.T, h Harness) { mergeKeyChanged(t, h, 24*time.Hour) }

// mergeKeyChanged runs testMergeKeyChanged, the first run's clock ahead by
// ahead.
func mergeKeyChanged(t *testing.T, h Harness, ahead time.Duration) {
	e := NewEnv(t, h)
	clock := func(o *idem.Options) { o.Now = func() time.Time { return e.Now.Add(ahead) } }
	const head = "order_id,status,updated_at\n"
	body := func(key string) string {
		return "job: keyed\nsource:\n  files: m/{{ date }}.csv\nstrategy: merge\nkey: [" + key + "]\nlatest_by: updated_at\n"
	}
	e.Write("m/2026-11-28.csv", head+"1,placed,2026-11-28 10:00:00\n2,placed,2026-11-28 10:00:00\n")
	e.MustRun(e.Job(body("order_id")), "2026-11-28", clock)
	e.Write("m/2026-11-29.csv", head+"1,shipped,2026-11-29 10:00:00\n2,placed,2026-11-29 10:00:00\n")
	r := e.MustRun(e.Job(body("order_id, status")), "2026-11-29")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, int64(1), r.Updated)
	cols := []string{"order_id", "status", "updated_at"}
	want := []string{"1|placed|2026-11-28 10:00:00", "1|shipped|2026-11-29 10:00:00", "2|placed|2026-11-29 10:00:00"}
	require.Equal(t, want, e.Rows("", cols...))

	e.Write("m/2026-11-30.csv", head+"3,placed,2026-11-30 10:00:00\n")
	_, err := e.Run(e.Job(body("order_id")), "2026-11-30")
	var rk *runner.RepeatedKeyError
	require.ErrorAs(t, err, &rk, "%v", err)
	require.Contains(t, err.Error(), `holds key {order_id="1"} in 2 rows`)
	require.Equal(t, want, e.Rows("", cols...), "nothing written")
}

// deletesJob merges with delete_when, its column's type left to the input.
const deletesJob = `job: deletes
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id]
latest_by: updated_at
delete_when: is_deleted
`

// A first merge whose delete_when column is not boolean (Y and N) fails
// before it creates anything (exit 1, the reader naming the first value by
// file and line), on every engine: no target, no tombstone table typed
// from that input. A good input then loads, and its
// deletes are remembered.
func testFailedFirstMerge(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	const head = "order_id,status,updated_at,is_deleted\n"
	e.Write("in/2026-11-28.csv", head+"1,placed,2026-11-28 10:00:00,N\n2,placed,2026-11-28 10:00:00,Y\n")
	j := e.Job(deletesJob)
	e.RequireUntouched(func() {
		_, err := e.Run(j, "2026-11-28")
		requireInputError(t, err, `2026-11-28.csv line 2: column "is_deleted": "N" is not a boolean (true or false)`)
	})
	e.RequireUntouched(func() {
		code, out := runIdem(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
		require.Equal(t, 1, code, out)
	})

	e.Write("in/2026-11-28.csv", head+"1,placed,2026-11-28 10:00:00,false\n2,placed,2026-11-28 10:00:00,true\n")
	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, int64(1), r.DeletedAbsent)
	e.Write("in/2026-11-29.csv", head+"1,placed,2026-11-29 10:00:00,true\n2,placed,2026-11-27 10:00:00,false\n")
	r = e.MustRun(j, "2026-11-29")
	require.Equal(t, int64(1), r.Deleted)
	require.Equal(t, int64(1), r.SkippedOlder, "order 2's delete is remembered")
	require.Empty(t, e.Rows("", "order_id"))
	require.Equal(t, []string{"1", "2"}, e.Query(`SELECT order_id FROM `+e.Sales("orders__idem_deleted")+` ORDER BY order_id`))
}

// A first merge with delete_when interrupted after it created its tables
// leaves neither the target nor the tombstone table, on every engine: in
// the run's transaction, or dropped again where DDL commits. The next run
// loads.
func testInterruptedFirstMerge(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-28.csv", "order_id,status,updated_at,is_deleted\n1,placed,2026-11-28 10:00:00,false\n2,placed,2026-11-28 10:00:00,true\n")
	j := e.Job(deletesJob)
	code, stderr := runUntilSignalled(t, syscall.SIGTERM, []string{"IDEM_WAIT_AT=" + runner.CrashAfterDelete},
		"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
	require.Equal(t, 130, code, stderr)
	left := slices.DeleteFunc(e.Trace().Tables, func(s string) bool { return !strings.HasPrefix(s, e.Schema+".orders") })
	require.Empty(t, left, "neither the target nor its tombstone table")

	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, int64(1), r.DeletedAbsent)
	require.Equal(t, []string{"2"}, e.Query(`SELECT order_id FROM `+e.Sales("orders__idem_deleted")))
}

// An empty tombstone table typed otherwise than the target (what a failed
// first merge of an older idem left, typed from its input) is made anew
// like the target, and the merge runs.
func testLeftoverTombstones(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	const head = "order_id,status,updated_at,is_deleted\n"
	e.Write("in/2026-11-28.csv", head+"1,placed,2026-11-28 10:00:00,false\n")
	e.MustRun(e.Job(strings.Replace(deletesJob, "delete_when: is_deleted\n", "", 1)), "2026-11-28")
	e.Exec(`CREATE TABLE ` + e.Sales("orders__idem_deleted") + h.spell().CreateAs +
		` SELECT order_id, status, updated_at, 'N' AS is_deleted FROM ` + e.Sales("orders") + ` WHERE order_id < 0`)
	e.Write("in/2026-11-29.csv", head+"1,placed,2026-11-29 10:00:00,true\n")
	r := e.MustRun(e.Job(deletesJob), "2026-11-29")
	require.Equal(t, int64(1), r.Deleted)
	require.Equal(t, []string{"1"}, e.Query(`SELECT order_id FROM `+e.Sales("orders__idem_deleted")))
}

// The tombstones of a merge whose key changed are kept by the new key:
// the unique key they were made with (on the old key) is made anew, so
// deletes the new key keeps apart are both remembered.
func testMergeKeyChangedTombstones(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	const head = "order_id,status,updated_at,is_deleted\n"
	body := func(key string) string {
		return "job: keyed\nsource:\n  files: m/{{ date }}.csv\nstrategy: merge\nkey: [" + key + "]\nlatest_by: updated_at\ndelete_when: is_deleted\n"
	}
	e.Write("m/2026-11-28.csv", head+"1,placed,2026-11-28 10:00:00,false\n2,placed,2026-11-28 10:00:00,true\n")
	e.MustRun(e.Job(body("order_id")), "2026-11-28")
	e.Write("m/2026-11-29.csv", head+"2,shipped,2026-11-29 10:00:00,true\n1,shipped,2026-11-29 10:00:00,true\n")
	r := e.MustRun(e.Job(body("order_id, status")), "2026-11-29")
	require.Equal(t, int64(2), r.DeletedAbsent, "%+v", r)
	require.Equal(t, []string{"1|placed"}, e.Rows("", "order_id", "status"))
	require.ElementsMatch(t, []string{"1", "2", "2"}, e.Query(`SELECT order_id FROM `+e.Sales("orders__idem_deleted")))
	require.ElementsMatch(t, []string{"placed", "shipped"}, e.Query(`SELECT status FROM `+e.Sales("orders__idem_deleted")+` WHERE order_id = 2`))
}
