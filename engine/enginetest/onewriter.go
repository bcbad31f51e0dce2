package enginetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// One writer per table: locks are keyed on the table, and a table has one
// owning job unless its jobs say otherwise.
var oneWriterCases = []testCase{
	{"SecondJobOnATableRefused", testSecondJobRefused},
	{"TwoJobsOnOnePartitionAtOnce", testTwoJobsAtOnce},
	{"MergeAndPartitionRunsOnOneTableAtOnce", testMergeBesidePartition},
}

func namedJob(body, name string) string {
	return strings.Replace(body, "job: ", "job: "+name+"_", 1)
}

func testSecondJobRefused(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	a := e.Job(namedJob(filesJob, "a"))
	e.MustRun(a, "2026-11-28")
	before := e.Checksum("", "_loaded_at")

	b := e.Job(namedJob(filesJob, "b"))
	e.RequireUntouched(func() {
		_, err := e.Run(b, "2026-11-28")
		var je *job.Error
		require.ErrorAs(t, err, &je, "%v", err)
		require.Contains(t, err.Error(), `target.table: `)
		require.Contains(t, err.Error(), `.orders is loaded by job "a_orders_daily"`)
	})
	require.Equal(t, before, e.Checksum("", "_loaded_at"))

	shared := e.jobWithTarget(namedJob(filesJob, "b"), true, "a_orders_daily")
	r := e.MustRun(shared, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, r.Action, "declared: both jobs may write the table")
	require.Equal(t, before, e.Checksum("", "_loaded_at"))
}

// Two job files writing one table and partition at once never double it:
// they take turns on the table's lock, and the second either finds the
// table owned by the first (exit 2) or, when the jobs declare each other,
// replaces the partition with the same rows.
func testTwoJobsAtOnce(t *testing.T, h Harness) {
	for _, declared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared_with=%v", declared), func(t *testing.T) {
			e := NewEnv(t, h)
			e.Write("in/orders.csv", orders)
			a := e.jobWithTarget(namedJob(filesJob, "a"), declared, "b_orders_daily")
			b := e.jobWithTarget(namedJob(filesJob, "b"), declared, "a_orders_daily")
			args := func(j *job.Job) []string {
				return []string{"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json"}
			}
			runs := runConcurrently(t, args(a), args(b))
			codes := []int{runs[0].code, runs[1].code}
			if declared {
				require.Equal(t, []int{0, 0}, codes, "%+v", runs)
			} else {
				require.ElementsMatch(t, []int{0, 2}, codes, "%+v", runs)
				for _, r := range runs {
					if r.code == 2 {
						require.Contains(t, r.stderr, "is loaded by job")
					}
				}
			}
			require.Equal(t, []string{"2", "3", "4", "6"}, e.Rows("", "order_id"), "one copy of the partition")
		})
	}
}

// A merge job and a partition job declared on one table, run at once:
// the merge excludes the partition run, so no key is inserted twice and
// later merges still work.
func testMergeBesidePartition(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	e.Write("in/2026-11-28.csv", orders)
	p := e.jobWithTarget(filesJob, true, "orders_merge")
	m := e.jobWithTarget(mergeJob, true, "orders_daily")
	runs := runConcurrently(t,
		[]string{"run", p.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json"},
		[]string{"run", m.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json"})
	for _, r := range runs {
		require.Equal(t, 0, r.code, r.stderr)
	}
	require.Equal(t, []string{"1", "2", "3", "4", "5", "6"}, e.Rows("", "order_id"), "no key twice")
	e.Write("in/2026-11-29.csv", orders+"7,16,2026-11-29 10:00:00,placed,2.00,2026-11-29 10:00:00\n")
	r := e.MustRun(m, "2026-11-29")
	require.Equal(t, runner.ActionLoaded, r.Action)
	require.Equal(t, int64(1), r.Inserted)

	// Either may run first: here the merge job creates the table, and the
	// partition job then replaces its partition's rows, and only those.
	e = NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	e.Write("in/2026-11-28.csv", orders+"7,16,2026-11-29 10:00:00,placed,2.00,2026-11-29 10:00:00\n")
	p = e.jobWithTarget(filesJob, true, "orders_merge")
	m = e.jobWithTarget(mergeJob, true, "orders_daily")
	require.Equal(t, runner.ActionLoaded, e.MustRun(m, "2026-11-28").Action)
	e.Exec(`DELETE FROM ` + e.Sales("orders") + ` WHERE order_id = 2`)
	r = e.MustRun(p, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, r.Action)
	require.Equal(t, int64(4), r.Inserted)
	require.Equal(t, []string{"1", "2", "3", "4", "5", "6", "7"}, e.Rows("", "order_id"), "the partition's rows replaced, the others kept")
}
