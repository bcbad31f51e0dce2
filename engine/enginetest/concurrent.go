package enginetest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

var concurrentCases = []testCase{
	{"ConcurrentRunsOfOnePartition", testConcurrentRuns},
	{"ConcurrentMergesOfOneJob", testConcurrentMerges},
	{"FirstLoadFindsTargetCreatedMeanwhile", testFirstLoadCreatedMeanwhile},
	{"FirstLoadWhileAnotherCreates", testFirstLoadWhileAnotherCreates},
}

// binaryRun is one finished idem process.
type binaryRun struct {
	code           int
	stdout, stderr string
	err            error // the process could not run at all
}

// runConcurrently starts one idem process per argument list at once and
// waits for all. (RunBinary fails the test, which only the test's own
// goroutine may do.)
func runConcurrently(t *testing.T, argLists ...[]string) []binaryRun {
	t.Helper()
	bin := Binary(t)
	out := make([]binaryRun, len(argLists))
	var wg sync.WaitGroup
	for i, args := range argLists {
		wg.Go(func() {
			cmd := exec.Command(bin, args...)
			cmd.Env = os.Environ()
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee):
				out[i].code = ee.ExitCode()
			default:
				out[i].err = err
			}
			out[i].stdout, out[i].stderr = stdout.String(), stderr.String()
		})
	}
	wg.Wait()
	for _, r := range out {
		require.NoError(t, r.err)
	}
	return out
}

// results parses the --json lines of finished runs that exited 0. A run
// that exited 75 waited for the lock longer than its timeout: allowed, and
// it must say so.
func results(t *testing.T, runs []binaryRun) []runner.Result {
	t.Helper()
	var rs []runner.Result
	for _, r := range runs {
		if r.code == 75 {
			require.Contains(t, r.stderr, "locked", "exit 75 only for a lock wait that ran out")
			continue
		}
		require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
		for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
			var res runner.Result
			require.NoError(t, json.Unmarshal([]byte(line), &res), line)
			rs = append(rs, res)
		}
	}
	return rs
}

// Two processes load the same partition at once: the second waits for the
// first's lock (DuckDB's file lock, a server's advisory lock), then finds
// the run done. The table is what one run writes; the ledger has one row.
func testConcurrentRuns(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	args := []string{"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json"}
	rs := results(t, runConcurrently(t, args, args))

	var loaded []runner.Result
	for _, r := range rs {
		switch r.Action {
		case runner.ActionLoaded:
			loaded = append(loaded, r)
		case runner.ActionSkipped:
		default:
			t.Fatalf("unexpected action %q", r.Action)
		}
	}
	require.Len(t, loaded, 1, "one run loads, the other finds it done: %+v", rs)
	require.Equal(t, Sum{Rows: loaded[0].RowCount, Checksum: loaded[0].Checksum}, e.Checksum(day28, "_loaded_at"))
	require.Equal(t, []string{"2", "3", "4", "6"}, e.Rows("", "order_id"))
	require.Equal(t, 1, e.LedgerRows(j.Name, "2026-11-28", loaded[0].RunID))
	require.Equal(t, 1, e.LedgerRows(j.Name, "2026-11-28", ""))
}

// Merge runs of one job named by different dates write the same table: they
// take turns too, or two of them could both insert one new key.
func testConcurrentMerges(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	header, first, _ := strings.Cut(orders, "\n")
	first, _, _ = strings.Cut(first, "\n")
	e.Write("in/2026-11-27.csv", header+"\n"+first+"\n")
	e.Write("in/2026-11-28.csv", orders)
	e.Write("in/2026-11-29.csv", orders+"7,16,2026-11-29 10:00:00,placed,2.00,2026-11-29 10:00:00\n")
	j := e.Job(mergeJob)
	// The table exists before the race: creating it is serialized anyway.
	e.MustRun(j, "2026-11-27")
	rs := results(t, runConcurrently(t,
		[]string{"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json"},
		[]string{"run", j.Path, "--date", "2026-11-29", "--as-of", "2026-12-01T00:00:00Z", "--json"}))
	require.Len(t, rs, 2)
	var inserted int64
	for _, r := range rs {
		require.Equal(t, runner.ActionLoaded, r.Action)
		inserted += r.Inserted
	}
	require.Equal(t, int64(6), inserted, "each new key is inserted once: %+v", rs)
	require.Equal(t, []string{"1", "2", "3", "4", "5", "6", "7"}, e.Rows("", "order_id"))
}

// A first load of one partition finds no target and, before it builds
// one, a first load of another partition creates it (two backfills
// starting at once): the later run loads into the table the other
// created, as a run that found it would have. CI once saw this fail on
// MySQL (exit 1, "column created_at is not in the source (its columns: )"):
// the table's lock, taken before staging, compared the job's columns with
// an input not yet read.
func testFirstLoadCreatedMeanwhile(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	if u, err := job.ParseTargetURL(e.URL); err != nil || !u.Driver.ConcurrentWriters {
		t.Skip("one process holds this engine's target at a time: a second run waits at open, so no two first loads interleave")
	}
	withKey := strings.Replace(filesJob, "loaded_at: _loaded_at\n", "", 1) // loaded_at takes no direct first load
	noKey := strings.Replace(strings.Replace(withKey, "key: [order_id]\n", "", 1), "latest_by: updated_at\n", "", 1)
	inputs := map[string]string{
		"repeated key": orders,
		"unique keys":  strings.Replace(orders, "3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00\n", "", 1),
	}
	for _, body := range []struct{ name, text string }{{"key", withKey}, {"no key", noKey}} {
		for name, input := range inputs {
			t.Run(body.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				// Each in a test of its own: on MySQL a test's targets share
				// its schemas (Harness.Schemas).
				var wantRows []string
				var wantSum Sum
				t.Run("one after the other", func(t *testing.T) {
					ref := NewEnv(t, h)
					ref.Write("in/orders.csv", input)
					rj := ref.Job(body.text)
					ref.MustRun(rj, "2026-11-27")
					ref.MustRun(rj, "2026-11-28")
					wantRows, wantSum = ref.Rows("", allCols...), ref.Checksum(day28)
				})
				e := NewEnv(t, h)
				e.Write("in/orders.csv", input)
				j := e.Job(body.text)
				goOn := filepath.Join(e.Dir, "go-on")
				later := startWaiting(t, []string{"IDEM_WAIT_AT=" + runner.WaitBeforeBuild, "IDEM_WAIT_FOR=" + goOn},
					"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json")
				code, stdout, stderr := RunBinary(t, nil, "run", j.Path, "--date", "2026-11-27", "--as-of", "2026-12-01T00:00:00Z", "--json")
				require.Equal(t, 0, code, stderr)
				require.Contains(t, stdout, `"action":"loaded"`)
				require.NoError(t, os.WriteFile(goOn, nil, 0o644))
				code, stdout, stderr = later.wait()
				require.Equal(t, 0, code, "the run that found no target: %s", stderr)
				require.Contains(t, stdout, `"action":"loaded"`)

				n := 5 // orders 1 of 2026-11-27 and 2, 3, 4, 6 of 2026-11-28
				if body.name == "no key" && name == "repeated key" {
					n++ // order 3's exact duplicate stays
				}
				require.Len(t, wantRows, n)
				require.Equal(t, wantRows, e.Rows("", allCols...), "both partitions, as two runs one after the other write them")
				require.Equal(t, wantSum, e.Checksum(day28))
				code, stdout, stderr = RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json")
				require.Equal(t, 0, code, stderr)
				require.Contains(t, stdout, `"action":"skipped"`, "the ledger records what the table holds")
			})
		}
	}
}
