package duckdb_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
)

// LoadFilesInto creates the target in the transaction and inserts the rows
// straight into it; a target that exists, or an input with no rows, leaves
// the transaction without them (engine.ErrNotBuilt), for the usual staging.
func TestLoadFilesInto(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	db, err := duckdb.Open(ctx, filepath.Join(dir, "t.duckdb"), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	file := func(name, content string) engine.FileInput {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ","}
	}
	into := engine.Table{Schema: "sales", Name: "t"}
	count := func(tx *sql.Tx, q string) (n int64) {
		require.NoError(t, tx.QueryRowContext(ctx, q).Scan(&n))
		return n
	}
	tables := `SELECT count(*) FROM duckdb_tables() WHERE table_name IN ('t', 's')`

	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback() // before Close: a failed check leaves it open
	_, err = db.LoadFilesInto(ctx, tx, "s", into, file("empty.csv", "id,d\n"))
	require.ErrorIs(t, err, engine.ErrNotBuilt)
	require.Zero(t, count(tx, tables), "nothing left of an empty input")
	n, err := db.LoadFilesInto(ctx, tx, "s", into, file("in.csv", "id,d\n1,2026-11-28\n2,2026-11-29\n"))
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	require.EqualValues(t, 2, count(tx, `SELECT count(*) FROM sales.t`))
	require.Zero(t, count(tx, `SELECT count(*) FROM s`), "the staging table holds the columns, no rows")
	require.NoError(t, tx.Commit())

	tx, err = db.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback()
	_, err = db.LoadFilesInto(context.Background(), tx, "s2", into, file("more.csv", "id,d\n3,2026-11-30\n"))
	require.ErrorIs(t, err, engine.ErrNotBuilt, "the table exists: its rows are not this load's")
	require.EqualValues(t, 2, count(tx, `SELECT count(*) FROM sales.t`))
	require.Zero(t, count(tx, `SELECT count(*) FROM duckdb_tables() WHERE table_name = 's2'`))
}
