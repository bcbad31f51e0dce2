package clickhouse_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse"
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
