package clickhouse_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/job"
)

// Two handles on one folder share chDB's one session, yet each has its
// own staging tables: a run and a verify at once in one process neither
// read nor drop each other's staged input.
func TestRunTablesPerHandle(t *testing.T) {
	needChDB(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.chdb")
	a, err := clickhouse.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	defer a.Close()
	b, err := clickhouse.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	defer b.Close()
	d := clickhouse.Dialect{}
	stage := d.Ident(engine.StageTable)
	for i, db := range []*clickhouse.DB{a, b} {
		_, err := db.Conn().ExecContext(ctx, "CREATE TEMPORARY TABLE "+stage+" (x Int64) ENGINE = Memory")
		require.NoError(t, err)
		_, err = db.Conn().ExecContext(ctx, "INSERT INTO "+stage+" VALUES ($1)", int64(i+1))
		require.NoError(t, err)
	}
	var x int64
	require.NoError(t, a.Conn().QueryRowContext(ctx, "SELECT sum(x) FROM "+stage).Scan(&x))
	require.Equal(t, int64(1), x)
	_, err = b.Conn().ExecContext(ctx, "DROP TABLE IF EXISTS "+stage)
	require.NoError(t, err)
	require.NoError(t, a.Conn().QueryRowContext(ctx, "SELECT sum(x) FROM "+stage).Scan(&x))
	require.Equal(t, int64(1), x, "b's drop left a's table")
	// A string literal naming the table is data, not renamed; an error
	// names the table as the runner does.
	var s string
	require.NoError(t, a.Conn().QueryRowContext(ctx, "SELECT '\"idem_stage\"'").Scan(&s))
	require.Equal(t, `"idem_stage"`, s)
	_, err = b.Conn().ExecContext(ctx, "SELECT * FROM "+stage)
	require.ErrorContains(t, err, "idem_stage")
	require.NotContains(t, err.Error(), "idem_stage__c", "named as the runner names it")
}

// A session loads the folder's tables one at a time: libchdb creates its
// store of SQL functions lazily and without a lock from the first table
// load that needs it, and two loads at once could destroy the store under
// each other (an open that failed with "recursive_mutex lock failed:
// Invalid argument"). A folder with many tables opens again and reads
// them all.
func TestTablesLoadOneAtATime(t *testing.T) {
	needChDB(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.chdb")
	db, err := clickhouse.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	setting := func(name string) string {
		var v string
		require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT value FROM system.server_settings WHERE name = $1", name).Scan(&v))
		return v
	}
	require.Equal(t, "1", setting("tables_loader_foreground_pool_size"), "loads in one thread")
	require.Equal(t, "0", setting("async_load_databases"), "loads in the foreground pool")
	_, err = db.Conn().ExecContext(ctx, "CREATE DATABASE s")
	require.NoError(t, err)
	const tables = 12
	for i := range tables {
		_, err = db.Conn().ExecContext(ctx, fmt.Sprintf("CREATE TABLE s.t%d (x Int64) ENGINE = MergeTree ORDER BY x AS SELECT %d", i, i))
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())

	db, err = clickhouse.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	var n, sum int64
	require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT count(), sum(x) FROM merge('s', '^t')").Scan(&n, &sum))
	require.Equal(t, int64(tables), n)
	require.Equal(t, int64(tables*(tables-1)/2), sum)
}

// A merge into an existing table builds its copy by hard-linking the
// target's parts, not by reading its rows: the copy's cost follows the
// parts. The merge is right (newer wins, the rest kept), and the old
// table's rows are not changed by the copy's DELETE before the swap.
func TestMergeCopiesByParts(t *testing.T) {
	needChDB(t)
	e := enginetest.NewEnv(t, harness)
	e.Write("in/2026-11-28.csv", "order_id,amount,updated_at\n1,10.00,2026-11-28 10:00:00\n2,20.00,2026-11-28 10:00:00\n")
	e.Write("in/2026-11-29.csv", "order_id,amount,updated_at\n2,21.00,2026-11-29 10:00:00\n3,30.00,2026-11-29 10:00:00\n")
	j := ordersMerge(e)
	e.MustRun(j, "2026-11-28")
	r, all := recorded(e, j, "2026-11-29")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, int64(1), r.Updated)
	require.Contains(t, all, "ATTACH PARTITION ALL FROM")
	require.NotRegexp(t, `INSERT INTO [^\n]*orders__idem_build[^\n]* FROM "sales"\."orders"(\n|$)`, all, "no copy of the target's rows")
	require.Equal(t, []string{"1|10", "2|21", "3|30"}, e.Rows("", "order_id", "amount"))
}

// A user's lightweight UPDATE of a target lives in a patch part until it
// is applied, and ATTACH PARTITION … FROM copies no patch part: a run that
// hard-links the target's parts (a merge's copy, a partition run's table
// beside it) would bring the old values back. The runner has the patches
// applied first; the user's change stays.
func TestCopyKeepsLightweightUpdates(t *testing.T) {
	needChDB(t)
	for _, strategy := range []string{"merge", "partition"} {
		t.Run(strategy, func(t *testing.T) {
			e := enginetest.NewEnv(t, harness)
			e.Write("in/2026-11-28.csv", "order_id,amount,day\n1,10.00,2026-11-28\n2,20.00,2026-11-28\n")
			e.Write("in/2026-11-29.csv", "order_id,amount,day\n3,30.00,2026-11-29\n")
			body := `job: orders_` + strategy + `
source:
  files: in/{{ date }}.csv
strategy: ` + strategy + `
key: [order_id]
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
`
			if strategy == "merge" {
				body += "latest_by: amount\n"
			} else {
				body += "partition:\n  column: day\n"
			}
			j := e.Job(body)
			e.MustRun(j, "2026-11-28")
			e.Exec("UPDATE "+e.Sales("orders")+" SET amount = 99 WHERE order_id = 2",
				"DELETE FROM "+e.Sales("orders")+" WHERE order_id = 1 SETTINGS lightweight_delete_mode = 'lightweight_update'")
			require.Equal(t, []string{"2|99"}, e.Rows("", "order_id", "amount"), "the changes read back")
			e.MustRun(j, "2026-11-29")
			require.Equal(t, []string{"2|99", "3|30"}, e.Rows("", "order_id", "amount"), "the user's changes are kept")
		})
	}
}

// ordersMerge is a merge job of in/<date>.csv (order_id, amount,
// updated_at), newest updated_at wins.
func ordersMerge(e *enginetest.Env) *job.Job {
	return e.Job(`job: orders_merge
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
`)
}

// A merge reads only the target's rows of the staged keys (the plan's join
// would hash the whole target otherwise), and a batch of new keys only runs
// no DELETE (a mutation of every part of the copy, even of no key).
func TestMergeTouchesOnlyStagedKeys(t *testing.T) {
	needChDB(t)
	e := enginetest.NewEnv(t, harness)
	e.Write("in/2026-11-28.csv", "order_id,amount,updated_at\n1,10.00,2026-11-28 10:00:00\n2,20.00,2026-11-28 10:00:00\n")
	e.Write("in/2026-11-29.csv", "order_id,amount,updated_at\n3,30.00,2026-11-29 10:00:00\n4,40.00,2026-11-29 10:00:00\n")
	e.Write("in/2026-11-30.csv", "order_id,amount,updated_at\n2,22.00,2026-11-30 10:00:00\n5,50.00,2026-11-30 10:00:00\n")
	j := ordersMerge(e)
	e.MustRun(j, "2026-11-28")
	r, all := recorded(e, j, "2026-11-29")
	require.Equal(t, int64(2), r.Inserted)
	require.Zero(t, r.Updated)
	require.Regexp(t, `LEFT JOIN \(SELECT [^\n]* FROM "sales"\."orders(__idem_build)?" WHERE \("order_id"\) IN \(SELECT "order_id" FROM `, all, "the plan joins the staged keys' rows")
	require.NotContains(t, all, "DELETE FROM", "new keys only: nothing to delete")

	r, all = recorded(e, j, "2026-11-30")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, int64(1), r.Updated)
	require.Contains(t, all, "DELETE FROM", "an update replaces its key's row")
	require.Equal(t, []string{"1|10", "2|22", "3|30", "4|40", "5|50"}, e.Rows("", "order_id", "amount"))
}

// recorded runs j for date and returns its result and every statement
// it executed, a line each.
func recorded(e *enginetest.Env, j *job.Job, date string) (idem.Result, string) {
	var stmts []string
	r := e.MustRun(j, date, func(o *idem.Options) { o.Record = func(q string) { stmts = append(stmts, q) } })
	return r, strings.Join(stmts, "\n")
}
