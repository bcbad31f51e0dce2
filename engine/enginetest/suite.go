package enginetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// testCase is one conformance case. An alias, so a case list written as a
// slice of the bare struct type appends too.
type testCase = struct {
	name string
	fn   func(*testing.T, Harness)
}

// Run runs every conformance case against the engine behind h; with
// -short, the core cases only (see core).
func Run(t *testing.T, h Harness) {
	if h.InProcess {
		inProcess.Store(t.Name(), true)
	}
	for _, c := range allCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if why, ok := h.Unsupported[c.name]; ok {
				t.Skip(why)
			}
			if testing.Short() && core[c.name] == "" {
				t.Skip("not a core case: -short runs the core cases, one or more per guarantee; the full run runs this one")
			}
			c.fn(t, h)
		})
	}
}

// allCases lists every conformance case.
func allCases() []testCase {
	cases := []testCase{
		{"RunTwiceFiles", testRunTwiceFiles},
		{"ObjectsRunTwice", testObjectsRunTwice},
		{"ObjectsReplacedWhileRead", testObjectsReplacedWhileRead},
		{"ObjectsManyAndGlob", testObjectsManyAndGlob},
		{"ObjectsNoMatch", testObjectsNoMatch},
		{"ObjectsKilledWhileFetching", testObjectsKilledWhileFetching},
		{"ObjectsHTTPS", testObjectsHTTPS},
		{"ObjectsRunTwiceGCS", testObjectsRunTwiceGCS},
		{"ObjectsReplacedWhileReadGCS", testObjectsReplacedWhileReadGCS},
		{"ObjectsRunTwiceAzure", testObjectsRunTwiceAzure},
		{"ObjectsReplacedWhileReadAzure", testObjectsReplacedWhileReadAzure},
		{"RunTwiceQuery", testRunTwiceQuery},
		{"SeedFixture", testSeedFixture},
		{"TieBreakIndependentOfFileOrder", testTieBreak},
		{"NullKeyRejected", testNullKey},
		{"EmptyInputGuard", testEmptyInputGuard},
		{"MissingColumnTouchesNothing", testMissingColumn},
		{"LedgerIsIdempotent", testLedger},
		{"LoadedAtIsMetadata", testLoadedAt},
		{"ChangedPartitionIsReloaded", testTamperedPartition},
		{"NotClosed", testNotClosed},
		{"Lookback", testLookback},
		{"CrashPoints", testCrashPoints},
		{"FirstLoadCrashPoints", testFirstLoadCrashPoints},
	}
	for _, more := range [][]testCase{mergeCases, formatCases, concurrentCases, typeCases,
		noSilentCases, oneWriterCases, interruptCases, badInputCases, badInput2Cases,
		untouchedCases, readOnlyCases, faithfulCases, backfillCases, verifyCases, planCases,
		ledgerCases, guardCases, oneReaderCases, sameKindsCases} {
		cases = append(cases, more...)
	}
	return cases
}

// The promises core cases show besides SPEC.md's numbered guarantees.
const (
	readOnly = "read-only commands change nothing"
	secrets  = "passwords never printed"
	reading  = "files read alike on every engine's load path"
	ledgerOK = "the ledger records what the table holds"
)

// core names the cases `go test -short` runs on every engine, each with
// the guarantee of SPEC.md (its number) or the promise it shows: every
// guarantee keeps a case on every engine in the quick run, whose cost
// follows its number of cases, so the rest runs in the full run (CI;
// docs/decisions/0002-quick-run-core-cases.md). TestCoreCoversEveryGuarantee
// checks that every guarantee is here and every name is a case.
var core = map[string]string{
	"RunTwiceFiles":                         "1",
	"RunTwiceQuery":                         "1",
	"MergeRunTwice":                         "1",
	"MergeFirstLoadDirect":                  "4",
	"MergeIntoEmptyTable":                   "4",
	"CrashPoints":                           "2",
	"InterruptRollsBack":                    "2",
	"MergeOlderFileLateChangesNothing":      "3",
	"MergeDeletedKeyStaysDeleted":           "3",
	"MergeEqualVersionsByContent":           "3",
	"MergeLatestByRun":                      "3",
	"MergeTieReportedAsTie":                 "3",
	"MergeRerunChecksTarget":                "8",
	"MergeRowCountCarriedForward":           "8",
	"SeedFixture":                           "4",
	"TieBreakIndependentOfFileOrder":        "4",
	"LoadedAtIsMetadata":                    "5",
	"ConcurrentRunsOfOnePartition":          "6",
	"MergeAndPartitionRunsOnOneTableAtOnce": "6",
	"BadCSVNamedByLine":                     "7",
	"RefusedOnLoadedTargetChangesNothing":   "7",
	"NullKeyRejected":                       "7",
	"NoFileMatchedIsAFailure":               "8",
	"EmptyInputGuard":                       "8",
	"NullPartitionValueRejected":            "8",
	"MissingColumnFails":                    "8",
	"TimestampTZIndependentOfHostTZ":        "8",
	"TimestampIndependentOfHostTZ":          "8",
	"FloatKeyRefused":                       "8",
	"ClockWordsAndLooseTimesAreNoDates":     "9",
	"InexactValueRefusedInEitherOrder":      "9",
	"TruncatedGzipRefused":                  "7",
	"ChecksumOfWhatDoesNotExist":            readOnly,
	"PasswordsNeverPrinted":                 secrets,
	"FileFormatsAgree":                      reading,
	"TheWordNULLIsText":                     reading,
	"KeysDifferingByCaseAccentOrSpace":      reading,
	"LedgerRoundTrip":                       ledgerOK,
	"FailedFirstMergeLeavesNoTombstones":    "2",
	"MergeOntoKeyHeldTwiceFails":            "7",
	"PlanAndVerifyRunWhatARunRuns":          readOnly,
}

// orders is the seed fixture: three days, one exact duplicate (order 3) and
// one late event (order 5: created just after midnight, in the next day).
const orders = `order_id,customer_id,created_at,status,amount,updated_at
1,10,2026-11-27 09:00:00,completed,10.00,2026-11-27 10:00:00
2,11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00
3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00
3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00
4,13,2026-11-28 23:59:59,placed,7.00,2026-11-28 23:59:59
5,14,2026-11-29 00:00:01,placed,9.99,2026-11-29 00:05:00
6,15,2026-11-28 15:00:00,completed,1.00,2026-11-28 15:00:00
`

const filesJob = `job: orders_daily
source:
  files: in/*.csv
strategy: partition
partition:
  column: created_at
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
  created_at: TIMESTAMP
  updated_at: TIMESTAMP
loaded_at: _loaded_at
`

var allCols = []string{"order_id", "customer_id", "created_at", "status", "amount", "updated_at"}

const day28 = "created_at >= TIMESTAMP '2026-11-28 00:00:00' AND created_at < TIMESTAMP '2026-11-29 00:00:00'"
const day29 = "created_at >= TIMESTAMP '2026-11-29 00:00:00' AND created_at < TIMESTAMP '2026-11-30 00:00:00'"

// diff returns the rows only in a and only in b.
func diff(a, b []string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		count[r]--
	}
	for r, n := range count {
		for ; n > 0; n-- {
			onlyA = append(onlyA, r)
		}
		for ; n < 0; n++ {
			onlyB = append(onlyB, r)
		}
	}
	return onlyA, onlyB
}

// The heart of the suite: run, run again, force, change one row.
func testRunTwiceFiles(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)

	// The first load (the table is created): what it reports is what the
	// table holds.
	created := e.MustRun(j, "2026-11-29")
	other := e.Checksum(day29, "_loaded_at")
	require.Equal(t, int64(1), other.Rows)
	require.Equal(t, other, Sum{created.RowCount, created.Checksum})

	first := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, first.Action)
	sum1 := e.Checksum(day28, "_loaded_at")
	rows1 := e.Rows(day28, allCols...)
	require.Equal(t, sum1.Rows, first.RowCount)
	require.Equal(t, sum1.Checksum, first.Checksum)

	second := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionSkipped, second.Action)
	require.Equal(t, first.RunID, second.RunID)
	require.Equal(t, sum1, e.Checksum(day28, "_loaded_at"))

	forced := e.MustRun(j, "2026-11-28", Force)
	require.Equal(t, runner.ActionLoaded, forced.Action)
	require.Equal(t, first.RunID, forced.RunID)
	require.Equal(t, sum1, e.Checksum(day28, "_loaded_at"))
	require.Equal(t, first.Checksum, forced.Checksum)

	// Change one input row: order 2 is shipped now.
	e.Write("in/orders.csv", strings.Replace(orders,
		"2,11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00",
		"2,11,2026-11-28 08:00:00,shipped,20.50,2026-11-28 11:00:00", 1))
	third := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, third.Action)
	require.NotEqual(t, first.RunID, third.RunID)
	rows3 := e.Rows(day28, allCols...)
	gone, added := diff(rows1, rows3)
	require.Len(t, gone, 1, "exactly one row changes")
	require.Len(t, added, 1)
	require.Contains(t, gone[0], "placed")
	require.Contains(t, added[0], "shipped")
	require.Equal(t, sum1.Rows, int64(len(rows3)))
	require.NotEqual(t, sum1.Checksum, e.Checksum(day28, "_loaded_at").Checksum)
	require.Equal(t, other, e.Checksum(day29, "_loaded_at"), "other partitions untouched")
}

const queryJob = `job: orders_query
source:
  query: |
    SELECT order_id, customer_id, created_at, status, amount, updated_at
    FROM raw_orders
    WHERE created_at >= {{ start }} AND created_at < {{ end }}
strategy: partition
partition:
  column: created_at
key: [order_id]
latest_by: updated_at
`

func seedRawOrders(e *Env) {
	e.Exec(
		`CREATE TABLE raw_orders (order_id BIGINT, customer_id BIGINT, created_at TIMESTAMP, status VARCHAR(20), amount DECIMAL(12,2), updated_at TIMESTAMP)`,
		`INSERT INTO raw_orders VALUES
		 (1, 10, TIMESTAMP '2026-11-27 09:00:00', 'completed', 10.00, TIMESTAMP '2026-11-27 10:00:00'),
		 (2, 11, TIMESTAMP '2026-11-28 08:00:00', 'placed', 20.50, TIMESTAMP '2026-11-28 08:00:00'),
		 (3, 12, TIMESTAMP '2026-11-28 09:30:00', 'shipped', 5.25, TIMESTAMP '2026-11-28 12:00:00'),
		 (3, 12, TIMESTAMP '2026-11-28 09:30:00', 'shipped', 5.25, TIMESTAMP '2026-11-28 12:00:00'),
		 (4, 13, TIMESTAMP '2026-11-28 23:59:59', 'placed', 7.00, TIMESTAMP '2026-11-28 23:59:59'),
		 (5, 14, TIMESTAMP '2026-11-29 00:00:01', 'placed', 9.99, TIMESTAMP '2026-11-29 00:05:00'),
		 (6, 15, TIMESTAMP '2026-11-28 15:00:00', 'completed', 1.00, TIMESTAMP '2026-11-28 15:00:00')`,
	)
}

func testRunTwiceQuery(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	j := e.Job(queryJob)

	e.MustRun(j, "2026-11-27")
	other := e.Checksum("")

	first := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, first.Action)
	require.Equal(t, int64(5), first.RowsIn)
	require.Equal(t, int64(1), first.RowsDeduped)
	require.Equal(t, int64(4), first.RowCount)
	rows1 := e.Rows(day28, allCols...)

	second := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionSkipped, second.Action)
	require.Equal(t, first.RunID, second.RunID)
	require.Equal(t, first.Checksum, second.Checksum)

	forced := e.MustRun(j, "2026-11-28", Force)
	require.Equal(t, runner.ActionLoaded, forced.Action)
	require.Equal(t, first.Checksum, forced.Checksum)
	require.Equal(t, first.RowCount, forced.RowCount)

	e.Exec(`UPDATE raw_orders SET status = 'shipped', updated_at = TIMESTAMP '2026-11-28 11:00:00' WHERE order_id = 2`)
	third := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, third.Action)
	require.NotEqual(t, first.RunID, third.RunID)
	gone, added := diff(rows1, e.Rows(day28, allCols...))
	require.Len(t, gone, 1)
	require.Len(t, added, 1)
	require.Contains(t, added[0], "shipped")
	require.Equal(t, int64(4), third.RowCount)
	require.Equal(t, other.Rows+4, e.Checksum("").Rows)
}

// The article's test: a duplicate is loaded once, and a late event lands
// only in its own day.
func testSeedFixture(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)

	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(7), r.RowsIn)
	require.Equal(t, int64(1), r.RowsDeduped, "the duplicate order 3")
	require.Equal(t, int64(2), r.RowsOutOfWindow, "order 1 (the day before) and order 5 (the late event)")
	require.Equal(t, int64(4), r.Inserted)
	require.Equal(t, []string{"2", "3", "4", "6"}, e.Rows(day28, "order_id"))
	require.Empty(t, e.Rows("order_id = 5", "order_id"), "the late event is not written into 2026-11-28")

	r = e.MustRun(j, "2026-11-29")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, []string{"5"}, e.Rows(day29, "order_id"))
	require.Equal(t, []string{"2", "3", "4", "6"}, e.Rows(day28, "order_id"), "loading 11-29 leaves 11-28 alone")
}

// Equal key and version, different content: the same row wins whatever
// order the files are read in.
func testTieBreak(t *testing.T, h Harness) {
	header := "order_id,customer_id,created_at,status,amount,updated_at\n"
	a := "7,1,2026-11-28 10:00:00,placed,1.00,2026-11-28 10:00:00\n"
	b := "7,1,2026-11-28 10:00:00,shipped,1.00,2026-11-28 10:00:00\n"
	var sums []string
	for i, files := range [][2]string{{a, b}, {b, a}} {
		e := NewEnv(t, h)
		e.Write("in/1.csv", header+files[0])
		e.Write("in/2.csv", header+files[1])
		r := e.MustRun(e.Job(filesJob), "2026-11-28")
		require.Equal(t, int64(1), r.RowsDeduped, "order %d", i)
		require.Equal(t, int64(1), r.RowCount)
		sums = append(sums, r.Checksum)
	}
	require.Equal(t, sums[0], sums[1])
}

func testNullKey(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	e.MustRun(j, "2026-11-28")
	before := e.Checksum("", "_loaded_at")

	e.Write("in/orders.csv", orders+",16,2026-11-28 16:00:00,placed,3.00,2026-11-28 16:00:00\n")
	r, err := e.Run(j, "2026-11-28")
	require.Error(t, err)
	var ie *runner.InputError
	require.ErrorAs(t, err, &ie)
	require.Contains(t, err.Error(), "NULL in key (order_id)")
	require.Contains(t, err.Error(), `customer_id="16"`, "the error names the row")
	require.Equal(t, runner.ActionFailed, r.Action)
	require.Equal(t, before, e.Checksum("", "_loaded_at"), "the target keeps its rows")
}

func testEmptyInputGuard(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	e.MustRun(j, "2026-11-28")
	before := e.Checksum(day28, "_loaded_at")
	require.Equal(t, int64(4), before.Rows)

	// Today's delivery is empty (header only).
	e.Write("in/orders.csv", "order_id,customer_id,created_at,status,amount,updated_at\n1,10,2026-11-27 09:00:00,completed,10.00,2026-11-27 10:00:00\n")
	_, err := e.Run(j, "2026-11-28")
	require.Error(t, err)
	require.Contains(t, err.Error(), "keeps its 4 rows")
	require.Equal(t, before, e.Checksum(day28, "_loaded_at"))

	allow := e.Job(filesJob + "allow_empty: true\n")
	r := e.MustRun(allow, "2026-11-28")
	require.Equal(t, int64(4), r.Deleted)
	require.Equal(t, int64(0), e.Checksum(day28).Rows)
}

func testMissingColumn(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	e.MustRun(e.Job(filesJob), "2026-11-28")
	before := e.Checksum("", "_loaded_at")

	bad := e.Job(strings.Replace(filesJob, "key: [order_id]", "key: [order_idd]", 1))
	e.RequireUntouched(func() {
		_, err := e.Run(bad, "2026-11-28", Force)
		require.Error(t, err)
		var je *job.Error
		require.ErrorAs(t, err, &je)
		require.Contains(t, err.Error(), `key[0]: column "order_idd" is not in the source`)
	})
	require.Equal(t, before, e.Checksum("", "_loaded_at"))
}

func testLedger(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	r := e.MustRun(j, "2026-11-28")
	e.MustRun(j, "2026-11-28", Force)
	e.MustRun(j, "2026-11-28", Force)
	require.Equal(t, 1, e.LedgerRows(j.Name, "2026-11-28", r.RunID), "a forced rerun rewrites its own ledger row")
	got := e.Query(`SELECT job, "partition", run_id, input_fingerprint, definition_hash, strategy, rows_in, rows_deduped, rows_out_of_window, inserted, deleted, row_count, checksum, partition_closed, idem_version FROM idem_runs`)
	require.Equal(t, []string{fmt.Sprintf("orders_daily|2026-11-28|%s|%s|%s|partition|7|1|2|4|4|4|%s|true|%s",
		r.RunID, r.InputFingerprint, j.DefinitionHash(), r.Checksum, runner.Version)}, got)

	e.Write("in/orders.csv", orders+"8,1,2026-11-28 10:00:00,placed,1.00,2026-11-28 10:00:00\n")
	r2 := e.MustRun(j, "2026-11-28")
	require.Equal(t, 2, e.LedgerRows(j.Name, "2026-11-28", ""))
	require.Equal(t, 1, e.LedgerRows(j.Name, "2026-11-28", r2.RunID))
}

func testLoadedAt(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	r1 := e.MustRun(j, "2026-11-28")
	stamp1 := e.Rows("order_id = 2", "_loaded_at")
	e.Now = e.Now.Add(36 * 60 * 60 * 1e9)
	r2 := e.MustRun(j, "2026-11-28", Force)
	stamp2 := e.Rows("order_id = 2", "_loaded_at")
	require.NotEqual(t, stamp1, stamp2, "loaded_at records the load")
	require.Equal(t, r1.RunID, r2.RunID, "loaded_at is not in the run id")
	require.Equal(t, r1.Checksum, r2.Checksum, "loaded_at is not in the checksum")
}

// A partition edited behind idem's back no longer matches the ledger, so
// the next run reloads instead of skipping.
func testTamperedPartition(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	r1 := e.MustRun(j, "2026-11-28")
	e.Exec(`DELETE FROM ` + e.Sales("orders") + ` WHERE order_id = 2`)
	r2 := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, r2.Action)
	require.Equal(t, r1.Checksum, r2.Checksum)
	require.Contains(t, r2.Reloaded, "the partition changed since run", "the output says why it reloaded")
}

func testNotClosed(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(strings.Replace(filesJob, "  column: created_at", "  column: created_at\n  closed_after: 6h", 1))
	asOf := func(o *idem.Options) { o.AsOf = e.Now.AddDate(0, 0, -2).Add(3 * 60 * 60 * 1e9) } // 2026-11-29T09:00Z
	r := e.MustRun(j, "2026-11-29", asOf)
	require.Equal(t, runner.ActionNotClosed, r.Action)
	require.Equal(t, "2026-11-30T06:00:00Z", r.ClosesAt)
	require.Equal(t, 0, e.LedgerRows(j.Name, "2026-11-29", ""))
	r = e.MustRun(j, "2026-11-28", asOf) // closed at 2026-11-29T06:00Z
	require.Equal(t, runner.ActionLoaded, r.Action)
	r = e.MustRun(j, "2026-11-29", asOf, func(o *idem.Options) { o.AllowOpen = true })
	require.Equal(t, runner.ActionLoaded, r.Action)
	require.Equal(t, []string{"false"}, e.Query(`SELECT partition_closed FROM idem_runs WHERE "partition" = '2026-11-29'`))
}

func testLookback(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(strings.Replace(filesJob, "  column: created_at", "  column: created_at\n  lookback: 2", 1))
	rs, err := idem.Run(t.Context(), j, idem.Options{Date: "2026-11-29", AsOf: e.Now})
	require.NoError(t, err)
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.Partition)
	}
	require.Equal(t, []string{"2026-11-27", "2026-11-28", "2026-11-29"}, parts)
	require.Equal(t, int64(6), e.Checksum("").Rows)
}

// shortCrashPoints are the crash points -short tries per strategy: one
// before the commit and the commit's own, after it. The points before the
// commit differ by strategy, so between them they meet the three outcomes
// (the old data intact; on an engine without transactions, swapped and not
// recorded, and swapped and recorded); the interrupt cases stop runs at
// after_stage and after_delete. The full run tries every point.
var shortCrashPoints = map[string][]string{
	"partition": {runner.CrashAfterWrite, runner.CrashAfterCommit},
	"merge":     {runner.CrashBeforeCommit, runner.CrashAfterCommit},
}

// crashPoints are the crash points tried for a strategy.
func crashPoints(strategy string) []string {
	if testing.Short() {
		return shortCrashPoints[strategy]
	}
	return runner.CrashPoints
}

// kill -9 at each crash point leaves the old or the new data, never
// anything else, and the next run finishes the job: for both strategies.
func testCrashPoints(t *testing.T, h Harness) {
	strategies := []struct{ name, body, file string }{
		{"partition", filesJob, "in/orders.csv"},
		{"merge", mergeJob, "in/2026-11-28.csv"},
	}
	for _, st := range strategies {
		for _, point := range crashPoints(st.name) {
			t.Run(st.name+"/"+point, func(t *testing.T) {
				t.Parallel()
				e := NewEnv(t, h)
				e.Write(st.file, orders)
				j := e.Job(st.body)
				e.MustRun(j, "2026-11-28")
				old := e.Rows("", allCols...)

				// A newer version of order 6, so the merge takes it too.
				e.Write(st.file, strings.Replace(orders, "6,15,2026-11-28 15:00:00,completed,1.00,2026-11-28 15:00:00",
					"6,15,2026-11-28 15:00:00,returned,1.00,2026-11-28 18:00:00", 1))
				code, _, stderr := RunBinary(t, []string{"IDEM_CRASH_AT=" + point},
					"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
				require.Equal(t, -1, code, "killed by a signal; stderr: %s", stderr)

				// On an engine without transactions that swaps the new
				// data in (engine.PartitionExchanger), the ledger row is
				// written after the swap, and the crash points after the
				// swap find the new data in place: after_write (swapped, no
				// ledger row: the next run loads again; a merge's writes go
				// to a copy built beside the target, and its after_write
				// falls after that copy is swapped in), and before_commit
				// (swapped and recorded: the next run skips, as
				// after_commit).
				exch := e.Exchanges()
				recorded := point == runner.CrashAfterCommit || (exch && point == runner.CrashBeforeCommit)
				swapped := recorded || (exch && point == runner.CrashAfterWrite)
				after := e.Rows("", allCols...)
				if swapped {
					gone, added := diff(old, after)
					require.Len(t, gone, 1)
					require.Len(t, added, 1)
					require.Contains(t, added[0], "returned")
				} else {
					require.Equal(t, old, after, "the old data, intact")
				}

				code, stdout, stderr := RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--json")
				require.Equal(t, 0, code, stderr)
				want := `"action":"loaded"`
				if recorded {
					want = `"action":"skipped"`
				}
				require.Contains(t, stdout, want)
				gone, added := diff(old, e.Rows("", allCols...))
				require.Len(t, gone, 1)
				require.Len(t, added, 1)
				require.Contains(t, added[0], "returned")
			})
		}
	}
}

// kill -9 at each crash point of a first load (the table does not exist)
// of a partition job with a key leaves no table or the whole partition,
// and the next run ends where one run ends: the same rows, the same
// tables, a ledger that makes a third run skip. Without loaded_at, the
// engines that can load the input straight into the table they create do
// (runner/direct.go), the checks read it there, and an input with a
// repeated key is moved back to staging first: both inputs are tried.
func testFirstLoadCrashPoints(t *testing.T, h Harness) {
	body := strings.Replace(filesJob, "loaded_at: _loaded_at\n", "", 1)
	inputs := map[string]string{
		"repeated key": orders,
		"unique keys":  strings.Replace(orders, "3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00\n", "", 1),
	}
	tables := func(e *Env) []string {
		var out []string
		for _, tbl := range e.Trace().Tables {
			out = append(out, tbl[strings.LastIndex(tbl, ".")+1:])
		}
		return out
	}
	for name, input := range inputs {
		ref := NewEnv(t, h)
		ref.Write("in/orders.csv", input)
		ref.MustRun(ref.Job(body), "2026-11-28")
		want, wantTables := ref.Rows("", allCols...), tables(ref)
		require.Len(t, want, 4, "orders 2, 3, 4 and 6 of 2026-11-28, order 3 once")
		for _, point := range crashPoints("partition") {
			t.Run(name+"/"+point, func(t *testing.T) {
				t.Parallel()
				e := NewEnv(t, h)
				e.Write("in/orders.csv", input)
				j := e.Job(body)
				code, _, stderr := RunBinary(t, []string{"IDEM_CRASH_AT=" + point},
					"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
				require.Equal(t, -1, code, "killed by a signal; stderr: %s", stderr)
				if tr := e.Trace(); slices.ContainsFunc(tr.Tables, func(s string) bool { return strings.HasSuffix(s, "."+j.Table().Name) }) {
					require.Equal(t, want, e.Rows("", allCols...), "the target, where the crash left one, holds the whole partition")
				}

				code, stdout, stderr := RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json")
				require.Equal(t, 0, code, stderr)
				require.Regexp(t, `"action":"(loaded|skipped)"`, stdout)
				require.Equal(t, want, e.Rows("", allCols...))
				require.Equal(t, wantTables, tables(e), "no table a crashed run built is left")
				_, stdout, _ = RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json")
				require.Contains(t, stdout, `"action":"skipped"`)
			})
		}
	}
}
