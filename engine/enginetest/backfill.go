package enginetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/runner"
)

// Backfills: a range of partitions, each its own run, resumable, in one
// process; and `idem status`, which reads what they left.
var backfillCases = []testCase{
	{"BackfillSameRunsAsDailyRuns", testBackfillSameRuns},
	{"BackfillFailedPartitionDoesNotStopOthers", testBackfillFailure},
	{"BackfillKilledHalfwayResumes", testBackfillKilled},
	{"BackfillOverlappingAtOnce", testBackfillOverlapping},
	{"StatusGapsFailuresOpen", testStatus},
	{"FailureRecordedOutsideTheRun", testFailureRecord},
}

// dailyJob reads one tiny file per day.
const dailyJob = `job: orders_daily
source:
  files: in/{{ date }}.csv
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

const dailyHeader = "order_id,customer_id,created_at,status,amount,updated_at\n"

// october are the 31 days of 2026-10.
func october() []string {
	var ds []string
	for d := 1; d <= 31; d++ {
		ds = append(ds, fmt.Sprintf("2026-10-%02d", d))
	}
	return ds
}

// backfillDays are the days the long backfill cases cover: the whole
// month, or its first 5 days with -short (the same guarantee, a kill after
// 2 of 5 partitions and two backfills overlapping on 2 days, at a sixth of
// the runs).
func backfillDays() []string {
	if testing.Short() {
		return october()[:5]
	}
	return october()
}

// writeDays writes two rows (and a duplicate) for each day.
func writeDays(e *Env, days []string) {
	for i, d := range days {
		id := (i + 1) * 10
		e.Write("in/"+d+".csv", dailyHeader+
			fmt.Sprintf("%d,1,%s 09:00:00,placed,%d.50,%s 09:00:00\n", id, d, i, d)+
			fmt.Sprintf("%d,2,%s 17:30:00,shipped,1.25,%s 18:00:00\n", id+1, d, d)+
			fmt.Sprintf("%d,2,%s 17:30:00,shipped,1.25,%s 18:00:00\n", id+1, d, d))
	}
}

const octAsOf = "2026-12-01T00:00:00Z"

// backfillOutput is a finished backfill's --json output.
type backfillOutput struct {
	results []runner.Result
	summary map[string]any
}

func (o backfillOutput) actions() map[string]string {
	m := map[string]string{}
	for _, r := range o.results {
		m[r.Partition] = r.Action
	}
	return m
}

func parseBackfill(t *testing.T, stdout string) backfillOutput {
	t.Helper()
	var o backfillOutput
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		if strings.HasPrefix(line, `{"summary":true`) {
			require.NoError(t, json.Unmarshal([]byte(line), &o.summary), line)
			continue
		}
		var r runner.Result
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		o.results = append(o.results, r)
	}
	require.NotNil(t, o.summary, "the last line is the summary: %s", stdout)
	return o
}

func (e *Env) backfill(args ...string) (int, backfillOutput, string) {
	e.t.Helper()
	code, stdout, stderr := RunBinary(e.t, nil, append([]string{"backfill", "--json", "--as-of", octAsOf}, args...)...)
	return code, parseBackfill(e.t, stdout), stderr
}

// dayWhere selects one day's rows of created_at.
func dayWhere(d string) string {
	t, _ := time.Parse("2006-01-02", d)
	return fmt.Sprintf("created_at >= TIMESTAMP '%s 00:00:00' AND created_at < TIMESTAMP '%s 00:00:00'", d, t.AddDate(0, 0, 1).Format("2006-01-02"))
}

// daySums is each day's row count and checksum, read in one connection.
func (e *Env) daySums(days []string) map[string]Sum {
	e.t.Helper()
	out := map[string]Sum{}
	e.DB(func(ctx context.Context, db engine.DB) {
		for _, d := range days {
			n, sum, err := runner.TableChecksum(ctx, db, e.Table, dayWhere(d), []string{"_loaded_at"})
			require.NoError(e.t, err)
			out[d] = Sum{n, sum}
		}
	})
	return out
}

// ledgerCounts is the number of idem_runs rows per partition of a job.
func (e *Env) ledgerCounts(jobName string) map[string]int {
	e.t.Helper()
	out := map[string]int{}
	for _, row := range e.Query(`SELECT "partition", count(*) FROM idem_runs WHERE job = '` + jobName + `' GROUP BY 1`) {
		p, n, _ := strings.Cut(row, "|")
		var c int
		fmt.Sscan(n, &c)
		out[p] = c
	}
	return out
}

// cleanSums is a clean backfill of october into a fresh target.
func cleanSums(t *testing.T, h Harness) map[string]Sum {
	t.Helper()
	e := NewEnv(t, h)
	days := backfillDays()
	writeDays(e, days)
	j := e.Job(dailyJob)
	code, out, stderr := e.backfill(j.Path, "--from", days[0], "--to", days[len(days)-1])
	require.Equal(t, 0, code, stderr)
	require.Len(t, out.results, len(days))
	return e.daySums(days)
}

// A backfill's partitions are the runs `idem run` would do: the same run
// ids, so a daily run after a backfill skips, and a backfill after daily
// runs skips what they loaded.
func testBackfillSameRuns(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	days := october()[:5]
	writeDays(e, days)
	j := e.Job(strings.Replace(dailyJob, "  column: created_at", "  column: created_at\n  lookback: 1", 1))
	rs, err := idem.Run(t.Context(), j, idem.Options{Date: "2026-10-02", AsOf: e.Now})
	require.NoError(t, err)
	require.Len(t, rs, 2, "the daily run rebuilds 10-01 too")
	code, out, stderr := e.backfill(j.Path, "--from", "2026-10-01", "--to", "2026-10-05", "--parallel", "2")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, map[string]string{"2026-10-01": "skipped", "2026-10-02": "skipped", "2026-10-03": "loaded",
		"2026-10-04": "loaded", "2026-10-05": "loaded"}, out.actions(), "lookback does not apply; what the daily run loaded is skipped")
	require.EqualValues(t, 3, out.summary["loaded"])
	require.EqualValues(t, 2, out.summary["skipped"])
	if idem.ConcurrentWriters(e.URL) {
		require.EqualValues(t, 2, out.summary["workers"])
	} else {
		require.EqualValues(t, 1, out.summary["workers"])
		require.Contains(t, stderr, "DuckDB allows one writing process per file", "--parallel on DuckDB says why it has no effect")
	}
	runIDs := map[string]string{}
	for _, r := range out.results {
		runIDs[r.Partition] = r.RunID
	}
	for _, d := range days[1:] { // each with its lookback partition
		rs, err := idem.Run(t.Context(), j, idem.Options{Date: d, AsOf: e.Now})
		require.NoError(t, err)
		for _, r := range rs {
			require.Equal(t, runner.ActionSkipped, r.Action, r.Partition)
			require.Equal(t, runIDs[r.Partition], r.RunID, r.Partition)
		}
	}
	for p, n := range e.ledgerCounts(j.Name) {
		require.Equal(t, 1, n, p)
	}
}

// A failed partition does not stop the others; the exit is 1 and the
// summary names it. Partitions not closed yet give 75 when none failed.
func testBackfillFailure(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	days := october()[:4]
	writeDays(e, days)
	e.Write("in/2026-10-02.csv", dailyHeader) // an empty delivery
	j := e.Job(dailyJob)
	code, out, stderr := e.backfill(j.Path, "--from", "2026-10-01", "--to", "2026-10-04")
	require.Equal(t, 1, code, stderr)
	require.Equal(t, map[string]string{"2026-10-01": "loaded", "2026-10-02": "failed", "2026-10-03": "loaded", "2026-10-04": "loaded"}, out.actions())
	require.Equal(t, []any{"2026-10-02"}, out.summary["failed"])
	require.Contains(t, stderr, "2026-10-02")

	// Fixed, rerun: only the failed partition loads.
	writeDays(e, days)
	code, out, stderr = e.backfill(j.Path, "--from", "2026-10-01", "--to", "2026-10-04")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, map[string]string{"2026-10-01": "skipped", "2026-10-02": "loaded", "2026-10-03": "skipped", "2026-10-04": "skipped"}, out.actions())

	// The last partition is not closed at this as-of: 75, named.
	writeDays(e, october()[:6])
	code, stdout, stderr := RunBinary(t, nil, "backfill", j.Path, "--from", "2026-10-04", "--to", "2026-10-06", "--as-of", "2026-10-06T12:00:00Z", "--json")
	require.Equal(t, 75, code, stderr)
	out = parseBackfill(t, stdout)
	require.Equal(t, map[string]string{"2026-10-04": "skipped", "2026-10-05": "loaded", "2026-10-06": "not_closed"}, out.actions())
	require.Equal(t, []any{"2026-10-06"}, out.summary["not_closed"])

	// A usage error touches nothing.
	code, _, stderr = RunBinary(t, nil, "backfill", j.Path, "--from", "2026-10-04", "--to", "2026-10-01")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--to 2026-10-01 is before --from 2026-10-04")
}

// A backfill killed (SIGKILL) about halfway, then rerun, loads only the
// partitions that had not committed, and ends equal, partition by
// partition, to a clean backfill.
func testBackfillKilled(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	days := backfillDays()
	first, last, half := days[0], days[len(days)-1], len(days)/2
	writeDays(e, days)
	j := e.Job(dailyJob)

	cmd := exec.Command(Binary(t), "backfill", j.Path, "--from", first, "--to", last, "--as-of", octAsOf, "--json")
	cmd.Env = os.Environ()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	seen := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"action":"loaded"`) {
			seen++
		}
		if seen == half { // each line is printed after its partition committed
			require.NoError(t, cmd.Process.Kill()) // SIGKILL: no cleanup, no rollback
			break
		}
	}
	err = cmd.Wait()
	require.Error(t, err, "killed")
	require.Equal(t, half, seen)

	committed := e.ledgerCounts(j.Name)
	require.GreaterOrEqual(t, len(committed), half)
	require.Less(t, len(committed), len(days), "killed before the end")

	code, out, stderr := e.backfill(j.Path, "--from", first, "--to", last)
	require.Equal(t, 0, code, stderr)
	require.Len(t, out.results, len(days))
	for _, r := range out.results {
		want := runner.ActionLoaded
		if committed[r.Partition] > 0 {
			want = runner.ActionSkipped
		}
		require.Equal(t, want, r.Action, "%s: only the missing partitions load", r.Partition)
	}
	require.EqualValues(t, len(days)-len(committed), out.summary["loaded"])
	for p, n := range e.ledgerCounts(j.Name) {
		require.Equal(t, 1, n, p)
	}
	require.Equal(t, cleanSums(t, h), e.daySums(days))
}

// Two overlapping backfills started together (days 1-20 and 11-31 of the
// month; 1-3 and 2-5 with -short; three
// partitions at once each where the engine has concurrent writers) end
// equal to one clean backfill, with no partition doubled.
func testBackfillOverlapping(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	days := backfillDays()
	n := len(days)
	writeDays(e, days)
	j := e.Job(dailyJob)
	runs := runConcurrently(t,
		[]string{"backfill", j.Path, "--from", days[0], "--to", days[n*2/3-1], "--parallel", "3", "--as-of", octAsOf, "--json"},
		[]string{"backfill", j.Path, "--from", days[n/3], "--to", days[n-1], "--parallel", "3", "--as-of", octAsOf, "--json"})
	loaded := map[string]int{}
	for _, r := range runs {
		require.Equal(t, 0, r.code, r.stderr)
		for _, res := range parseBackfill(t, r.stdout).results {
			require.Contains(t, []string{runner.ActionLoaded, runner.ActionSkipped}, res.Action)
			if res.Action == runner.ActionLoaded {
				loaded[res.Partition]++
			}
		}
	}
	require.Len(t, loaded, n)
	for p, n := range loaded {
		require.Equal(t, 1, n, "%s loaded once, skipped by the other backfill", p)
	}
	for p, n := range e.ledgerCounts(j.Name) {
		require.Equal(t, 1, n, p)
	}
	require.Equal(t, cleanSums(t, h), e.daySums(days))
	require.Equal(t, int64(2*n), e.Checksum("").Rows)
}

// statusOutput is `idem status --json`'s output.
type statusOutput struct {
	parts   map[string]idem.PartitionStatus
	summary map[string]any
}

func (e *Env) status(args ...string) (int, statusOutput) {
	e.t.Helper()
	code, stdout, stderr := RunBinary(e.t, nil, append([]string{"status", "--json"}, args...)...)
	require.Contains(e.t, []int{0, 3}, code, stderr)
	o := statusOutput{parts: map[string]idem.PartitionStatus{}}
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		if strings.HasPrefix(line, `{"summary":true`) {
			require.NoError(e.t, json.Unmarshal([]byte(line), &o.summary), line)
			continue
		}
		var p idem.PartitionStatus
		require.NoError(e.t, json.Unmarshal([]byte(line), &p), line)
		o.parts[p.Partition] = p
	}
	return code, o
}

// status shows gaps, the last failure and whether a later run fixed it,
// and partitions loaded while open until a run confirms them closed; its
// exit is 0 only when the whole range is loaded and closed.
func testStatus(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	days := october()[:6]
	writeDays(e, days)
	j := e.Job(strings.Replace(dailyJob, "  column: created_at", "  column: created_at\n  closed_after: 6h", 1))
	at := func(ts string) func(*idem.Options) {
		return func(o *idem.Options) { o.AsOf, _ = time.Parse(time.RFC3339, ts) }
	}
	e.MustRun(j, "2026-10-01", at(octAsOf))
	e.MustRun(j, "2026-10-02", at(octAsOf))
	e.Write("in/2026-10-04.csv", dailyHeader) // empty: fails
	_, err := e.Run(j, "2026-10-04", at(octAsOf))
	require.Error(t, err)
	e.MustRun(j, "2026-10-05", at("2026-10-05T20:00:00Z"), func(o *idem.Options) { o.AllowOpen = true })

	code, s := e.status(j.Path)
	require.Equal(t, 3, code)
	require.Equal(t, "2026-10-01", s.summary["from"])
	require.Equal(t, "2026-10-05", s.summary["to"], "from the first to the last partition the ledger knows")
	require.Equal(t, []any{"2026-10-03"}, s.summary["missing"])
	require.Equal(t, []any{"2026-10-04"}, s.summary["failed"])
	require.Equal(t, []any{"2026-10-05"}, s.summary["open"])
	require.Equal(t, idem.StateLoaded, s.parts["2026-10-01"].State)
	require.NotEmpty(t, s.parts["2026-10-01"].RunID)
	require.EqualValues(t, 2, s.parts["2026-10-01"].RowCount)
	f := s.parts["2026-10-04"].LastFailure
	require.NotNil(t, f)
	require.Contains(t, f.Error, "the input has no rows")
	require.False(t, f.Fixed)
	require.True(t, s.parts["2026-10-05"].LoadedOpen)

	code, s = e.status(j.Path, "--from", "2026-10-01", "--to", "2026-10-02")
	require.Equal(t, 0, code, "the range is loaded and closed")
	require.Len(t, s.parts, 2)

	// Fix 10-04, confirm 10-05 now that it is closed (same input), load 10-03.
	writeDays(e, days)
	e.MustRun(j, "2026-10-04", at(octAsOf))
	r := e.MustRun(j, "2026-10-05", at(octAsOf))
	require.Equal(t, runner.ActionLoaded, r.Action, "a run after closing confirms a partition loaded while open")
	require.Contains(t, r.Reloaded, "while it was open")
	e.MustRun(j, "2026-10-03", at(octAsOf))
	code, s = e.status(j.Path)
	require.Equal(t, 0, code, "%v", s.summary)
	require.True(t, s.parts["2026-10-04"].LastFailure.Fixed, "the failure shows, fixed")
	require.Equal(t, idem.StateLoaded, s.parts["2026-10-04"].State)
	require.False(t, s.parts["2026-10-05"].LoadedOpen)
	r = e.MustRun(j, "2026-10-05", at(octAsOf))
	require.Equal(t, runner.ActionSkipped, r.Action, "confirmed once, then skipped")

	code, s = e.status(j.Path, "--from", "2026-10-01", "--to", "2026-10-07")
	require.Equal(t, 3, code)
	require.Equal(t, []any{"2026-10-06", "2026-10-07"}, s.summary["missing"])
}

// A failed run leaves a record in idem_failures, written after its
// transaction rolled back (the target untouched); a retry of the same run
// id overwrites it. Job-file errors leave none.
func testFailureRecord(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	writeDays(e, october()[:3])
	require.NoError(t, os.Remove(e.Dir+"/in/2026-10-02.csv"))
	j := e.Job(dailyJob)
	e.MustRun(j, "2026-10-01")
	before := e.Checksum("", "_loaded_at")

	bad := dailyHeader + "99,1,2026-10-01 10:00:00,placed,not-a-number,2026-10-01 10:00:00\n"
	e.Write("in/2026-10-01.csv", bad)
	r1, err := e.Run(j, "2026-10-01")
	require.Error(t, err)
	_, err = e.Run(j, "2026-10-01")
	require.Error(t, err)
	require.Equal(t, before, e.Checksum("", "_loaded_at"), "the target is untouched")
	rows := e.Query(`SELECT "partition", run_id, seq FROM idem_failures`)
	require.Equal(t, []string{"2026-10-01|" + r1.RunID + "|2"}, rows, "a retry of the same run id overwrites its record")

	// A partition never loaded: no skip is possible, so its input is hashed
	// beside the load; the failure still names the run id.
	e.Write("in/2026-10-04.csv", strings.ReplaceAll(bad, "2026-10-01", "2026-10-04"))
	r4, err := e.Run(j, "2026-10-04")
	require.Error(t, err)
	require.NotEmpty(t, r4.RunID)
	require.Equal(t, []string{"2026-10-04|" + r4.RunID}, e.Query(`SELECT "partition", run_id FROM idem_failures WHERE "partition" = '2026-10-04'`))

	_, err = e.Run(j, "2026-10-02") // no file: fails before its run id is known
	require.Error(t, err)
	require.Equal(t, []string{"2026-10-02|"}, e.Query(`SELECT "partition", run_id FROM idem_failures WHERE "partition" = '2026-10-02'`))

	badJob := e.Job(strings.Replace(dailyJob, "key: [order_id]", "key: [order_idd]", 1))
	_, err = e.Run(badJob, "2026-10-03", Force)
	require.Error(t, err)
	require.Empty(t, e.Query(`SELECT run_id FROM idem_failures WHERE "partition" = '2026-10-03'`), "a job-file error records nothing")
}
