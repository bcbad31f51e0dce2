package enginetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// planCases: `idem plan` shows exactly what a run then executes, and
// changes nothing, on a fresh target and on one with data.
var planCases = []testCase{
	{"PlanEqualsRunPartitionFiles", testPlanPartitionFiles},
	{"PlanEqualsRunPartitionQuery", testPlanPartitionQuery},
	{"PlanEqualsRunMerge", testPlanMerge},
	{"PlanOfAFailingRunRecordsNothing", testPlanFailing},
}

// GoldenPlan plans each case under testdata/golden and compares what
// `idem plan` prints with <case>/<engine>.plan.golden (-update rewrites
// them). Each plan must leave the target as it was, and a run then must
// record exactly the plan's steps.
func GoldenPlan(t *testing.T, h Harness, engineName string) {
	root := goldenRoot()
	cases, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			t.Parallel()
			e, j, date := goldenCase(t, h, root, c.Name())
			plans, _ := e.planEqualsRun(j, date)
			var b strings.Builder
			for _, p := range plans {
				b.WriteString(p.Text())
			}
			got := h.steady(e.canonical(j, strings.ReplaceAll(b.String(), e.Dir, "$DIR")))
			compareGolden(t, filepath.Join(root, c.Name(), engineName+".plan.golden"), got)
		})
	}
}

// Plan plans j for date, as `idem plan` does.
func (e *Env) Plan(j *job.Job, date string, mod ...func(*idem.Options)) ([]runner.PartitionPlan, error) {
	e.t.Helper()
	opts := idem.Options{Date: date, AsOf: e.Now, Now: func() time.Time { return e.Now }, LockTimeout: time.Minute}
	for _, m := range mod {
		m(&opts)
	}
	return idem.Plan(context.Background(), j, opts)
}

// planEqualsRun plans j, checks that the plan changed nothing (the
// target's files, schemas, tables and ledger rows, and, where it exists,
// the target table's rows, loaded_at included), then runs j with the same
// options and checks that the run recorded exactly the plan's steps. On an
// engine whose DDL commits the open transaction (engine.Swapper), a plan
// that would change the database's shape (a first load creates the table)
// stops before that DDL (runner.ErrPlanNeedsDDL): the run then begins with
// the plan's statements.
func (e *Env) planEqualsRun(j *job.Job, date string, mod ...func(*idem.Options)) ([]runner.PartitionPlan, runner.Result) {
	e.t.Helper()
	before := e.Trace()
	var sum Sum
	hasTable := e.hasTarget(before)
	if hasTable {
		sum = e.Checksum("")
	}
	plans, err := e.Plan(j, date, mod...)
	stopped := errors.Is(err, runner.ErrPlanNeedsDDL)
	if stopped {
		require.True(e.t, e.swaps(), "only an engine whose DDL commits stops a plan before DDL: %v", err)
	} else {
		require.NoError(e.t, err)
	}
	require.NotEmpty(e.t, plans)
	require.Equal(e.t, before, e.Trace(), "a plan changes nothing")
	if hasTable {
		require.Equal(e.t, sum, e.Checksum(""), "a plan changes no row")
	}

	var planned, ran []string
	var kinds []string
	for _, p := range plans {
		for _, s := range p.Steps {
			planned = append(planned, e.h.steady(s.Text))
			kinds = append(kinds, s.Kind)
		}
	}
	res, err := e.Run(j, date, append(mod, func(o *idem.Options) {
		o.Record = func(q string) { ran = append(ran, e.h.steady(q)) }
	})...)
	require.NoError(e.t, err)
	last := plans[len(plans)-1]
	if stopped {
		require.True(e.t, stoppedBeforeDDL(last))
		// The stopped plan then dropped its temporary tables and, on an
		// engine without transactions, marked its end (ROLLBACK); the run
		// goes on instead.
		var drop string
		e.DB(func(_ context.Context, db engine.DB) {
			d := db.SQL()
			drop = strings.TrimSuffix(d.Temp.DropTemp("x"), d.Ident("x"))
		})
		for n := len(planned); n > 0 && (strings.HasPrefix(planned[n-1], drop) || kinds[n-1] == runner.KindRollback); n-- {
			planned = planned[:n-1]
		}
		require.Equal(e.t, planned, ran[:min(len(planned), len(ran))], "a run begins with what the stopped plan showed")
		return plans, res
	}
	require.Equal(e.t, planned, ran, "a run executes exactly what the plan showed")
	require.Equal(e.t, res.Action, last.Action, "the plan says what the run does")
	require.Equal(e.t, res.RowCount, last.Result.RowCount)
	require.Equal(e.t, res.Checksum, last.Result.Checksum)
	require.Equal(e.t, res.RunID, last.Result.RunID)
	return plans, res
}

// swaps reports whether the target's engine is an engine.Swapper.
func (e *Env) swaps() bool {
	e.t.Helper()
	return e.engineIs("swaps", func(db engine.DB) bool { return db.Capabilities().Commit != engine.CommitTransaction })
}

// dataMarkers is the order of a loading run's markers: in one
// transaction, the lock comes after BEGIN; on an engine.Swapper the lock
// and staging come first, and the transaction holds the writes only.
func (e *Env) dataMarkers(load bool) []string {
	e.t.Helper()
	out := []string{runner.KindPartition, runner.KindBegin, runner.KindLock}
	if e.swaps() {
		out = []string{runner.KindPartition, runner.KindLock}
	}
	if load {
		out = append(out, runner.KindLoad)
	}
	if e.swaps() {
		out = append(out, runner.KindBegin)
	}
	return append(out, runner.KindCommit)
}

// skipMarkers is the order of a skipped run's markers.
func (e *Env) skipMarkers() []string {
	e.t.Helper()
	if e.swaps() {
		return []string{runner.KindPartition, runner.KindLock}
	}
	return []string{runner.KindPartition, runner.KindBegin, runner.KindLock, runner.KindRollback}
}

// hasTarget reports whether the env's target table exists.
func (e *Env) hasTarget(tr Trace) bool {
	want := e.Table.Schema + "." + e.Table.Name
	for _, t := range tr.Tables {
		if t == want {
			return true
		}
	}
	return false
}

// stoppedBeforeDDL reports whether a plan stopped before DDL
// (runner.ErrPlanNeedsDDL).
func stoppedBeforeDDL(p runner.PartitionPlan) bool {
	return strings.Contains(p.Text(), "a plan cannot go on")
}

// markers lists the kinds of a plan's steps that are not SQL, in order.
func markers(p runner.PartitionPlan) []string {
	var out []string
	for _, s := range p.Steps {
		if s.Kind != runner.KindSQL {
			out = append(out, s.Kind)
		}
	}
	return out
}

// stepOf is the text of a plan's first step of a kind.
func stepOf(p runner.PartitionPlan, kind string) string {
	for _, s := range p.Steps {
		if s.Kind == kind {
			return s.Text
		}
	}
	return ""
}

// A partition run from files: fresh target, a changed input, a skip, a
// forced run; each plan is what the run then executes.
func testPlanPartitionFiles(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)

	plans, res := e.planEqualsRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, res.Action)
	require.Len(t, plans, 1)
	p := plans[0]
	require.Equal(t, "2026-11-28T00:00:00Z", p.Start)
	require.Equal(t, "2026-11-29T00:00:00Z", p.End)
	require.Contains(t, stepOf(p, runner.KindLock), e.Sales("orders")+" partition 2026-11-28")
	text := p.Text()
	require.Contains(t, text, "-- load "+filepath.Join(e.Dir, "in", "orders.csv")+` into "idem_stage"`)
	if !e.swaps() { // else the plan stopped before creating the table
		require.Equal(t, e.dataMarkers(true), markers(p))
		require.Contains(t, text, "DELETE FROM ")
		require.Contains(t, text, "a run would load: 7 rows in, 1 deduped, 2 out of window; 4 inserted")
	}

	// The input changed: the plan on a target with data and a ledger.
	e.Write("in/orders.csv", strings.Replace(orders,
		"2,11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00",
		"2,11,2026-11-28 08:00:00,shipped,20.50,2026-11-28 11:00:00", 1))
	plans, res = e.planEqualsRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, res.Action)
	if stoppedBeforeDDL(plans[0]) {
		// Without transactions, building the partition beside the
		// target is DDL a plan cannot roll back.
		require.True(t, e.Exchanges(), "only an engine without transactions stops a plan on a loaded target")
	} else {
		require.Equal(t, e.dataMarkers(true), markers(plans[0]))
		require.Contains(t, plans[0].Text(), "DELETE FROM ")
		require.Contains(t, plans[0].Text(), "a run would load: 7 rows in, 1 deduped, 2 out of window; 4 inserted")
	}

	// Already loaded: the plan shows the statements that decide the skip,
	// and the run skips with the same ones.
	plans, res = e.planEqualsRun(j, "2026-11-28")
	require.Equal(t, runner.ActionSkipped, res.Action)
	require.Equal(t, e.skipMarkers(), markers(plans[0]))
	require.Contains(t, plans[0].Text(), "a run would skip")
	require.Contains(t, plans[0].Text(), "--force")

	// --force plans the forced run.
	_, res = e.planEqualsRun(j, "2026-11-28", Force)
	require.Equal(t, runner.ActionLoaded, res.Action)
	require.Equal(t, 2, e.Trace().LedgerRows)
}

// A partition run from a query, fresh and then with the target loaded.
func testPlanPartitionQuery(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	seedRawOrders(e)
	j := e.Job(queryJob)
	_, res := e.planEqualsRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, res.Action)
	e.Exec(`UPDATE raw_orders SET status = 'shipped', updated_at = TIMESTAMP '2026-11-28 11:00:00' WHERE order_id = 2`)
	_, res = e.planEqualsRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, res.Action)
	_, res = e.planEqualsRun(j, "2026-11-28")
	require.Equal(t, runner.ActionSkipped, res.Action)
}

// A merge, fresh and then over rows it merged before: the plan locks the
// whole table and shows the merge statements; nothing is written.
func testPlanMerge(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-28.csv", withDeleted(orders))
	j := e.Job(mergeJob + "delete_when: is_deleted\n")
	plans, res := e.planEqualsRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, res.Action)
	require.Contains(t, stepOf(plans[0], runner.KindLock), e.Sales("orders")+" (whole table)")
	if !e.swaps() { // else the plan stopped before creating the table
		require.Contains(t, plans[0].Text(), "a run would merge 7 rows in")
	}

	// The next delivery updates order 6 and deletes order 2.
	next := "order_id,customer_id,created_at,status,amount,updated_at,is_deleted\n" +
		"6,15,2026-11-28 15:00:00,returned,1.00,2026-11-29 18:00:00,false\n" +
		"2,11,2026-11-28 08:00:00,placed,20.50,2026-11-29 09:00:00,true\n"
	e.Write("in/2026-11-29.csv", next)
	_, res = e.planEqualsRun(j, "2026-11-29")
	require.Equal(t, runner.ActionLoaded, res.Action)
	require.Equal(t, int64(1), res.Updated)
	require.Equal(t, int64(1), res.Deleted)
	_, res = e.planEqualsRun(j, "2026-11-29")
	require.Equal(t, runner.ActionSkipped, res.Action)
}

// A plan of a run that would fail says why, returns the run's error, and
// records no failure (a run would: idem_failures gets a row).
func testPlanFailing(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	e.MustRun(j, "2026-11-28")
	e.Write("in/orders.csv", orders+",16,2026-11-28 16:00:00,placed,3.00,2026-11-28 16:00:00\n")
	before := e.Trace()
	sum := e.Checksum("")
	plans, err := e.Plan(j, "2026-11-28")
	var ie *runner.InputError
	require.ErrorAs(t, err, &ie)
	require.Len(t, plans, 1)
	require.Equal(t, runner.ActionFailed, plans[0].Action)
	require.Contains(t, plans[0].Error, "NULL in key (order_id)")
	require.Contains(t, plans[0].Text(), "a run would fail, and change nothing")
	if e.swaps() { // it failed in staging, before the data transaction
		require.NotContains(t, markers(plans[0]), runner.KindBegin)
	} else {
		require.Equal(t, runner.KindRollback, plans[0].Steps[len(plans[0].Steps)-1].Kind)
	}
	require.False(t, hasFailuresTable(before), "the fixture has no failure recorded yet")
	require.Equal(t, before, e.Trace(), "no idem_failures table, no ledger row")
	require.Equal(t, sum, e.Checksum(""))

	code, out := runIdem(t, nil, "plan", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "NULL in key (order_id)")
	require.Equal(t, before, e.Trace())

	// The run itself records the failure: the plan's restraint is not the
	// runner forgetting to.
	_, err = e.Run(j, "2026-11-28")
	require.Error(t, err)
	require.True(t, hasFailuresTable(e.Trace()))
}

// hasFailuresTable reports whether the target has idem_failures.
func hasFailuresTable(tr Trace) bool {
	for _, t := range tr.Tables {
		if strings.HasSuffix(t, ".idem_failures") {
			return true
		}
	}
	return false
}

// withDeleted adds an is_deleted column, false, to a CSV.
func withDeleted(csv string) string {
	lines := strings.Split(strings.TrimSuffix(csv, "\n"), "\n")
	lines[0] += ",is_deleted"
	for i := 1; i < len(lines); i++ {
		lines[i] += ",false"
	}
	return strings.Join(lines, "\n") + "\n"
}
