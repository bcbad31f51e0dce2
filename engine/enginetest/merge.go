package enginetest

import (
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

var mergeCases = []struct {
	name string
	fn   func(*testing.T, Harness)
}{
	{"MergeRunTwice", testMergeRunTwice},
	{"MergeOlderFileLateChangesNothing", testMergeOlderLate},
	{"MergeDeleteWhen", testMergeDeleteWhen},
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
	require.Equal(t, int64(2), r.SkippedOlder, "order 2: an older delete changes nothing; order 3: nothing to delete")
	require.Equal(t, []string{"2"}, e.Rows("", "order_id"))
}

func testMergeMissingKey(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-28.csv", orders)
	e.MustRun(e.Job(mergeJob), "2026-11-28")
	before := e.Checksum("", "_loaded_at")
	e.Write("in/2026-11-29.csv", strings.Replace(orders, "placed", "shipped", -1))

	bad := e.Job(strings.Replace(mergeJob, "key: [order_id]", "key: [order_idd]", 1))
	_, err := e.Run(bad, "2026-11-29")
	var je *job.Error
	require.ErrorAs(t, err, &je)
	require.Contains(t, err.Error(), `key[0]: column "order_idd" is not in the source`)
	require.Equal(t, before, e.Checksum("", "_loaded_at"))
}

func testMergeGeneratedKey(t *testing.T, h Harness) {
	if h.GeneratedKeyTable == nil {
		t.Fatal("the harness must give GeneratedKeyTable")
	}
	e := NewEnv(t, h)
	e.Exec(h.GeneratedKeyTable("sales", "orders")...)
	e.Write("in/2026-11-28.csv", "order_id,status,updated_at\n1,placed,2026-11-28 10:00:00\n")
	j := e.Job(`job: generated
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id]
latest_by: updated_at
`)
	_, err := e.Run(j, "2026-11-28")
	var je *job.Error
	require.ErrorAs(t, err, &je)
	require.Contains(t, err.Error(), `key[0]: column "order_id" of sales.orders is generated by the database`)
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

// newestByID computes, independently of idem, every id's row with the
// greatest `updated` across the snapshots, as "id|updated|status|mag".
func newestByID(t *testing.T, files []string) []string {
	best := map[string][]string{}
	var idx map[string]int
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		require.NoError(t, err)
		idx = map[string]int{}
		for i, c := range recs[0] {
			idx[c] = i
		}
		for _, r := range recs[1:] {
			id := r[idx["id"]]
			if cur, ok := best[id]; !ok || r[idx["updated"]] > cur[idx["updated"]] {
				best[id] = r
			}
		}
	}
	var out []string
	for id, r := range best {
		out = append(out, strings.Join([]string{id, r[idx["updated"]], r[idx["status"]], r[idx["mag"]]}, "|"))
	}
	sort.Strings(out)
	return out
}

func quakesJob(t *testing.T, e *Env) *job.Job {
	t.Helper()
	data, err := os.ReadFile(repoFile("examples", "quakes", "quakes.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.Symlink(repoFile("examples", "quakes", "data"), filepath.Join(e.Dir, "data")))
	e.Table = engine.Table{Name: "quakes"}
	j, err := job.Parse(data, e.Dir, func(k string) (string, bool) { return e.URL, k == "IDEM_TARGET" })
	require.NoError(t, err)
	j.Path = e.Write("quakes.yaml", string(data))
	return j
}

// The 13 USGS snapshots in file order, reversed and shuffled give one
// table: every id's newest row.
func testQuakesOrderIndependent(t *testing.T, h Harness) {
	files, dates := quakeRuns(t)
	want := newestByID(t, files)
	require.Len(t, want, 1378)

	reversed := slices.Clone(dates)
	slices.Reverse(reversed)
	shuffled := slices.Clone(dates)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	var sums []Sum
	for _, order := range [][]string{dates, reversed, shuffled} {
		e := NewEnv(t, h)
		j := quakesJob(t, e)
		for _, d := range order {
			e.MustRun(j, d)
		}
		sums = append(sums, e.Checksum("", "_loaded_at"))
		got := e.Query(`SELECT id, updated, status, mag FROM quakes ORDER BY id`)
		require.Len(t, got, len(want))
		for i := range got {
			// The database renders times its own way: compare id, status
			// and mag exactly, and updated to the millisecond.
			g, w := strings.Split(got[i], "|"), strings.Split(want[i], "|")
			require.Equal(t, w[0], g[0])
			require.Equal(t, w[2], g[2], w[0])
			require.Equal(t, strings.TrimSuffix(w[1], "Z")[:19], strings.Replace(g[1], " ", "T", 1)[:19], w[0])
		}

		if len(sums) == 1 {
			// Any earlier snapshot, reloaded after the last, changes nothing.
			for _, d := range dates[:len(dates)-1] {
				r := e.MustRun(j, d, Force)
				require.Equal(t, int64(0), r.Updated, d)
				require.Equal(t, int64(0), r.Inserted, d)
				require.Greater(t, r.SkippedOlder, int64(0), d)
			}
			require.Equal(t, sums[0], e.Checksum("", "_loaded_at"))
		}
	}
	require.Equal(t, sums[0], sums[1], "reverse order")
	require.Equal(t, sums[0], sums[2], "shuffled order")
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
latest_by: InvoiceDate
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
