package enginetest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// A merge's first load goes straight into the new table (runner/direct.go)
// where its input repeats no key; with a repeated key the rows go back to
// staging, are de-duplicated, and inserted into the new table. Neither
// makes a plan: the table is empty. The same input merged again into that
// table emptied gives the same table, tombstones and ledger row, again
// without a plan (runner.intoEmpty).
func testMergeFirstLoadDirect(t *testing.T, h Harness) {
	for _, c := range []struct {
		name, input string
		direct      bool
	}{
		{"distinct keys", "customer_id,name,tier,updated_at,is_deleted\n" +
			"1,Ann,gold,2026-11-01 09:00:00,false\n2,Bob,silver,2026-11-01 09:00:00,\n" +
			"3,Cid,bronze,2026-11-01 09:00:00,true\n4,Dee,gold,2026-11-02 09:00:00,false\n", true},
		{"a repeated key", "customer_id,name,tier,updated_at,is_deleted\n" +
			"1,Ann,gold,2026-11-01 09:00:00,false\n1,Ann,aaa,2026-11-01 09:00:00,false\n" +
			"2,Bob,silver,2026-11-01 09:00:00,false\n2,Bob,gold,2026-11-02 09:00:00,true\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t, h)
			e.schemaFirst()
			e.Write("in/2026-11-01.csv", c.input)
			j := e.Job(strings.Replace(customersJob, "loaded_at: _loaded_at\n", "", 1))
			first, all := e.recordRun(j, "2026-11-01")
			require.Contains(t, all, "straight into the new table", "a first load")
			require.Equal(t, !c.direct, restaged.MatchString(all), "the rows went back to staging with a repeated key only")
			require.False(t, planned.MatchString(all), "no plan: the new table is empty")
			rows, tombs, entry := e.Rows("", customerCols...), e.tombstones(), e.ledgerRow(first.RunID)

			e.Exec("TRUNCATE TABLE "+e.Sales("orders"), "TRUNCATE TABLE "+e.Sales("orders__idem_deleted"))
			again, all := e.recordRun(j, "2026-11-01", Force)
			require.False(t, planned.MatchString(all), "no plan: the table and its tombstones are empty")
			require.Equal(t, sameRun(again), sameRun(first))
			require.Equal(t, rows, e.Rows("", customerCols...))
			require.Equal(t, tombs, e.tombstones())
			require.Equal(t, entry, e.ledgerRow(first.RunID))
		})
	}
}

// A merge into an empty table goes without a plan only where no
// tombstone holds a delete: an older row of a key deleted is weighed
// against its tombstone, and stays out. A merge whose input cannot go
// straight into its new table (a loaded_at column to add) is staged and
// inserted without a plan too, with the column set.
func testMergeIntoEmptyTable(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-01.csv", "customer_id,name,tier,updated_at,is_deleted\n"+
		"1,Ann,gold,2026-11-01 09:00:00,false\n2,Bob,silver,2026-11-01 09:00:00,false\n"+
		"3,Cid,bronze,2026-11-01 09:00:00,true\n")
	j := e.Job(customersJob)
	first, all := e.recordRun(j, "2026-11-01")
	require.False(t, planned.MatchString(all), "no plan: the new table is empty")
	require.Equal(t, []string{"1|0", "2|0"}, e.Query(
		"SELECT customer_id, CASE WHEN _loaded_at IS NULL THEN 1 ELSE 0 END FROM "+e.Sales("orders")+" ORDER BY customer_id"))
	require.Equal(t, int64(2), first.Inserted)
	require.Equal(t, int64(1), first.DeletedAbsent)
	require.Len(t, e.tombstones(), 1)

	e.Exec("TRUNCATE TABLE " + e.Sales("orders"))
	e.Write("in/2026-11-01.csv", "customer_id,name,tier,updated_at,is_deleted\n"+
		"2,Bob,silver,2026-11-01 09:00:00,false\n3,Cid,bronze,2026-10-31 09:00:00,false\n")
	res, all := e.recordRun(j, "2026-11-01")
	require.True(t, planned.MatchString(all), "a plan: a tombstone holds a delete")
	require.Equal(t, int64(1), res.Inserted)
	require.Equal(t, int64(1), res.SkippedOlder, "customer 3's row is older than its delete")
	require.Equal(t, []string{"2|Bob"}, e.Query("SELECT customer_id, name FROM "+e.Sales("orders")+" ORDER BY customer_id"))
}

// recordRun runs j for date, and returns its result and its statements.
func (e *Env) recordRun(j *job.Job, date string, mod ...func(*idem.Options)) (runner.Result, string) {
	e.t.Helper()
	var stmts []string
	record := func(o *idem.Options) { o.Record = func(q string) { stmts = append(stmts, q) } }
	res := e.MustRun(j, date, append(mod, record)...)
	return res, strings.Join(stmts, ";\n")
}

// restaged finds the statement moving a direct load's rows back to staging.
var restaged = regexp.MustCompile(`INSERT INTO .idem_stage.`)

// planned finds the statement creating a merge plan.
var planned = regexp.MustCompile(`CREATE [^;]*idem_merge_plan`)

// schemaFirst makes the env's schema exist before a test's first load, by
// a run into another of its tables: on an engine whose DDL commits, a
// first load goes straight into its new table only in a schema that
// exists.
func (e *Env) schemaFirst() {
	e.t.Helper()
	e.Write("in/other.csv", "id,created_at\n1,2026-11-01 09:00:00\n")
	path := e.Write("other.yaml", "idem: 1\ntarget:\n  url: "+e.URL+"\n  table: "+e.Sales("other")+
		"\njob: other\nsource:\n  files: in/other.csv\nstrategy: partition\npartition:\n  column: created_at\n")
	j, err := job.Load(path)
	require.NoError(e.t, err)
	e.MustRun(j, "2026-11-01")
}

// tombstones are the customers' tombstone rows, sorted.
func (e *Env) tombstones() []string {
	return e.Query(`SELECT customer_id, name, tier, updated_at, is_deleted FROM ` + e.Sales("orders__idem_deleted") + ` ORDER BY customer_id`)
}

// ledgerRow is what the ledger says of run id, but its times.
func (e *Env) ledgerRow(id string) []string {
	return e.Query(`SELECT rows_in, rows_deduped, inserted, updated, deleted, deleted_absent, skipped_older, kept_on_tie, row_count, checksum, table_rows
FROM idem_runs WHERE run_id = `+e.P(1), id)
}

// sameRun is r without what differs between two runs of one input.
func sameRun(r runner.Result) runner.Result {
	r.DurationMS = 0
	return r
}
