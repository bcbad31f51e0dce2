package enginetest

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

var mergeCases = []testCase{
	{"MergeRunTwice", testMergeRunTwice},
	{"MergeFirstLoadDirect", testMergeFirstLoadDirect},
	{"MergeIntoEmptyTable", testMergeIntoEmptyTable},
	{"MergeOlderFileLateChangesNothing", testMergeOlderLate},
	{"MergeDeleteWhen", testMergeDeleteWhen},
	{"MergeDeletedKeyStaysDeleted", testMergeDeletedStaysDeleted},
	{"MergeIntoTargetWithUniqueKey", testMergeUniqueKey},
	{"MergeDeleteOfAbsentKey", testMergeDeleteAbsent},
	{"MergeEqualVersionsByContent", testMergeEqualVersions},
	{"MergeLatestByRun", testMergeLatestByRun},
	{"MergeTieReportedAsTie", testMergeTieReported},
	{"MergeRerunChecksTarget", testMergeRerunChecksTarget},
	{"MergeRowCountCarriedForward", testMergeRowCountCarriedForward},
	{"KeysDifferingByCaseAccentOrSpace", testKeysBytewise},
	{"MergeTombstoneNameTooLong", testMergeTombstoneNameTooLong},
	{"MergeTombstonesGainNewColumns", testMergeTombstonesNewColumn},
	{"LedgerFromAnOlderVersion", testLedgerOlderVersion},
	{"MergeMissingKeyColumn", testMergeMissingKey},
	{"MergeGeneratedKeyRejected", testMergeGeneratedKey},
	{"MergeQuakesOrderIndependent", testQuakesOrderIndependent},
	{"MergeOnlineRetailDuplicates", testOnlineRetail},
}

const mergeJob = `job: orders_merge
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
  created_at: TIMESTAMP
  updated_at: TIMESTAMP
loaded_at: _loaded_at
`

func testMergeRunTwice(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-28.csv", orders)
	j := e.Job(mergeJob)

	first := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, first.Action)
	require.Equal(t, int64(7), first.RowsIn)
	require.Equal(t, int64(1), first.RowsDeduped)
	require.Equal(t, int64(6), first.Inserted)
	require.Equal(t, int64(6), first.RowCount)
	sum1 := e.Checksum("", "_loaded_at")
	rows1 := e.Rows("", allCols...)
	require.Equal(t, first.Checksum, sum1.Checksum, "a first load writes the whole table")

	second := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionSkipped, second.Action)
	require.Equal(t, first.RunID, second.RunID)

	forced := e.MustRun(j, "2026-11-28", Force)
	require.Equal(t, runner.ActionLoaded, forced.Action)
	require.Equal(t, int64(0), forced.Inserted+forced.Updated+forced.Deleted)
	require.Equal(t, int64(6), forced.SkippedOlder)
	require.Equal(t, sum1, e.Checksum("", "_loaded_at"))

	// Tomorrow's file changes one order (newer version) and repeats the rest.
	e.Write("in/2026-11-29.csv", strings.Replace(orders,
		"2,11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00",
		"2,11,2026-11-28 08:00:00,shipped,20.50,2026-11-29 09:00:00", 1))
	third := e.MustRun(j, "2026-11-29")
	require.Equal(t, int64(1), third.Updated)
	require.Equal(t, int64(0), third.Inserted)
	require.Equal(t, int64(5), third.SkippedOlder)
	require.Equal(t, int64(1), third.RowCount)
	gone, added := diff(rows1, e.Rows("", allCols...))
	require.Len(t, gone, 1, "exactly one row changes")
	require.Len(t, added, 1)
	require.Contains(t, added[0], "shipped")
}

func testMergeOlderLate(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	newer := strings.Replace(orders, "6,15,2026-11-28 15:00:00,completed,1.00,2026-11-28 15:00:00",
		"6,15,2026-11-28 15:00:00,returned,1.00,2026-11-30 15:00:00", 1)
	e.Write("in/2026-11-30.csv", newer)
	e.Write("in/2026-11-28.csv", orders)
	j := e.Job(mergeJob)
	e.MustRun(j, "2026-11-30")
	before := e.Checksum("", "_loaded_at")

	late := e.MustRun(j, "2026-11-28") // the old file, processed late
	require.Equal(t, int64(0), late.Updated)
	require.Equal(t, int64(0), late.Inserted)
	require.Equal(t, int64(6), late.SkippedOlder)
	require.Equal(t, before, e.Checksum("", "_loaded_at"))
	require.Equal(t, []string{"returned"}, e.Rows("order_id = 6", "status"))
}

func testMergeDeleteWhen(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	header := "order_id,status,updated_at,is_deleted\n"
	e.Write("in/2026-11-28.csv", header+"1,placed,2026-11-28 10:00:00,false\n2,placed,2026-11-28 10:00:00,false\n")
	e.Write("in/2026-11-29.csv", header+"1,placed,2026-11-29 10:00:00,true\n2,placed,2026-11-27 10:00:00,true\n3,placed,2026-11-29 10:00:00,true\n")
	j := e.Job(`job: deletes
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id]
latest_by: updated_at
delete_when: is_deleted
`)
	e.MustRun(j, "2026-11-28")
	r := e.MustRun(j, "2026-11-29")
	require.Equal(t, int64(1), r.Deleted, "order 1: a newer row says deleted")
	require.Equal(t, int64(1), r.SkippedOlder, "order 2: an older delete changes nothing")
	require.Equal(t, int64(1), r.DeletedAbsent, "order 3: not in the table, the delete is remembered")
	require.Equal(t, []string{"2"}, e.Rows("", "order_id"))
	require.Equal(t, []string{"1|2026-11-29 10:00:00", "3|2026-11-29 10:00:00"},
		e.Query(`SELECT order_id, updated_at FROM `+e.Sales("orders__idem_deleted")+` ORDER BY order_id`), "deletes are remembered with their version")
}

const customersJob = `job: customers
source:
  files: in/{{ date }}.csv
strategy: merge
key: [customer_id]
latest_by: updated_at
delete_when: is_deleted
columns:
  customer_id: BIGINT
  updated_at: TIMESTAMP
  is_deleted: BOOLEAN
loaded_at: _loaded_at
`

// Three daily customer snapshots; the last deletes customer 3.
var customerSnapshots = map[string]string{
	"2026-11-01": "customer_id,name,tier,updated_at,is_deleted\n" +
		"1,Ann,gold,2026-11-01 09:00:00,false\n2,Bob,silver,2026-11-01 09:00:00,false\n" +
		"3,Cid,bronze,2026-11-01 09:00:00,false\n4,Dee,gold,2026-11-01 09:00:00,false\n",
	"2026-11-02": "customer_id,name,tier,updated_at,is_deleted\n" +
		"2,Bob,gold,2026-11-02 09:00:00,false\n3,Cid,silver,2026-11-02 09:00:00,false\n5,Eve,bronze,2026-11-02 09:00:00,false\n",
	"2026-11-03": "customer_id,name,tier,updated_at,is_deleted\n" +
		"3,Cid,silver,2026-11-03 09:00:00,true\n4,Dee,platinum,2026-11-03 09:00:00,false\n",
}

var customerCols = []string{"customer_id", "name", "tier", "updated_at", "is_deleted"}

// A deleted key stays deleted whatever order the snapshots arrive in, and
// against the same bytes delivered again under a new name.
func testMergeDeletedStaysDeleted(t *testing.T, h Harness) {
	want := []string{
		"1|Ann|gold|2026-11-01 09:00:00|false", "2|Bob|gold|2026-11-02 09:00:00|false",
		"4|Dee|platinum|2026-11-03 09:00:00|false", "5|Eve|bronze|2026-11-02 09:00:00|false",
	}
	days := []string{"2026-11-01", "2026-11-02", "2026-11-03"}
	orders := permutations(days)
	if testing.Short() {
		// A Latin square: each day first, in the middle and last once.
		orders = [][]string{days, {days[1], days[2], days[0]}, {days[2], days[0], days[1]}}
	}
	var first Sum
	for _, order := range orders {
		e := NewEnv(t, h)
		for d, body := range customerSnapshots {
			e.Write("in/"+d+".csv", body)
		}
		j := e.Job(customersJob)
		for _, d := range order {
			e.MustRun(j, d)
		}
		require.Equal(t, want, e.Rows("", customerCols...), "order %v", order)
		sum := e.Checksum("", "_loaded_at")
		if first.Rows == 0 {
			first = sum
		}
		require.Equal(t, first, sum, "order %v", order)

		if order[0] == days[0] && order[1] == days[1] {
			// 11-01's bytes again, under a new name and so a new run id.
			e.Write("in/2026-11-04.csv", customerSnapshots["2026-11-01"])
			r := e.MustRun(j, "2026-11-04")
			require.Equal(t, runner.ActionLoaded, r.Action)
			require.Equal(t, int64(0), r.Inserted+r.Updated+r.Deleted+r.DeletedAbsent)
			require.Equal(t, int64(4), r.SkippedOlder)
			require.Equal(t, want, e.Rows("", customerCols...))
			require.Equal(t, first, e.Checksum("", "_loaded_at"))
		}
	}
}

// testMergeUniqueKey merges the customer snapshots (updates, a delete, new
// keys, loaded_at) into the target idem creates, and again into the same
// target given a unique index on its key by its owner after the first run:
// both end in the same table, with the same counts. DuckDB writes the first
// one's updates as deletes and inserts (engine.Rewriter), which a unique
// index refuses in one transaction; the second takes its updates in place.
func testMergeUniqueKey(t *testing.T, h Harness) {
	sp := h.spell()
	days := []string{"2026-11-01", "2026-11-02", "2026-11-03"}
	type end struct {
		rows    []string
		sum     Sum
		results []string
	}
	var ends []end
	for _, unique := range []bool{false, true} {
		// Each its own subtest: on MySQL a test's targets share schemas.
		t.Run(map[bool]string{false: "as_created", true: "unique_index"}[unique], func(t *testing.T) {
			if unique && sp.UniqueIndex == "none" {
				t.Skip("the engine has no unique index; its merges build the new table beside the target and swap it in")
			}
			e := NewEnv(t, h)
			for d, body := range customerSnapshots {
				e.Write("in/"+d+".csv", body)
			}
			j := e.Job(customersJob)
			var got end
			for i, d := range days {
				r := e.MustRun(j, d)
				got.results = append(got.results, fmt.Sprintf("%s +%d ~%d -%d skip %d, %d rows %s",
					d, r.Inserted, r.Updated, r.Deleted, r.SkippedOlder, r.RowCount, r.Checksum))
				if unique && i == 0 {
					e.Exec(fmt.Sprintf(sp.UniqueIndex, "owner_key", e.Sales(e.Table.Name), "customer_id"))
				}
			}
			require.Equal(t, runner.ActionSkipped, e.MustRun(j, days[2]).Action)
			late := e.MustRun(j, days[1], Force) // an older snapshot again
			require.Equal(t, int64(0), late.Inserted+late.Updated+late.Deleted)
			got.rows, got.sum = e.Rows("", customerCols...), e.Checksum("", "_loaded_at")
			require.Equal(t, []string{
				"1|Ann|gold|2026-11-01 09:00:00|false", "2|Bob|gold|2026-11-02 09:00:00|false",
				"4|Dee|platinum|2026-11-03 09:00:00|false", "5|Eve|bronze|2026-11-02 09:00:00|false",
			}, got.rows)
			ends = append(ends, got)
		})
	}
	if len(ends) == 2 {
		require.Equal(t, ends[0], ends[1], "a unique index on the key changes nothing a merge writes")
	}
}

// permutations returns every order of xs.
func permutations(xs []string) [][]string {
	if len(xs) <= 1 {
		return [][]string{slices.Clone(xs)}
	}
	var out [][]string
	for i := range xs {
		rest := slices.Concat(xs[:i:i], xs[i+1:])
		for _, p := range permutations(rest) {
			out = append(out, append([]string{xs[i]}, p...))
		}
	}
	return out
}

// A delete of a key the table does not hold is remembered and counted:
// an older or equal version of the key cannot insert it, a newer one can.
func testMergeDeleteAbsent(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	for d, body := range customerSnapshots {
		e.Write("in/"+d+".csv", body)
	}
	j := e.Job(customersJob)
	tombs := func() []string {
		return e.Query(`SELECT customer_id, tier, updated_at, is_deleted FROM ` + e.Sales("orders__idem_deleted") + ` ORDER BY customer_id`)
	}

	r := e.MustRun(j, "2026-11-03")
	require.Equal(t, int64(1), r.DeletedAbsent, "customer 3")
	require.Equal(t, int64(1), r.Inserted, "customer 4")
	require.Equal(t, int64(0), r.Deleted+r.SkippedOlder)
	require.Equal(t, []string{"3|silver|2026-11-03 09:00:00|true"}, tombs())
	require.Equal(t, []string{fmt.Sprint(r.DeletedAbsent)}, e.Query(`SELECT deleted_absent FROM idem_runs WHERE run_id = `+e.P(1), r.RunID), "the ledger counts it")

	r = e.MustRun(j, "2026-11-01")
	require.Equal(t, int64(2), r.Inserted, "customers 1 and 2")
	require.Equal(t, int64(2), r.SkippedOlder, "customer 3 (deleted later) and 4 (newer in the table)")
	require.Equal(t, []string{"1", "2", "4"}, e.Rows("", "customer_id"))

	header := "customer_id,name,tier,updated_at,is_deleted\n"
	// The same version, live and first by content ("aaa" < "silver"): a
	// delete still wins over an equal version.
	e.Write("in/2026-11-05.csv", header+"3,Cid,aaa,2026-11-03 09:00:00,false\n")
	r = e.MustRun(j, "2026-11-05")
	require.Equal(t, int64(1), r.SkippedOlder)
	require.Equal(t, []string{"1", "2", "4"}, e.Rows("", "customer_id"))

	e.Write("in/2026-11-06.csv", header+"3,Cid,gold,2026-11-06 09:00:00,false\n")
	r = e.MustRun(j, "2026-11-06")
	require.Equal(t, int64(1), r.Inserted, "a newer version brings it back")
	require.Equal(t, []string{"3|Cid|gold|2026-11-06 09:00:00|false"}, e.Rows("customer_id = 3", customerCols...))
	require.Empty(t, tombs(), "and the delete is forgotten")

	e.Write("in/2026-11-07.csv", header+"3,Cid,gold,2026-11-07 09:00:00,true\n")
	r = e.MustRun(j, "2026-11-07")
	require.Equal(t, int64(1), r.Deleted)
	require.Equal(t, []string{"3|gold|2026-11-07 09:00:00|true"}, tombs())

	// A newer delete of a key already deleted replaces its tombstone (an
	// update in place: DuckDB's unique index must not see it twice).
	e.Write("in/2026-11-08.csv", header+"3,Cid,gold,2026-11-08 09:00:00,true\n4,Dee,gold,2026-11-08 09:00:00,true\n")
	r = e.MustRun(j, "2026-11-08")
	require.Equal(t, int64(1), r.DeletedAbsent)
	require.Equal(t, int64(1), r.Deleted)
	require.Equal(t, []string{"3|gold|2026-11-08 09:00:00|true", "4|gold|2026-11-08 09:00:00|true"}, tombs())
	require.Equal(t, []string{"1", "2"}, e.Rows("", "customer_id"))

	// Replaying every snapshot changes nothing now.
	for _, d := range []string{"2026-11-01", "2026-11-03", "2026-11-05", "2026-11-06", "2026-11-07"} {
		r = e.MustRun(j, d, Force)
		require.Equal(t, int64(0), r.Inserted+r.Updated+r.Deleted+r.DeletedAbsent, d)
	}
	require.Equal(t, []string{"1", "2"}, e.Rows("", "customer_id"))
	require.Len(t, tombs(), 2)
}

// Two different rows of one key with one version: the one first by content
// wins, in every load order, as it does within one run. Text is compared
// bytewise ("Banana" < "apple"), whatever the database's collation.
func testMergeEqualVersions(t *testing.T, h Harness) {
	header := "id,name,updated_at\n"
	a := "1,alpha,2026-11-01 10:00:00\n2,apple,2026-11-01 10:00:00\n3,,2026-11-01 10:00:00\n"
	b := "1,beta,2026-11-01 10:00:00\n2,Banana,2026-11-01 10:00:00\n3,zz,2026-11-01 10:00:00\n"
	want := []string{"1|alpha", "2|Banana", "3|zz"}
	body := `job: equal_versions
source:
  files: in/{{ date }}.csv
strategy: merge
key: [id]
latest_by: updated_at
columns:
  id: BIGINT
  name: VARCHAR
  updated_at: TIMESTAMP
`
	var sums []Sum
	for _, files := range [][]string{{a, b}, {b, a}, {a + b}, {b + a}} {
		e := NewEnv(t, h)
		j := e.Job(body)
		for i, f := range files {
			date := fmt.Sprintf("2026-11-0%d", i+1)
			e.Write("in/"+date+".csv", header+f)
			e.MustRun(j, date)
		}
		require.Equal(t, want, e.Rows("", "id", "name"), "%q", files)
		sums = append(sums, e.Checksum(""))
	}
	for _, s := range sums[1:] {
		require.Equal(t, sums[0], s)
	}
}

// A staged row whose version equals the table's row's, and which loses to
// it by content, is reported as a tie (kept_on_tie), never as older: a
// same-version correction must not be called "not newer". Ties it wins are
// updates; an identical row and an older one are not newer.
func testMergeTieReported(t *testing.T, h Harness) {
	header := "id,name,updated_at,gone\n"
	e := NewEnv(t, h)
	e.Write("in/2026-11-01.csv", header+"1,alpha,2026-11-01 10:00:00,false\n2,apple,2026-11-01 10:00:00,false\n3,,2026-11-01 10:00:00,false\n"+
		"4,same,2026-11-01 10:00:00,false\n5,new,2026-11-02 10:00:00,false\n6,a,2026-11-01 10:00:00,true\n")
	e.Write("in/2026-11-02.csv", header+"1,beta,2026-11-01 10:00:00,false\n2,Banana,2026-11-01 10:00:00,false\n3,zz,2026-11-01 10:00:00,false\n"+
		"4,same,2026-11-01 10:00:00,false\n5,old,2026-11-01 10:00:00,false\n6,b,2026-11-01 10:00:00,true\n")
	j := e.Job(`job: ties
source:
  files: in/{{ date }}.csv
strategy: merge
key: [id]
latest_by: updated_at
delete_when: gone
columns:
  id: BIGINT
  name: VARCHAR
  updated_at: TIMESTAMP
`)
	first := e.MustRun(j, "2026-11-01")
	require.Equal(t, int64(0), first.KeptOnTie)
	r := e.MustRun(j, "2026-11-02")
	require.Equal(t, [4]int64{0, 2, 2, 2}, [4]int64{r.Inserted, r.Updated, r.KeptOnTie, r.SkippedOlder},
		"ties kept: 1 (alpha before beta) and the delete of 6 (a before b); ties won: 2 (Banana before apple), 3 (a value before NULL); not newer: 4 (the same row), 5 (older)")
	require.Equal(t, []string{"1|alpha", "2|Banana", "3|zz", "4|same", "5|new"}, e.Rows("", "id", "name"))
	require.Equal(t, []string{"0|0", "2|2"}, // partition is a reserved word on MySQL
		e.Query(`SELECT kept_on_tie, skipped_older FROM idem_runs ORDER BY kept_on_tie`), "the ledger records ties apart")
}

// A merge rerun the ledger calls done is skipped only while the target
// holds the row count the job's last run left: a table emptied or dropped
// behind idem's back fails the rerun (exit 1) with how to rebuild it,
// instead of reporting skipped and leaving it wrong.
func testMergeRerunChecksTarget(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-28.csv", orders)
	e.Write("in/2026-11-29.csv", "order_id,customer_id,created_at,status,amount,updated_at\n99,1,2026-11-29 10:00:00,placed,1.00,2026-11-29 10:00:00\n")
	j := e.Job(mergeJob)
	e.MustRun(j, "2026-11-28")
	e.Now = e.Now.Add(time.Hour)
	e.MustRun(j, "2026-11-29")
	require.Equal(t, runner.ActionSkipped, e.MustRun(j, "2026-11-28").Action, "the table holds what the last run left")

	st, err := idem.ReadStatus(context.Background(), j, "", "", time.Minute)
	require.NoError(t, err)
	require.Equal(t, idem.TableState{Name: j.Target.Table, Exists: true, Rows: 7}, *st.Table)
	require.Empty(t, st.Missing, "no gap between merge runs")
	require.True(t, st.OK())

	e.Exec(`DELETE FROM ` + e.Sales("orders") + ` WHERE order_id = 2`)
	st, err = idem.ReadStatus(context.Background(), j, "", "", time.Minute)
	require.NoError(t, err)
	require.Equal(t, "the table holds 6 rows; the job's last run (partition 2026-11-29) left 7", st.Table.Changed)
	require.False(t, st.OK())
	_, err = e.Run(j, "2026-11-28")
	var changed *runner.TargetChangedError
	require.ErrorAs(t, err, &changed)
	require.ErrorContains(t, err, "holds 6 rows; the job's last run (partition 2026-11-29")
	require.ErrorContains(t, err, "left 7 rows")
	require.ErrorContains(t, err, "--force")

	forced := e.MustRun(j, "2026-11-28", Force)
	require.Equal(t, int64(1), forced.Inserted, "order 2 is back")
	require.Equal(t, runner.ActionSkipped, e.MustRun(j, "2026-11-29").Action, "the forced run recorded the table's rows")

	e.Exec(`DROP TABLE ` + e.Sales("orders"))
	_, err = e.Run(j, "2026-11-29")
	require.ErrorAs(t, err, &changed)
	require.ErrorContains(t, err, "no longer exists")
}

// A merge records the table's rows after it from the last run's count
// and its own inserts and deletes, not by counting the table (a scan of
// every row for a merge of a few): the count stays right through
// updates, deletes, deletes of absent keys and reinserts, so every rerun
// is skipped; a row added outside idem before a merge is seen by that
// merge's rerun, and --force counts the table again.
func testMergeRowCountCarriedForward(t *testing.T, h Harness) {
	header := "id,name,updated_at,gone\n"
	e := NewEnv(t, h)
	e.Write("in/2026-11-01.csv", header+"1,a,2026-11-01 10:00:00,false\n2,b,2026-11-01 10:00:00,false\n3,c,2026-11-01 10:00:00,false\n")
	e.Write("in/2026-11-02.csv", header+"1,a2,2026-11-02 10:00:00,false\n2,b,2026-11-02 10:00:00,true\n4,d,2026-11-02 10:00:00,false\n5,e,2026-11-02 10:00:00,true\n")
	e.Write("in/2026-11-03.csv", header+"2,b3,2026-11-03 10:00:00,false\n6,f,2026-11-03 10:00:00,false\n")
	e.Write("in/2026-11-04.csv", header+"8,h,2026-11-04 10:00:00,false\n")
	j := e.Job(`job: counted
source:
  files: in/{{ date }}.csv
strategy: merge
key: [id]
latest_by: updated_at
delete_when: gone
columns:
  id: BIGINT
  name: VARCHAR
  updated_at: TIMESTAMP
`)
	var got [][3]int64
	for _, day := range []string{"2026-11-01", "2026-11-02", "2026-11-03"} {
		e.Now = e.Now.Add(time.Hour)
		r := e.MustRun(j, day)
		got = append(got, [3]int64{r.Inserted, r.Updated, r.Deleted})
	}
	require.Equal(t, [][3]int64{{3, 0, 0}, {1, 1, 1}, {2, 0, 0}}, got, "inserts (a reinsert of 2 among them), updates, deletes")
	require.Equal(t, []string{"1|a2", "2|b3", "3|c", "4|d", "6|f"}, e.Rows("", "id", "name"))
	for _, day := range []string{"2026-11-01", "2026-11-02", "2026-11-03"} {
		require.Equal(t, runner.ActionSkipped, e.MustRun(j, day).Action, "%s: the recorded count is the table's", day)
	}

	e.Exec(`INSERT INTO ` + e.Sales("orders") + ` (id, name, updated_at, gone) SELECT 7, 'outside', updated_at, gone FROM ` + e.Sales("orders") + ` WHERE id = 3`)
	e.Now = e.Now.Add(time.Hour)
	require.Equal(t, int64(1), e.MustRun(j, "2026-11-04").Inserted)
	_, err := e.Run(j, "2026-11-04")
	var changed *runner.TargetChangedError
	require.ErrorAs(t, err, &changed, "the row added outside idem before the merge is seen by its rerun")
	require.ErrorContains(t, err, "holds 7 rows")
	require.ErrorContains(t, err, "left 6 rows")
	e.Now = e.Now.Add(time.Hour)
	e.MustRun(j, "2026-11-04", Force)
	require.Equal(t, runner.ActionSkipped, e.MustRun(j, "2026-11-04").Action, "the forced run counted the table")
}

// latest_by: run versions rows by their run's partition: a later
// partition's rows replace an earlier one's, in any load order (the older
// file loaded late changes nothing), and a key repeated with differing rows
// in one input is resolved by content (the row order), never by file order.
func testMergeLatestByRun(t *testing.T, h Harness) {
	header := "symbol,day,price\n"
	early := []string{"AAPL,2026-11-27,10\n", "MSFT,2026-11-27,20\n", "IBM,2026-11-27,31\n", "IBM,2026-11-27,30\n"}
	late := "AAPL,2026-11-27,11\nORCL,2026-11-27,40\n"
	body := `job: prices
source:
  files: in/{{ date }}.csv
strategy: merge
key: [symbol, day]
latest_by: run
columns:
  symbol: VARCHAR
  day: DATE
  price: BIGINT
`
	want := []string{"AAPL|11", "IBM|30", "MSFT|20", "ORCL|40"}
	NewEnv(t, h) // skips here, not in each load order, where no server answers
	var sums []Sum
	for i, c := range []struct {
		order    []string
		reversed bool
	}{{[]string{"2026-11-28", "2026-11-29"}, false}, {[]string{"2026-11-29", "2026-11-28"}, false}, {[]string{"2026-11-29", "2026-11-28"}, true}} {
		t.Run(fmt.Sprint(i), func(t *testing.T) { // a server's schema is the test's
			e := NewEnv(t, h)
			lines := slices.Clone(early)
			if c.reversed {
				slices.Reverse(lines)
			}
			e.Write("in/2026-11-28.csv", header+strings.Join(lines, ""))
			e.Write("in/2026-11-29.csv", header+late)
			j := e.Job(body)
			var last runner.Result
			for _, date := range c.order {
				last = e.MustRun(j, date)
			}
			require.Equal(t, want, e.Rows("", "symbol", "price"), "%v", c)
			if c.order[0] == "2026-11-29" {
				require.Equal(t, [4]int64{1, 2, 0, 1}, [4]int64{last.RowsDeduped, last.Inserted, last.Updated, last.SkippedOlder},
					"the earlier partition loaded late: IBM de-duplicated, MSFT and IBM inserted, AAPL not newer")
			}
			require.Equal(t, []string{"AAPL|2026-11-29 00:00:00", "IBM|2026-11-28 00:00:00", "MSFT|2026-11-28 00:00:00", "ORCL|2026-11-29 00:00:00"},
				e.Rows("", "symbol", job.RunVersionColumn), "each row carries its run's partition")
			again := e.MustRun(j, c.order[len(c.order)-1])
			require.Equal(t, runner.ActionSkipped, again.Action)
			sums = append(sums, e.Checksum(""))
		})
	}
	require.Len(t, sums, 3)
	for _, s := range sums[1:] {
		require.Equal(t, sums[0], s, "one table, whatever the load order")
	}
}

// Keys that differ only by case, an accent, Unicode normalization or a
// trailing space are different keys, as their bytes are: a database whose
// collation ignores case (MariaDB's default) or trailing spaces (PAD
// SPACE, even utf8mb4_bin) must not make them one key, neither when
// de-duplicating one file nor in the target's unique key.
func testKeysBytewise(t *testing.T, h Harness) {
	codes := []string{"AB12", "AB12 ", "ab12", "Ab12", "\u00c9cole", "E\u0301cole", "ecole"}
	var in strings.Builder
	in.WriteString("code,name,day,v\n")
	var want []string
	for i, c := range codes {
		fmt.Fprintf(&in, "\"%s\",n%d,2026-11-01,1\n", c, i)
		want = append(want, fmt.Sprintf("%s|n%d", c, i))
	}
	sort.Strings(want)
	t.Run("partition", func(t *testing.T) {
		e := NewEnv(t, h)
		e.Write("in/2026-11-01.csv", in.String())
		r := e.MustRun(e.Job(`job: codes
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: day
key: [code]
latest_by: v
`), "2026-11-01")
		require.Equal(t, int64(0), r.RowsDeduped)
		require.Equal(t, want, e.Rows("", "code", "name"))
	})
	t.Run("merge", func(t *testing.T) {
		e := NewEnv(t, h)
		j := e.Job(`job: codes
source:
  files: in/{{ date }}.csv
strategy: merge
key: [code]
latest_by: v
`)
		e.Write("in/2026-11-01.csv", in.String())
		r := e.MustRun(j, "2026-11-01")
		require.Equal(t, int64(0), r.RowsDeduped)
		require.Equal(t, int64(len(codes)), r.Inserted)
		require.Equal(t, want, e.Rows("", "code", "name"))
		// A newer version of one of them changes that row only.
		e.Write("in/2026-11-02.csv", "code,name,day,v\n\"ab12\",changed,2026-11-02,2\n\"AB12 \",old,2026-11-02,0\n")
		r = e.MustRun(j, "2026-11-02")
		require.Equal(t, int64(1), r.Updated)
		require.Equal(t, int64(1), r.SkippedOlder)
		require.Equal(t, int64(0), r.Inserted)
		want[slices.Index(want, "ab12|n2")] = "ab12|changed"
		sort.Strings(want)
		require.Equal(t, want, e.Rows("", "code", "name"))
	})
}

// The tombstone table's name must fit PostgreSQL's identifiers, on every
// engine: the job is refused (exit 2) before anything is written.
func testMergeTombstoneNameTooLong(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-01.csv", customerSnapshots["2026-11-01"])
	long := strings.Repeat("c", 50)
	data := fmt.Sprintf("idem: 1\ntarget:\n  url: %s\n  table: %s\n%s", e.URL, e.Sales(long), customersJob)
	path := e.Write("long.yaml", data)
	_, err := job.Load(path)
	var je *job.Error
	require.ErrorAs(t, err, &je)
	require.Contains(t, err.Error(), "target.table")
	require.Contains(t, err.Error(), "delete_when remembers deleted keys in")
	e.RequireUntouched(func() {
		code, out := runIdem(t, nil, "run", path, "--date", "2026-11-01")
		require.Equal(t, 2, code, out)
	})
}

func testMergeMissingKey(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-28.csv", orders)
	e.MustRun(e.Job(mergeJob), "2026-11-28")
	before := e.Checksum("", "_loaded_at")
	e.Write("in/2026-11-29.csv", strings.Replace(orders, "placed", "shipped", -1))

	bad := e.Job(strings.Replace(mergeJob, "key: [order_id]", "key: [order_idd]", 1))
	e.RequireUntouched(func() {
		_, err := e.Run(bad, "2026-11-29")
		var je *job.Error
		require.ErrorAs(t, err, &je)
		require.Contains(t, err.Error(), `key[0]: column "order_idd" is not in the source`)
	})
	require.Equal(t, before, e.Checksum("", "_loaded_at"))
}

func testMergeGeneratedKey(t *testing.T, h Harness) {
	if h.GeneratedKeyTable == nil {
		t.Fatal("the harness must give GeneratedKeyTable")
	}
	e := NewEnv(t, h)
	e.Exec(h.GeneratedKeyTable(e.Schema, "orders")...)
	e.Write("in/2026-11-28.csv", "order_id,status,updated_at\n1,placed,2026-11-28 10:00:00\n")
	j := e.Job(`job: generated
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id]
latest_by: updated_at
`)
	e.RequireUntouched(func() { // no ledger appears
		_, err := e.Run(j, "2026-11-28")
		var je *job.Error
		require.ErrorAs(t, err, &je)
		require.Contains(t, err.Error(), `key[0]: column "order_id" of `+e.Sales("orders")+` is generated by the database`)
	})
	require.Equal(t, int64(0), e.Checksum("").Rows)
}

// repoFile is a path inside the repository.
func repoFile(parts ...string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(append([]string{filepath.Dir(file), "..", ".."}, parts...)...)
}

// quakeRuns lists the USGS snapshots and the --date that selects each.
func quakeRuns(t *testing.T) (files, dates []string) {
	files, err := filepath.Glob(repoFile("examples", "quakes", "data", "all_day_*.csv"))
	require.NoError(t, err)
	require.Len(t, files, 13)
	sort.Strings(files)
	for _, f := range files {
		b := strings.TrimPrefix(filepath.Base(f), "all_day_") // 20260819T0028Z.csv
		dates = append(dates, fmt.Sprintf("%s-%s-%sT%s", b[0:4], b[4:6], b[6:8], b[9:11]))
	}
	return files, dates
}

// The quakes snapshots are real re-deliveries but have no deletes and no
// equal-version conflicts, so the test adds some, deterministically, to
// copies: a delete_when column is_deleted, and for a few rows of each
// snapshot (picked by a hash of the snapshot and the id) one of: a delete at
// the version the snapshot has; the same version with another magnitude; a
// second row of the key in the same file with the same version and another
// magnitude; a delete and a live row of one version in the same file.
func quakeVariants(t *testing.T, files []string, dir string) []string {
	var out []string
	for i, f := range files {
		recs := readCSV(t, f)
		header := append(slices.Clone(recs[0]), "is_deleted")
		id, mag, del := slices.Index(header, "id"), slices.Index(header, "mag"), len(header)-1
		rows := [][]string{header}
		for _, r := range recs[1:] {
			row := append(slices.Clone(r), "false")
			h := fnv.New32a()
			fmt.Fprintf(h, "%d/%s", i, row[id])
			n := h.Sum32()
			switch n % 23 {
			case 0:
				row[del] = "true"
			case 1:
				row[mag] = nudge(row[mag], n)
			case 2:
				rows = append(rows, row)
				row = slices.Clone(row)
				row[mag] = nudge(row[mag], n)
			case 3:
				rows = append(rows, row)
				row = slices.Clone(row)
				row[del] = "true"
			}
			rows = append(rows, row)
		}
		out = append(out, writeCSV(t, filepath.Join(dir, filepath.Base(f)), rows))
	}
	return out
}

// nudge moves a magnitude by 0.01 to 0.03, up or down, as n says.
func nudge(mag string, n uint32) string {
	v, err := strconv.ParseFloat(mag, 64)
	if err != nil {
		return "1"
	}
	d := float64(1+(n>>8)%3) / 100
	if (n>>12)&1 == 1 {
		d = -d
	}
	return strconv.FormatFloat(math.Round((v+d)*100)/100, 'f', -1, 64)
}

func readCSV(t *testing.T, path string) [][]string {
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	require.NoError(t, err)
	return recs
}

func writeCSV(t *testing.T, path string, rows [][]string) string {
	fh, err := os.Create(path)
	require.NoError(t, err)
	w := csv.NewWriter(fh)
	require.NoError(t, w.WriteAll(rows))
	require.NoError(t, fh.Close())
	return path
}

// quakesExpected computes, independently of idem, the table every load
// order must give: for each id, the first of all its rows in the row order
// (the newest updated; at one version a delete first; then the other
// columns ascending by their type, an empty field being NULL and last),
// kept if it is not a delete. It returns the header and the kept rows by id,
// and how many ids end deleted and how many were decided by content.
func quakesExpected(t *testing.T, files []string, types map[string]string) (header []string, rows [][]string, deleted, byContent int) {
	best := map[string][]string{}
	ties := map[string]bool{}
	for _, f := range files {
		recs := readCSV(t, f)
		header = recs[0]
		for _, r := range recs[1:] {
			id := r[slices.Index(header, "id")]
			cur, ok := best[id]
			c := 0
			if ok {
				c = compareQuakes(t, header, types, r, cur)
			}
			if ok && c != 0 && sameVersion(header, r, cur) {
				ties[id] = true
			}
			if !ok || c < 0 {
				best[id] = r
			}
		}
	}
	ids := make([]string, 0, len(best))
	for id := range best {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	del := slices.Index(header, "is_deleted")
	for _, id := range ids {
		if best[id][del] == "true" {
			deleted++
			continue
		}
		if ties[id] {
			byContent++
		}
		rows = append(rows, best[id])
	}
	return header, rows, deleted, byContent
}

func sameVersion(header, a, b []string) bool {
	u := slices.Index(header, "updated")
	return a[u] == b[u]
}

// compareQuakes is the row order of two rows of one id: negative when a
// comes first.
func compareQuakes(t *testing.T, header []string, types map[string]string, a, b []string) int {
	u := slices.Index(header, "updated")
	if c := compareTyped(t, "TIMESTAMPTZ", a[u], b[u]); c != 0 {
		return -c // the newest first
	}
	del := slices.Index(header, "is_deleted")
	if a[del] != b[del] {
		if a[del] == "true" {
			return -1
		}
		return 1
	}
	for i, col := range header {
		if col == "id" || col == "updated" {
			continue
		}
		if c := compareTyped(t, types[col], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareTyped compares two CSV fields as values of a SQL type, NULL last.
func compareTyped(t *testing.T, typ, a, b string) int {
	switch {
	case a == "" || b == "":
		return cmp.Compare(boolInt(a == ""), boolInt(b == ""))
	case typ == "DOUBLE":
		x, err := strconv.ParseFloat(a, 64)
		require.NoError(t, err)
		y, err := strconv.ParseFloat(b, 64)
		require.NoError(t, err)
		return cmp.Compare(x, y)
	case typ == "BIGINT":
		x, err := strconv.ParseInt(a, 10, 64)
		require.NoError(t, err)
		y, err := strconv.ParseInt(b, 10, 64)
		require.NoError(t, err)
		return cmp.Compare(x, y)
	case typ == "TIMESTAMPTZ":
		x, err := time.Parse(time.RFC3339Nano, a)
		require.NoError(t, err)
		y, err := time.Parse(time.RFC3339Nano, b)
		require.NoError(t, err)
		return x.Compare(y)
	case typ == "BOOLEAN":
		return cmp.Compare(boolInt(a == "true"), boolInt(b == "true"))
	case typ == "VARCHAR":
		return strings.Compare(a, b) // bytewise
	}
	t.Fatalf("compareTyped: type %s", typ)
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// quakesJob is examples/quakes/quakes.yaml reading the snapshots in data,
// with delete_when: is_deleted.
func quakesJob(t *testing.T, e *Env, data string) *job.Job {
	t.Helper()
	text, err := os.ReadFile(repoFile("examples", "quakes", "quakes.yaml"))
	require.NoError(t, err)
	body := strings.Replace(string(text), "  magSource: VARCHAR\n", "  magSource: VARCHAR\n  is_deleted: BOOLEAN\n", 1)
	body = strings.Replace(body, "loaded_at: _loaded_at\n", "delete_when: is_deleted\nloaded_at: _loaded_at\n", 1)
	require.NotEqual(t, string(text), body)
	require.NoError(t, os.Symlink(data, filepath.Join(e.Dir, "data")))
	e.Table = engine.Table{Name: "quakes"}
	j, err := job.Parse([]byte(body), e.Dir, func(k string) (string, bool) { return e.URL, k == "IDEM_TARGET" })
	require.NoError(t, err)
	require.Equal(t, "is_deleted", j.DeleteWhen)
	j.Path = e.Write("quakes.yaml", body)
	return j
}

// The 13 USGS snapshots (the first 3 in -short), with deletes and
// equal-version conflicts added (quakeVariants), loaded in file order,
// reversed and in three seeded shuffles (one in -short) give one table,
// equal to the one computed independently (quakesExpected); and any earlier
// snapshot reloaded with --force after the last changes nothing.
func testQuakesOrderIndependent(t *testing.T, h Harness) {
	files, dates := quakeRuns(t)
	if testing.Short() {
		// Three snapshots of a day: re-deliveries, newer versions, late
		// events, and the added deletes and conflicts, as in all thirteen
		// (the test requires more than 10 of each).
		files, dates = files[:3], dates[:3]
	}
	data := t.TempDir()
	variants := quakeVariants(t, files, data)

	// The expected rows, loaded as one snapshot of distinct ids into a
	// table of their own, give the count and checksum every order must.
	ref := t.TempDir()
	e := NewEnv(t, h)
	j := quakesJob(t, e, ref)
	header, want, deleted, byContent := quakesExpected(t, variants, j.Columns)
	t.Logf("expected: %d rows, %d ids end deleted, %d rows won by content at an equal version", len(want), deleted, byContent)
	require.Greater(t, deleted, 10)
	require.Greater(t, byContent, 10)
	writeCSV(t, filepath.Join(ref, filepath.Base(files[0])), append([][]string{header}, want...))
	r := e.MustRun(j, dates[0])
	require.Equal(t, int64(len(want)), r.Inserted)
	wantSum := e.Checksum("", "_loaded_at")

	orders := [][]string{dates, slices.Clone(dates)}
	slices.Reverse(orders[1])
	seeds := []uint64{1, 2, 3}
	if testing.Short() { // the inner loop: file order, reversed and one shuffle
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		o := slices.Clone(dates)
		rand.New(rand.NewPCG(seed, 7)).Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
		orders = append(orders, o)
	}
	at := map[string]int{}
	for i, f := range header {
		at[f] = i
	}
	for n, order := range orders {
		t.Run(fmt.Sprintf("order%d", n), func(t *testing.T) {
			t.Parallel() // each order loads a target of its own
			quakesInOrder(t, h, data, n, order, dates, want, at, wantSum)
		})
	}
}

// quakesInOrder loads the snapshots of data in order into a new target,
// compares it with want, and (for the first order) replays every earlier
// snapshot with --force.
func quakesInOrder(t *testing.T, h Harness, data string, n int, order, dates []string, want [][]string, at map[string]int, wantSum Sum) {
	e := NewEnv(t, h)
	j := quakesJob(t, e, data)
	for _, d := range order {
		e.MustRun(j, d)
	}
	require.Equal(t, wantSum, e.Checksum("", "_loaded_at"), "order %d: %v", n, order)
	got := e.Query(`SELECT id, updated, status, mag, place, is_deleted FROM quakes ORDER BY id`)
	require.Len(t, got, len(want))
	for i := range got {
		// The database renders times and numbers its own way: compare
		// updated to the millisecond and mag as a number.
		g, w := strings.Split(got[i], "|"), want[i]
		require.Equal(t, w[at["id"]], g[0])
		require.Equal(t, w[at["status"]], g[2], g[0])
		require.Equal(t, w[at["place"]], g[4], g[0])
		require.Equal(t, "false", g[5], g[0])
		require.Zero(t, compareTyped(t, "DOUBLE", w[at["mag"]], g[3]), "%s mag", g[0])
		require.Equal(t, strings.TrimSuffix(w[at["updated"]], "Z")[:19], strings.Replace(g[1], " ", "T", 1)[:19], g[0])
	}

	if n == 0 {
		for _, d := range dates[:len(dates)-1] {
			r := e.MustRun(j, d, Force)
			require.Equal(t, int64(0), r.Inserted+r.Updated+r.Deleted+r.DeletedAbsent, d)
			require.Greater(t, r.SkippedOlder, int64(0), d)
		}
		require.Equal(t, wantSum, e.Checksum("", "_loaded_at"), "after --force replays")
	}
}

// A real order log with 272 exact duplicate rows: each is loaded once.
func testOnlineRetail(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	require.NoError(t, os.Symlink(repoFile("engine", "enginetest", "testdata", "online-retail"), filepath.Join(e.Dir, "retail")))
	j := e.Job(`job: retail
source:
  files: retail/online_retail_*.csv
strategy: merge
key: [InvoiceNo, StockCode, Quantity, InvoiceDate, UnitPrice]
latest_by: run
columns:
  InvoiceNo: VARCHAR
  StockCode: VARCHAR
  CustomerID: VARCHAR
  InvoiceDate: TIMESTAMP
  UnitPrice: DECIMAL(10,2)
`)
	r := e.MustRun(j, "2010-12-07")
	require.Equal(t, int64(16985), r.RowsIn)
	require.Equal(t, int64(272), r.RowsDeduped)
	require.Equal(t, int64(16713), r.Inserted)
	require.Equal(t, int64(16713), e.Checksum("").Rows)
}

// A column the input brings later is added to the target
// (on_schema_change: add_columns) and to the tombstone table alike.
func testMergeTombstonesNewColumn(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-03.csv", customerSnapshots["2026-11-03"])
	e.Write("in/2026-11-04.csv", "customer_id,name,tier,updated_at,is_deleted,channel\n"+
		"4,Dee,gold,2026-11-04 09:00:00,true,web\n6,Fay,gold,2026-11-04 09:00:00,false,shop\n")
	j := e.Job(customersJob + "on_schema_change: add_columns\n")
	e.MustRun(j, "2026-11-03")
	r := e.MustRun(j, "2026-11-04")
	require.Equal(t, int64(1), r.Deleted)
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, []string{"3|NULL", "4|web"}, e.Query(`SELECT customer_id, channel FROM `+e.Sales("orders__idem_deleted")+` ORDER BY customer_id`))
	require.Equal(t, []string{"6|shop"}, e.Rows("", "customer_id", "channel"))
}

// An idem_runs an older version created, without deleted_absent, gains the
// column; its rows read as 0.
func testLedgerOlderVersion(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Exec(h.spell().OldLedger...)
	e.Write("in/2026-11-03.csv", customerSnapshots["2026-11-03"])
	r := e.MustRun(e.Job(customersJob), "2026-11-03")
	require.Equal(t, int64(1), r.DeletedAbsent)
	require.Equal(t, []string{"old|0", "customers|1"},
		e.Query(`SELECT job, deleted_absent FROM idem_runs ORDER BY seq, job DESC`))
}
