package faults_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/runner"
)

// writerRows is the input of one partition in the many-writers tests:
// enough that a run holds its lock for a while, so the others wait.
const writerRows = 100_000

// Many writers on each server engine: 8 processes load one partition of a table
// that does not exist yet, half of them willing to wait 10 minutes for the
// lock and half only 300 ms. Exactly one loads; the others skip (they
// waited and found the work done) or, with the short timeout, exit 75
// saying what they waited for; none exits 1. The table equals a single
// run's.
func TestManyWritersOnePartition(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes; not with -short")
	}
	for _, e := range serverTargets {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			manyWritersOnePartition(t, e.name, e.make(t))
		})
	}
}

func manyWritersOnePartition(t *testing.T, engineName string, tgt serverTarget) {
	dir := t.TempDir()
	jobPath := writeJob(t, dir, "writers", partitionBody)
	writeOrders(t, filepath.Join(dir, "in", "orders.csv"), 0, writerRows, nil, day1)

	ref := tgt.fresh(t, "writers_ref")
	want := runIdem(t, ref, nil, "run", jobPath, "--date", day1, "--as-of", asOf, "--json").result(t)
	wantTable := look(t, ref, "writers", day1)

	u := tgt.fresh(t, "writers")
	var args [][]string
	for i := range 8 {
		timeout := "10m"
		if i%2 == 1 {
			timeout = "300ms"
		}
		args = append(args, []string{"run", jobPath, "--date", day1, "--as-of", asOf, "--json", "--lock-timeout", timeout})
	}
	procs, waits := runAll(t, tgt, u, args)

	var loaded, skipped, timedOut int
	for i, p := range procs {
		switch p.code {
		case 0:
			r := p.result(t)
			switch r.Action {
			case runner.ActionLoaded:
				loaded++
				require.Equal(t, want.Checksum, r.Checksum)
			case runner.ActionSkipped:
				skipped++
			default:
				t.Fatalf("writer %d: action %s", i, r.Action)
			}
		case 75:
			timedOut++
			require.Equal(t, "300ms", args[i][len(args[i])-1], "only a writer with a short --lock-timeout gives up: %s", p.stderr)
			require.Contains(t, lastLine(p.stderr), "is being loaded by another run", "it says what it waited for")
		default:
			t.Fatalf("writer %d exited %d: %s", i, p.code, p.stderr)
		}
	}
	require.Equal(t, 1, loaded, "exactly one writer loads")
	got := look(t, u, "writers", day1)
	require.Equal(t, wantTable.rows, got.rows)
	require.Equal(t, wantTable.sum, got.sum, "the table equals a single run's")
	require.Equal(t, want.RunID, got.last.RunID)
	t.Logf("many writers, one partition (%s): %d runs: %d loaded, %d skipped after the lock, %d gave up after --lock-timeout 300ms (exit 75); %d sessions seen waiting for a lock; the table equals a single run's",
		engineName, len(procs), loaded, skipped, timedOut, waits)
}

// Many writers on each server engine: 8 backfills of overlapping ranges of ten
// days, started at once on a fresh target. Every partition is loaded
// exactly once; the table equals one backfill of the whole range.
func TestManyWritersOverlappingBackfills(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes; not with -short")
	}
	for _, e := range serverTargets {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			manyWritersOverlappingBackfills(t, e.name, e.make(t))
		})
	}
}

func manyWritersOverlappingBackfills(t *testing.T, engineName string, tgt serverTarget) {
	dir := t.TempDir()
	jobPath := writeJob(t, dir, "backfills", `source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: created_at
key: [order_id]
latest_by: updated_at
`)
	days := make([]string, 10)
	for i := range days {
		days[i] = fmt.Sprintf("2026-11-%02d", 10+i)
		writeDay(t, filepath.Join(dir, "in", days[i]+".csv"), days[i], i*writerRows/5, (i+1)*writerRows/5)
	}

	ref := tgt.fresh(t, "backfills_ref")
	p := runIdem(t, ref, nil, "backfill", jobPath, "--from", days[0], "--to", days[9], "--as-of", asOf)
	require.Equal(t, 0, p.code, p.stderr)
	wantTable := look(t, ref, "backfills", days[0])

	u := tgt.fresh(t, "backfills")
	var args [][]string
	for i := range 8 {
		from, to := days[i], days[min(i+2, 9)] // each overlaps the next two
		if i == 7 {
			from, to = days[0], days[9] // and one covers everything
		}
		args = append(args, []string{"backfill", jobPath, "--from", from, "--to", to, "--as-of", asOf, "--json", "--parallel", fmt.Sprint(1 + i%2)})
	}
	procs, waits := runAll(t, tgt, u, args)

	loads := map[string]int{}
	var results int
	for i, p := range procs {
		require.Equal(t, 0, p.code, "backfill %d: %s", i, p.stderr)
		for line := range strings.SplitSeq(strings.TrimSpace(p.stdout), "\n") {
			var r runner.Result
			require.NoError(t, json.Unmarshal([]byte(line), &r), line)
			if r.Partition == "" { // the backfill's summary line
				continue
			}
			results++
			switch r.Action {
			case runner.ActionLoaded:
				loads[r.Partition]++
			case runner.ActionSkipped:
			default:
				t.Fatalf("backfill %d, %s: action %s", i, r.Partition, r.Action)
			}
		}
	}
	for _, d := range days {
		require.Equal(t, 1, loads[d], "partition %s is loaded exactly once", d)
	}
	got := look(t, u, "backfills", days[0])
	require.Equal(t, wantTable.rows, got.rows)
	require.Equal(t, wantTable.sum, got.sum, "the table equals one backfill of the whole range")
	t.Logf("many writers, overlapping backfills (%s): %d backfills, %d partition runs: %d loaded, %d skipped; %d sessions seen waiting for a lock; 0 timeouts; the table equals one backfill's",
		engineName, len(procs), results, len(days), results-len(days), waits)
}

// writeDay writes orders lo..hi-1, all created on day.
func writeDay(t *testing.T, path, day string, lo, hi int) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	var b strings.Builder
	b.WriteString("order_id,customer_id,created_at,status,amount,updated_at\n")
	for i := lo; i < hi; i++ {
		s := i % 86400
		fmt.Fprintf(&b, "%d,%d,%s %02d:%02d:%02d,placed,%d.%02d,%s %02d:%02d:%02d\n",
			i, i%9973, day, s/3600, s/60%60, s%60, i%1000, i%100, day, s/3600, s/60%60, s%60)
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

// runAll starts one idem process per argument list at once and waits for
// all; meanwhile it counts the distinct sessions seen waiting for a lock
// on the target.
func runAll(t *testing.T, tgt serverTarget, u string, argLists [][]string) ([]proc, int) {
	t.Helper()
	stop := make(chan struct{})
	waiting := map[int64]bool{}
	var pollErr error
	var polled sync.WaitGroup
	polled.Go(func() {
		for {
			ids, err := tgt.waiting(u)
			if err != nil {
				pollErr = err
				return
			}
			for _, id := range ids {
				waiting[id] = true
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	out := make([]proc, len(argLists))
	var wg sync.WaitGroup
	for i, args := range argLists {
		cmd := idemCmd(t, u, args...)
		wg.Go(func() { out[i] = finish(cmd) })
	}
	wg.Wait()
	close(stop)
	polled.Wait()
	require.NoError(t, pollErr)
	return out, len(waiting)
}

// finish runs cmd to its end (from any goroutine: it does not fail the
// test).
func finish(cmd *exec.Cmd) proc {
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	p := proc{took: time.Since(began), stdout: stdout.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		p.code = ee.ExitCode()
	} else if err != nil {
		p.code, p.stderr = -2, err.Error()
	}
	p.stderr += stderr.String()
	return p
}

// A run that waits for another past its --lock-timeout exits 75 whatever
// the other is doing: staging, creating the table, deleting, writing, or
// about to commit; on a fresh target (the holder creates the table) and on
// a loaded one. The waiter loads the same partition, another partition of
// the table, or merges into it (a merge waits for the whole table). The
// holder stops at a step on purpose (IDEM_WAIT_AT) and is interrupted
// afterwards.
func TestLockTimeoutInEveryPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes; not with -short")
	}
	for _, e := range serverTargets {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			lockTimeoutInEveryPhase(t, e.name, e.make(t))
		})
	}
}

func lockTimeoutInEveryPhase(t *testing.T, engineName string, tgt serverTarget) {
	dir := t.TempDir()
	// A daily load and a merge of corrections share the table; a second
	// file of the daily job loads another partition.
	partJob := writeJobAs(t, dir, "phases", "phases", "  shared_with: [phases_merge]\n"+partitionBody)
	otherJob := writeJobAs(t, dir, "phases_other", "phases", "  shared_with: [phases_merge]\n"+strings.Replace(partitionBody, "in/orders.csv", "other/orders.csv", 1))
	mergeJob := writeJobAs(t, dir, "phases_merge", "phases_merge", "  shared_with: [phases]\n"+mergeBody)
	// The holder stops on purpose: its input need not be large.
	writeOrders(t, filepath.Join(dir, "in", "orders.csv"), 0, 1000, nil, day1)
	writeOrders(t, filepath.Join(dir, "in", day2+".csv"), 0, 1000, nil, day1)
	writeDay(t, filepath.Join(dir, "other", "orders.csv"), day2, 0, 1000)

	loaded := tgt.fresh(t, "phases_loaded")
	require.Equal(t, 0, runIdem(t, loaded, nil, "run", partJob, "--date", day1, "--as-of", asOf, "--force").code)

	waiters := []struct {
		name string
		args []string
	}{
		{"same partition", []string{"run", partJob, "--date", day1}},
		{"another partition", []string{"run", otherJob, "--date", day2}},
		{"a merge", []string{"run", mergeJob, "--date", day2}},
	}
	var c tally
	for _, start := range []string{"fresh", "loaded"} {
		for _, point := range []string{runner.CrashAfterStage, runner.CrashAfterDelete, runner.CrashAfterWrite, runner.CrashBeforeCommit} {
			for _, w := range waiters {
				t.Run(start+"/"+point+"/"+w.name, func(t *testing.T) {
					t.Parallel()
					var u string
					if start == "fresh" {
						u = tgt.fresh(t, "phases")
					} else {
						var drop func()
						u, drop = tgt.copyOf(t, loaded, "phases")
						defer drop()
					}
					holder := startWaiting(t, u, point, "run", partJob, "--date", day1, "--as-of", asOf, "--force")
					p := runIdem(t, u, nil, append(w.args, "--as-of", asOf, "--lock-timeout", "1s")...)
					code, stderr := holder.interrupt(t)
					require.Equal(t, 130, code, "the holder, interrupted: %s", stderr)
					c.add("tried")
					// Another partition of the table waits only for the
					// table's creation: partitions load side by side.
					mustWait := w.name != "another partition" || (start == "fresh" && point != runner.CrashAfterStage)
					if p.code == 0 && !mustWait {
						c.add("proceeded")
						return
					}
					require.Equal(t, 75, p.code, "the waiter gives up with exit 75: %s", p.stderr)
					msg := lastLine(p.stderr)
					require.True(t, strings.Contains(msg, "is being loaded by another run") || strings.Contains(msg, "--lock-timeout"),
						"it says what it waited for: %s", msg)
				})
			}
		}
	}
	t.Cleanup(func() { // after the parallel subtests
		t.Logf("lock timeout in every phase (%s): %d waiters: %d exited 75 after --lock-timeout 1s, %d loaded another partition side by side",
			engineName, c.get("tried"), c.get("tried")-c.get("proceeded"), c.get("proceeded"))
	})
}

// waitingRun is an idem process stopped on purpose at a step.
type waitingRun struct {
	cmd    *exec.Cmd
	stderr *strings.Builder
	done   chan struct{}
}

// startWaiting starts idem with IDEM_WAIT_AT=point and returns once it
// says it is waiting there.
func startWaiting(t *testing.T, u, point string, args ...string) *waitingRun {
	t.Helper()
	cmd := idemCmd(t, u, args...)
	cmd.Env = append(cmd.Env, "IDEM_WAIT_AT="+point)
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	w := &waitingRun{cmd: cmd, stderr: &strings.Builder{}, done: make(chan struct{})}
	waiting := make(chan struct{})
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(pipe)
		said := false
		for sc.Scan() {
			w.stderr.WriteString(sc.Text() + "\n")
			if !said && strings.Contains(sc.Text(), "waiting on purpose") {
				said = true
				close(waiting)
			}
		}
	}()
	select {
	case <-waiting:
	case <-w.done:
		_ = cmd.Wait()
		t.Fatalf("idem ended before its wait point %s: %s", point, w.stderr)
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		<-w.done
		_ = cmd.Wait()
		t.Fatalf("idem never reached its wait point %s: %s", point, w.stderr)
	}
	return w
}

// interrupt sends SIGINT and returns the exit code and stderr.
func (w *waitingRun) interrupt(t *testing.T) (int, string) {
	t.Helper()
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGINT))
	<-w.done
	err := w.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, w.stderr.String()
}
