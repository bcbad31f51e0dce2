package duckdb_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/engine/enginetest"
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

// staleDelete is DuckDB whose rewrite's delete removes nothing, as a rowid
// that no longer names its row would: the runner must refuse the merge
// rather than insert the updates beside the rows they replace.
type staleDelete struct{ duckdb.Dialect }

func (s staleDelete) Merge(plan, action string, m engine.MergeSpec) engine.MergeStatements {
	stmts := s.Dialect.Merge(plan, action, m)
	if m.Rewrite {
		stmts.Matched[0] += " AND false"
	}
	return stmts
}

type staleDB struct{ *duckdb.DB }

func (staleDB) SQL() *engine.SQL {
	q := *(&duckdb.DB{}).SQL()
	q.Merge = staleDelete{}
	return &q
}

func init() {
	real, _ := engine.Lookup("duckdb")
	engine.Register("duckdb-stale", engine.Driver{Name: "duckdb-stale", File: true, Form: "duckdb-stale:PATH", Example: "duckdb-stale:x.duckdb",
		Open: func(ctx context.Context, path string, o engine.OpenOptions) (engine.DB, error) {
			db, err := real.Open(ctx, path, o)
			if err != nil {
				return nil, err
			}
			return staleDB{db.(*duckdb.DB)}, nil
		}})
}

// A rewrite whose delete removes fewer rows than the plan replaces fails
// the run, and the table keeps its rows: no key is left twice.
func TestRewriteDeleteCounted(t *testing.T) {
	e := enginetest.NewEnv(t, enginetest.Harness{InProcess: true, Target: func(t *testing.T) string {
		return "duckdb-stale:" + filepath.Join(t.TempDir(), "target.duckdb")
	}})
	header := "order_id,status,updated_at\n"
	e.Write("in/2026-11-01.csv", header+"1,placed,2026-11-01 09:00:00\n2,placed,2026-11-01 09:00:00\n")
	e.Write("in/2026-11-02.csv", header+"1,shipped,2026-11-02 09:00:00\n3,placed,2026-11-02 09:00:00\n")
	j := e.Job("job: stale\nsource:\n  files: in/{{ date }}.csv\nstrategy: merge\nkey: [order_id]\nlatest_by: updated_at\n")
	e.MustRun(j, "2026-11-01")
	before := e.Checksum("")
	_, err := e.Run(j, "2026-11-02")
	require.ErrorContains(t, err, "the plan replaces 1 rows, the delete removed 0")
	require.Equal(t, before, e.Checksum(""))
	require.Equal(t, []string{"1|placed", "2|placed"}, e.Rows("", "order_id", "status"))
}
