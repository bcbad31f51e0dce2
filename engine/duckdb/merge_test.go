package duckdb_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
)

// RewriteBlockers finds every constraint and index that can refuse a key
// deleted and inserted again in one transaction, on the target or pointing
// at it, and nothing else: a merge into a table it misses would fail with
// "Duplicate key" (or a foreign key error), one into a table it wrongly
// blocks would only be slower.
func TestRewriteBlockers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, err := duckdb.Open(ctx, filepath.Join(t.TempDir(), "w.duckdb"), time.Minute)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		"CREATE SCHEMA sales",
		"CREATE TABLE sales.plain (id BIGINT, v INT)",
		"CREATE TABLE sales.indexed (id BIGINT, v INT)",
		"CREATE INDEX indexed_id ON sales.indexed (id)", // not unique: no refusal
		"CREATE TABLE sales.pk (id BIGINT PRIMARY KEY, v INT)",
		"CREATE TABLE sales.uq (id BIGINT UNIQUE, v INT)",
		"CREATE TABLE sales.uidx (id BIGINT, v INT)",
		"CREATE UNIQUE INDEX uidx_v ON sales.uidx (v)", // another column than the key
		"CREATE TABLE sales.parent (id BIGINT PRIMARY KEY)",
		"CREATE TABLE sales.child (id BIGINT, parent_id BIGINT REFERENCES sales.parent (id))",
		"CREATE TABLE main.plain (id BIGINT PRIMARY KEY)", // same name, other schema
	} {
		_, err := db.Conn().ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	var d duckdb.Dialect
	for table, blocked := range map[string]bool{
		"plain": false, "indexed": false, "pk": true, "uq": true, "uidx": true, "parent": true, "child": true,
	} {
		q, args := d.RewriteBlockers(engine.Table{Schema: "sales", Name: table})
		rows, err := db.Conn().QueryContext(ctx, q, args...)
		require.NoError(t, err)
		found := rows.Next()
		require.NoError(t, rows.Close())
		require.Equal(t, blocked, found, "sales.%s", table)
	}
}
