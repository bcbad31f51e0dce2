package clickhouse_test

import (
	"context"
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
