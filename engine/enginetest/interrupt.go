package enginetest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Ctrl-C or SIGTERM during a run rolls it back and says so: exit 130, the
// target as it was, and the next run loads.
var interruptCases = []testCase{
	{"InterruptRollsBack", testInterrupt},
}

func testInterrupt(t *testing.T, h Harness) {
	strategies := []struct{ name, body, file string }{
		{"partition", filesJob, "in/orders.csv"},
		{"merge", mergeJob, "in/2026-11-28.csv"},
	}
	for si, st := range strategies {
		for pi, point := range []string{"after_stage", "after_delete", "before_commit"} {
			for gi, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
				// -short tries each point once, the strategies and the
				// signals alternating, so each point, strategy and signal
				// is still met: partition/after_stage/SIGINT,
				// merge/after_delete/SIGTERM, partition/before_commit/SIGINT.
				if testing.Short() && (si != pi%2 || gi != pi%2) {
					continue
				}
				t.Run(st.name+"/"+point+"/"+sig.String(), func(t *testing.T) {
					t.Parallel()
					e := NewEnv(t, h)
					e.Write(st.file, orders)
					j := e.Job(st.body)
					e.MustRun(j, "2026-11-28")
					old := e.Rows("", allCols...)
					e.Write(st.file, strings.Replace(orders, "6,15,2026-11-28 15:00:00,completed,1.00,2026-11-28 15:00:00",
						"6,15,2026-11-28 15:00:00,returned,1.00,2026-11-28 18:00:00", 1))

					code, stderr := runUntilSignalled(t, sig, []string{"IDEM_WAIT_AT=" + point},
						"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
					if point == "before_commit" && e.Exchanges() {
						// Without transactions, before_commit follows the
						// swap and the ledger row: the run is done, and
						// finishes (see testCrashPoints).
						require.Equal(t, 0, code, stderr)
						require.NotEqual(t, old, e.Rows("", allCols...), "the new data")
						code, stdout, stderr := RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json")
						require.Equal(t, 0, code, stderr)
						require.Contains(t, stdout, `"action":"skipped"`)
						return
					}
					require.Equal(t, 130, code, stderr)
					require.Contains(t, stderr, "interrupted; the target is unchanged")
					require.Equal(t, old, e.Rows("", allCols...), "the old data, intact")

					code, stdout, stderr := RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json")
					require.Equal(t, 0, code, stderr)
					require.Contains(t, stdout, `"action":"loaded"`)
				})
			}
		}
	}
}

// runUntilSignalled starts idem, waits until it says it is waiting on
// purpose (IDEM_WAIT_AT), sends sig, and returns its exit code and stderr.
func runUntilSignalled(t *testing.T, sig syscall.Signal, env []string, args ...string) (int, string) {
	t.Helper()
	w := startWaiting(t, env, args...)
	require.NoError(t, w.cmd.Process.Signal(sig))
	code, _, stderr := w.wait()
	return code, stderr
}

// waitingRun is an idem process that has reached its wait point.
type waitingRun struct {
	cmd  *exec.Cmd
	wait func() (code int, stdout, stderr string) // waits for it to end
}

// startWaiting starts idem and returns once it says it waits on purpose
// (IDEM_WAIT_AT).
func startWaiting(t *testing.T, env []string, args ...string) waitingRun {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var all strings.Builder
	waiting, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		seen := false
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if !seen && strings.Contains(sc.Text(), "waiting on purpose") {
				seen = true
				close(waiting)
			}
		}
	}()
	var ended bool
	finish := func() (int, string, string) {
		<-done
		ended = true
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, stdout.String(), all.String()
	}
	// A test that fails while idem waits does not leave it waiting.
	t.Cleanup(func() {
		if !ended {
			_ = cmd.Process.Kill()
			<-done
			_ = cmd.Wait()
		}
	})
	select {
	case <-waiting:
	case <-done: // idem ended (failed) before its wait point: say so now, not in 2 minutes
		_, _, stderr := finish()
		t.Fatalf("idem ended before its wait point; stderr:\n%s", stderr)
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		_, _, stderr := finish()
		t.Fatalf("idem never reached its wait point; stderr:\n%s", stderr)
	}
	return waitingRun{cmd: cmd, wait: finish}
}
