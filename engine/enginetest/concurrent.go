package enginetest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/runner"
)

var concurrentCases = []testCase{
	{"ConcurrentRunsOfOnePartition", testConcurrentRuns},
	{"ConcurrentMergesOfOneJob", testConcurrentMerges},
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
