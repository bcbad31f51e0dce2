package enginetest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
	"github.com/idemdata/idem/runner"
)

// `idem verify`: two runs into scratch tables agree for a job that is
// idempotent, and disagree, naming the column, for one whose transform
// reads a clock or a random number; the real table and ledger are never
// touched and no scratch table outlives a verify.
var verifyCases = []struct {
	name string
	fn   func(*testing.T, Harness)
}{
	{"VerifyPassFiles", testVerifyPassFiles},
	{"VerifyPassQuery", testVerifyPassQuery},
	{"VerifyPassMerge", testVerifyPassMerge},
	{"VerifyFailRandom", testVerifyFailRandom},
	{"VerifyFailClock", testVerifyFailClock},
	{"VerifyFailClockMerge", testVerifyFailClockMerge},
	{"VerifyChangeOneRowWithoutKey", testVerifyChangeOneRowWithoutKey},
	{"VerifyFailedRunRecordsNothing", testVerifyFailedRun},
	{"VerifyDoesNotBlockARealRun", testVerifyConcurrentRun},
	{"VerifyInterruptedLeavesNothing", testVerifyInterrupted},
	{"VerifyBinarySIGINTLeavesNothing", testVerifySIGINT},
}

// verify runs idem.Verify the way the CLI does.
func (e *Env) verify(j *job.Job, date string, mod ...func(*idem.Options)) *runner.VerifyReport {
	e.t.Helper()
	opts := idem.Options{Date: date, LockTimeout: time.Minute}
	for _, m := range mod {
		m(&opts)
	}
	rep, err := idem.Verify(context.Background(), j, opts)
	require.NoError(e.t, err)
	return rep
}

// realState is what verify must leave as it was: the target's rows and
// every ledger row (and no scratch table).
type realState struct {
	Table, Ledger, Failures []string
}

func (e *Env) realState() realState {
	e.t.Helper()
	var s realState
	e.DB(func(ctx context.Context, db engine.DB) {
		d := db.SQL()
		q := func(t engine.Table) []string {
			qq, args := db.SQL().Catalog.TableExists(t)
			if len(queryStrings(e.t, ctx, db.Conn(), qq, args...)) == 0 {
				return nil
			}
			return queryStrings(e.t, ctx, db.Conn(), "SELECT * FROM "+d.Table(t)+" ORDER BY 1, 2, 3")
		}
		s.Table = q(e.Table)
		s.Ledger = q(db.Names().Ledger)
		s.Failures = q(ledger.FailuresTable(db))
	})
	return s
}

// noScratch fails the test if a table of verify's is left in the target.
func (e *Env) noScratch() {
	e.t.Helper()
	require.Empty(e.t, e.scratchTables(), "verify left scratch tables behind")
}

// scratchTables lists verify's tables in the target's schemas (Trace's:
// on MySQL the server holds other tests' databases too).
func (e *Env) scratchTables() []string {
	e.t.Helper()
	var out []string
	for _, t := range e.Trace().Tables {
		if _, name, _ := strings.Cut(t, "."); strings.HasPrefix(name, runner.ScratchPrefix) {
			out = append(out, t)
		}
	}
	return out
}

func testVerifyPassFiles(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	e.MustRun(j, "2026-11-28")
	e.MustRun(j, "2026-11-29")
	before := e.realState()

	rep := e.verify(j, "2026-11-28")
	require.Equal(t, runner.VerdictPass, rep.Verdict, "%+v", rep)
	require.Equal(t, int64(4), rep.First.RowCount)
	require.Equal(t, rep.First, rep.Second)
	// The scratch table holds exactly what the real run wrote.
	real := e.Checksum(day28, "_loaded_at")
	require.Equal(t, Sum{rep.First.RowCount, rep.First.Checksum}, real)
	require.NotNil(t, rep.Change)
	require.Equal(t, runner.VerdictPass, rep.Change.Verdict, "%+v", rep.Change)
	require.NotEmpty(t, rep.Change.Key)
	require.Len(t, rep.Change.Removed, 1)
	require.Len(t, rep.Change.Added, 1)
	require.Contains(t, rep.Change.Added[0], rep.Change.To)

	require.Equal(t, before, e.realState(), "verify touched the real table or ledger")
	e.noScratch()

	code, out, stderr := RunBinary(t, nil, "verify", j.Path, "--date", "2026-11-28", "--json")
	require.Equal(t, 0, code, stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Equal(t, "pass", got["verdict"])
	require.Equal(t, rep.First.Checksum, got["first"].(map[string]any)["checksum"])
	require.Equal(t, rep.Second.Checksum, got["second"].(map[string]any)["checksum"])
	require.Equal(t, before, e.realState())
	e.noScratch()
}

func testVerifyPassQuery(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	j := e.Job(queryJob)
	// Verify before any real run: it must not create the target or a ledger.
	rep := e.verify(j, "2026-11-28")
	require.Equal(t, runner.VerdictPass, rep.Verdict, "%+v", rep)
	require.Equal(t, int64(4), rep.First.RowCount)
	require.Nil(t, rep.Change, "a query source has no input file to change")
	require.Equal(t, realState{}, e.realState())
	e.noScratch()

	code, out, stderr := RunBinary(t, nil, "verify", j.Path, "--date", "2026-11-28")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "PASS")
}

func testVerifyPassMerge(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-28.csv", orders)
	j := e.Job(mergeJob)
	e.MustRun(j, "2026-11-28")
	before := e.realState()
	rep := e.verify(j, "2026-11-28")
	require.Equal(t, runner.VerdictPass, rep.Verdict, "%+v", rep)
	require.NotNil(t, rep.RerunWritten)
	require.Zero(t, *rep.RerunWritten)
	require.Equal(t, int64(6), rep.First.RowCount)
	require.Equal(t, runner.VerdictPass, rep.Change.Verdict, "%+v", rep.Change)
	require.Equal(t, before, e.realState())
	e.noScratch()
}

// nondeterministic is queryJob with one more column from expr.
func nondeterministic(expr, col string) string {
	return strings.Replace(queryJob, "amount, updated_at\n", "amount, updated_at, "+expr+" AS "+col+"\n", 1)
}

// checkFail asserts a failing verify names col, through the library and
// the binary (exit 3), and leaves everything as it was.
func checkFail(t *testing.T, e *Env, j *job.Job, col string) {
	t.Helper()
	before := e.realState()
	rep := e.verify(j, "2026-11-28")
	require.Equal(t, runner.VerdictFail, rep.Verdict, "%+v", rep)
	var names []string
	for _, c := range rep.Columns {
		names = append(names, c.Column)
	}
	require.Equal(t, []string{col}, names, "the differing column is named, and only it")
	require.NotEqual(t, rep.Columns[0].First, rep.Columns[0].Second)
	require.Equal(t, before, e.realState())
	e.noScratch()

	code, out, stderr := RunBinary(t, nil, "verify", j.Path, "--date", "2026-11-28")
	require.Equal(t, 3, code, "stdout: %s\nstderr: %s", out, stderr)
	require.Contains(t, out, "FAIL")
	require.Contains(t, out, "column "+col+" differs")
	require.Contains(t, out, "clock")
	code, out, _ = RunBinary(t, nil, "verify", j.Path, "--date", "2026-11-28", "--json")
	require.Equal(t, 3, code)
	require.Contains(t, out, `"verdict":"fail"`)
	require.Equal(t, before, e.realState())
	e.noScratch()
}

func testVerifyFailRandom(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	e.MustRun(e.Job(queryJob), "2026-11-28") // a real table and ledger to keep
	checkFail(t, e, e.Job(strings.Replace(nondeterministic(h.spell().Random, "r"), "orders_query", "orders_query_r", 1)), "r")
}

func testVerifyFailClock(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	checkFail(t, e, e.Job(nondeterministic(h.spell().NowText, "stamped_at")), "stamped_at")
}

// A merge keeps the first row of a key in the row order: rerun, a row
// stamped later loses to the one already there and changes nothing, so
// only a run into a fresh table shows the clock.
func testVerifyFailClockMerge(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	body := strings.Replace(nondeterministic(h.spell().NowText, "stamped_at"), "strategy: partition\npartition:\n  column: created_at\n", "strategy: merge\n", 1)
	j := e.Job(body)
	require.Equal(t, job.StrategyMerge, j.Strategy)
	rep := e.verify(j, "2026-11-28")
	require.Equal(t, runner.VerdictFail, rep.Verdict, "%+v", rep)
	require.Zero(t, *rep.RerunWritten)
	require.Equal(t, "stamped_at", rep.Columns[0].Column)
	e.noScratch()
}

// Without a key, the change-one-row check is on the one row: one row
// goes, one comes.
func testVerifyChangeOneRowWithoutKey(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(strings.Replace(filesJob, "key: [order_id]\n", "", 1))
	rep := e.verify(j, "2026-11-28")
	require.Equal(t, runner.VerdictPass, rep.Verdict, "%+v", rep)
	require.Equal(t, runner.VerdictPass, rep.Change.Verdict, "%+v", rep.Change)
	require.Empty(t, rep.Change.Key, "without a key the check is on the one row")
	require.Len(t, rep.Change.Removed, 1)
	require.Len(t, rep.Change.Added, 1)
	e.noScratch()
}

// On a server, verify locks only its scratch tables: a real run of the
// same partition, started while verify is in the middle of its runs,
// goes through at once. (An embedded DuckDB file is held by one process
// at a time; within one process, verify's table is another lock.)
func testVerifyConcurrentRun(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	j := e.Job(queryJob)
	e.MustRun(j, "2026-11-28")
	var realErr error
	var real []runner.Result
	ran := false
	rep := e.verify(j, "2026-11-28", func(o *idem.Options) {
		o.Record = func(q string) {
			if ran || !strings.HasPrefix(q, "DELETE FROM") {
				return
			}
			ran = true // inside verify's second run, holding its locks
			if strings.HasPrefix(e.URL, "duckdb:") {
				return // one process holds the file: nothing to show here
			}
			real, realErr = idem.Run(context.Background(), j, idem.Options{Date: "2026-11-28", Force: true, LockTimeout: 5 * time.Second})
		}
	})
	require.True(t, ran)
	if !strings.HasPrefix(e.URL, "duckdb:") {
		require.NoError(t, realErr, "a real run waited for verify")
		require.Equal(t, runner.ActionLoaded, real[0].Action)
	}
	require.Equal(t, runner.VerdictPass, rep.Verdict)
	e.noScratch()
}

// An interrupt (the CLI's context is cancelled on SIGINT and SIGTERM) in
// the middle of verify's second run still drops every scratch table, and
// leaves no record in the real idem_failures.
func testVerifyInterrupted(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	e.MustRun(j, "2026-11-28")
	before := e.realState()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The second run's first write after it took its lock: a point every
	// protocol passes (not every engine's second run deletes).
	locks := 0
	rep, err := idem.Verify(ctx, j, idem.Options{Date: "2026-11-28", LockTimeout: time.Minute, Record: func(q string) {
		if strings.HasPrefix(q, "-- lock:") {
			locks++
		}
		if locks == 2 && strings.HasPrefix(q, "INSERT INTO") {
			cancel()
		}
	}})
	require.Error(t, err)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	require.Equal(t, before, e.realState())
	e.noScratch()
}

// A scratch run that fails after the scratch ledger exists records its
// failure in the scratch failures table, never in the real idem_failures
// (which status reads); verify exits 1, and drops everything. The query
// here finds no rows once run 1's rows have been set aside (the _s
// table), so run 2 fails with "no input".
func testVerifyFailedRun(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	j := e.Job(queryJob)
	e.MustRun(j, "2026-11-28")
	bad := e.Job(strings.Replace(strings.Replace(queryJob, "orders_query", "orders_vanishing", 1),
		"WHERE created_at >= {{ start }}",
		"WHERE NOT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = '"+e.Schema+"' AND table_name LIKE '"+runner.ScratchPrefix+"%' AND right(table_name, 2) = '_s')\n      AND created_at >= {{ start }}", 1))
	bad.Target.Table = e.Sales("other")
	before := e.realState()
	_, err := idem.Verify(context.Background(), bad, idem.Options{Date: "2026-11-28", LockTimeout: time.Minute})
	require.Error(t, err)
	require.Contains(t, err.Error(), "no rows")
	require.Equal(t, before, e.realState(), "the failure went to the real idem_failures")
	e.noScratch()

	code, _, stderr := RunBinary(t, nil, "verify", bad.Path, "--date", "2026-11-28")
	require.Equal(t, 1, code, stderr)
	require.Equal(t, before, e.realState())
	e.noScratch()
}

// The binary, interrupted (SIGINT) in the middle of verify's second run,
// drops its scratch tables before it exits. The job sleeps in SQL so the
// signal lands inside a run (not on DuckDB, which has no sleep).
func testVerifySIGINT(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	sleep := h.spell().SleepWhere
	if strings.HasPrefix(e.URL, "duckdb") || sleep == "none" { // duckdb: and the swap fake's duckdb-swap:
		t.Skip("needs a sleep inside the query; the library-level case covers DuckDB")
	}
	seedRawOrders(e)
	j := e.Job(strings.Replace(queryJob, "WHERE created_at >= {{ start }}",
		"WHERE "+sleep+" AND created_at >= {{ start }}", 1))
	cmd := exec.Command(Binary(t), "verify", j.Path, "--date", "2026-11-28")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	// Run 1 takes 1.5 s and commits a scratch table; run 2 sleeps next:
	// the signal comes once the table is there.
	scratch := func() bool { return len(e.scratchTables()) > 0 }
	if held := h.Spelling.HeldTables; held != nil { // the binary holds the target
		scratch = func() bool {
			tables, err := held(e.URL)
			require.NoError(t, err)
			for _, tb := range tables {
				if _, name, _ := strings.Cut(tb, "."); strings.HasPrefix(name, runner.ScratchPrefix) {
					return true
				}
			}
			return false
		}
	}
	require.Eventually(t, scratch, 20*time.Second, 100*time.Millisecond, "run 1's scratch table never appeared")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, out.String())
	// A run that did not finish, not a verdict: exit 1 here, 130 where
	// interrupts have their own exit code.
	require.Contains(t, []int{1, 130}, ee.ExitCode(), out.String())
	e.noScratch()
}
