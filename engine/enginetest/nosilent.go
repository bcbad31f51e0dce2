package enginetest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/runner"
)

// No silent success: each way an input could quietly give a wrong or empty
// table fails instead, or is reported.
var noSilentCases = []testCase{
	{"NoFileMatchedIsAFailure", testNoFile},
	{"HeaderOnlyInputWithAllowEmpty", testHeaderOnly},
	{"NeverLoadedEmptyPartitionRefused", testEmptyNeverLoaded},
	{"LateRowsInNextDaysFile", testLateRowsNextFile},
	{"NullPartitionValueRejected", testNullPartition},
	{"OutOfWindowFail", testOutOfWindowFail},
	{"MissingColumnFails", testSourceLacksColumn},
	{"NewColumnFailsOrIsAdded", testNewColumn},
	{"TypeChangeFails", testTypeChange},
	{"MergeClosureOnlyWithClosedAfter", testMergeClosure},
}

// requireInputError requires err to be a run failure (exit 1) whose message
// holds every part.
func requireInputError(t *testing.T, err error, parts ...string) {
	t.Helper()
	require.Error(t, err)
	var ie *runner.InputError
	require.ErrorAs(t, err, &ie, "%v", err)
	for _, p := range parts {
		require.Contains(t, err.Error(), p)
	}
}

const arrivalJob = `job: arrivals
source:
  files:
    - in/orders-{{ date }}.csv
strategy: partition
partition:
  column: created_at
key: [order_id]
columns:
  created_at: TIMESTAMP
`

// A glob that matches nothing (a misspelled folder, a delivery that did not
// arrive) fails the run: nothing written, no ledger row, no later skip.
func testNoFile(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders-2026-11-28.csv", orders)
	j := e.Job(strings.Replace(arrivalJob, "in/orders-", "inn/orders-", 1))
	_, err := e.Run(j, "2026-11-28")
	requireInputError(t, err, `no file matches "inn/orders-2026-11-28.csv"`, e.Dir)
	require.Equal(t, 0, e.LedgerRows(j.Name, "2026-11-28", ""))

	allow := e.Job(strings.Replace(arrivalJob, "in/orders-", "inn/orders-", 1) + "allow_empty: true\n")
	r := e.MustRun(allow, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, r.Action)
	require.Equal(t, int64(0), r.RowCount)
	require.Equal(t, runner.ActionSkipped, e.MustRun(allow, "2026-11-28").Action)
}

// A delivery with a header and no rows is a legitimate empty input when
// allow_empty says so: it empties the partition (its types come from the
// target), and without allow_empty it is refused.
func testHeaderOnly(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	header, _, _ := strings.Cut(orders, "\n")
	e.Write("in/orders-2026-11-28.csv", orders)
	j := e.Job(arrivalJob)
	e.MustRun(j, "2026-11-28")
	before := e.Checksum("")
	require.Equal(t, int64(4), before.Rows)

	e.Write("in/orders-2026-11-28.csv", header+"\n")
	_, err := e.Run(j, "2026-11-28")
	requireInputError(t, err, "the input has no rows for partition 2026-11-28; the partition keeps its 4 rows")
	require.Equal(t, before, e.Checksum(""))

	r := e.MustRun(e.Job(arrivalJob+"allow_empty: true\n"), "2026-11-28")
	require.Equal(t, int64(4), r.Deleted)
	require.Equal(t, int64(0), e.Checksum("").Rows)

	// On a target that does not exist yet, an empty delivery creates no
	// table (it has no types to give it) and still records the run.
	f := NewEnv(t, h)
	f.Write("in/orders-2026-11-28.csv", header+"\n")
	fj := f.Job(arrivalJob + "allow_empty: true\n")
	r = f.MustRun(fj, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, r.Action)
	require.Equal(t, runner.ActionSkipped, f.MustRun(fj, "2026-11-28").Action)
}

// A partition never loaded before, with no rows in the input, is refused
// too: an empty result must be asked for.
func testEmptyNeverLoaded(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders-2026-11-26.csv", orders)
	j := e.Job(arrivalJob)
	_, err := e.Run(j, "2026-11-26")
	requireInputError(t, err, "none of the input's 7 rows falls in partition 2026-11-26; nothing was loaded")
	require.Equal(t, 0, e.LedgerRows(j.Name, "2026-11-26", ""))
	r := e.MustRun(e.Job(arrivalJob+"allow_empty: true\n"), "2026-11-26")
	require.Equal(t, int64(6), r.RowsOutOfWindow, "7 rows, one a duplicate")
}

// Files named by arrival day hold late rows of the day before: the job
// lists the next day's file too, and the run for 11-28 keeps its own rows
// from both files. Rows of other partitions are reported per partition.
func testLateRowsNextFile(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	header := "order_id,created_at,status\n"
	e.Write("in/orders-2026-11-28.csv", header+"1,2026-11-28 09:00:00,placed\n2,2026-11-28 23:00:00,placed\n")
	e.Write("in/orders-2026-11-29.csv", header+"3,2026-11-28 23:59:00,late\n4,2026-11-29 08:00:00,placed\n5,2026-11-29 09:00:00,placed\n")
	e.Write("in/orders-2026-11-30.csv", header+"6,2026-11-30 08:00:00,placed\n")

	only := e.Job(arrivalJob)
	r := e.MustRun(only, "2026-11-29")
	require.Equal(t, []runner.PartitionRows{{Partition: "2026-11-28", Rows: 1}}, r.OutOfWindow, "the late row is reported, not lost silently")

	j := e.Job(strings.Replace(strings.Replace(arrivalJob, "  column: created_at\n", "  column: created_at\n  closed_after: 1d\n", 1), "    - in/orders-{{ date }}.csv\n",
		"    - in/orders-{{ date }}.csv\n    - in/orders-{{ date + 1d }}.csv\n", 1))
	r = e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(3), r.RowCount, "its own rows from both files")
	require.Equal(t, int64(2), r.RowsOutOfWindow)
	require.Equal(t, []runner.PartitionRows{{Partition: "2026-11-29", Rows: 2}}, r.OutOfWindow)
	require.Equal(t, []string{"1", "2", "3"}, e.Rows(day28, "order_id"))

	// The next day's file is not complete until that day has ended.
	early := func(o *idem.Options) { o.AsOf = mustTime(t, "2026-11-29T23:00:00Z") }
	r = e.MustRun(j, "2026-11-28", early)
	require.Equal(t, runner.ActionNotClosed, r.Action)
	require.Equal(t, "2026-11-30T00:00:00Z", r.ClosesAt)
}

// A row whose partition value is NULL belongs to no partition: an error
// naming the file and line, unless the job skips such rows.
func testNullPartition(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders-2026-11-28.csv", orders+"9,19,,placed,1.00,2026-11-28 10:00:00\n")
	j := e.Job(arrivalJob)
	_, err := e.Run(j, "2026-11-28")
	requireInputError(t, err, "1 input rows have no created_at (NULL)", "orders-2026-11-28.csv line 9: 9,19,,placed")
	require.Equal(t, 0, e.LedgerRows(j.Name, "2026-11-28", ""))

	r := e.MustRun(e.Job(strings.Replace(arrivalJob, "  column: created_at\n", "  column: created_at\n  on_null: skip\n", 1)), "2026-11-28")
	require.Equal(t, int64(4), r.RowCount)
	require.Equal(t, int64(3), r.RowsOutOfWindow, "two rows of other days and the NULL")
}

func testOutOfWindowFail(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders-2026-11-28.csv", orders)
	j := e.Job(strings.Replace(arrivalJob, "  column: created_at\n", "  column: created_at\n  out_of_window: fail\n", 1))
	_, err := e.Run(j, "2026-11-28")
	requireInputError(t, err, "2 input rows belong to other partitions (2026-11-27: 1, 2026-11-29: 1)")
	require.Equal(t, 0, e.LedgerRows(j.Name, "2026-11-28", ""))
}

// A file that lacks a column the target has fails; it would otherwise load
// NULLs and, on a reload, erase the column's values.
func testSourceLacksColumn(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders-2026-11-28.csv", orders)
	j := e.Job(arrivalJob)
	e.MustRun(j, "2026-11-28")
	before := e.Checksum("")

	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(orders), "\n") {
		f := strings.Split(line, ",")
		b.WriteString(strings.Join(append(f[:4:4], f[5]), ",") + "\n") // drop amount
	}
	e.Write("in/orders-2026-11-28.csv", b.String())
	_, err := e.Run(j, "2026-11-28")
	requireInputError(t, err, `the input (orders-2026-11-28.csv) lacks column "amount", which target `+e.Sales("orders")+` has`)
	require.Equal(t, before, e.Checksum(""))
}

// A new input column fails by default; with on_schema_change: add_columns
// it is added, nullable, and the old rows keep theirs.
func testNewColumn(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders-2026-11-28.csv", orders)
	lines := strings.Split(strings.TrimSpace(orders), "\n")
	for i := range lines {
		lines[i] += ",web"
	}
	lines[0] = strings.Replace(lines[0], ",web", ",channel", 1)
	e.Write("in/orders-2026-11-29.csv", strings.Join(lines, "\n")+"\n")
	j := e.Job(arrivalJob)
	e.MustRun(j, "2026-11-28")
	before := e.Checksum("")

	_, err := e.Run(j, "2026-11-29")
	requireInputError(t, err, `the input has column "channel", which target `+e.Sales("orders")+` does not have`, "on_schema_change: add_columns")
	require.Equal(t, before, e.Checksum(""))

	add := e.Job(arrivalJob + "on_schema_change: add_columns\n")
	r := e.MustRun(add, "2026-11-29")
	require.Equal(t, int64(1), r.RowCount)
	require.Equal(t, []string{"2|NULL", "3|NULL", "4|NULL", "5|web", "6|NULL"}, e.Rows("", "order_id", "channel"))
	require.Equal(t, runner.ActionSkipped, e.MustRun(add, "2026-11-29").Action)
}

// A type change of an existing column fails with both types named.
func testTypeChange(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders-2026-11-28.csv", orders)
	j := e.Job(arrivalJob)
	e.MustRun(j, "2026-11-28")
	before := e.Checksum("")
	e.Write("in/orders-2026-11-28.csv", strings.Replace(orders, "20.50", "n/a", 1))
	_, err := e.Run(j, "2026-11-28")
	requireInputError(t, err, `line 3: column "amount": "n/a" is not a number (column "amount" of `, "never changes silently")
	require.Equal(t, before, e.Checksum(""))
}

// A merge's --date names the run: without closed_after it is never held
// back; with it, it waits like a partition.
func testMergeClosure(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-12-05.csv", orders)
	future := "2026-12-05" // after the env's as-of time
	r := e.MustRun(e.Job(mergeJob), future)
	require.Equal(t, runner.ActionLoaded, r.Action)

	f := NewEnv(t, h)
	f.Write("in/2026-12-05.csv", orders)
	r = f.MustRun(f.Job(mergeJob+"partition:\n  closed_after: 2h\n"), future)
	require.Equal(t, runner.ActionNotClosed, r.Action)
	require.Equal(t, "2026-12-06T02:00:00Z", r.ClosesAt)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return v
}
