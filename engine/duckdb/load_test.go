package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// TestLoadRowsAcrossReleasedBatches: the load releases each batch once
// DuckDB has copied it, and the reader fills it again; every row of many
// batches arrives as read, its text too.
func TestLoadRowsAcrossReleasedBatches(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "l.duckdb"), 0)
	require.NoError(t, err)
	defer db.Close()
	cols := []engine.Column{{Name: "id", Type: "BIGINT"}, {Name: "name", Type: "VARCHAR"}}
	_, err = db.conn.ExecContext(ctx, `CREATE TABLE t (id BIGINT, name VARCHAR)`)
	require.NoError(t, err)

	const n = 5*input.BatchRows + 3
	types := []input.Type{{Kind: input.Int, Bits: 64}, {Kind: input.Text}}
	src := &countRows{cols: []input.Column{{Name: "id", Type: types[0]}, {Name: "name", Type: types[1]}}, n: n}
	rows := input.ReadRows(ctx, src, types, nil)
	defer rows.Close()
	got, err := db.LoadRows(ctx, db.conn, engine.Table{Name: "t"}, cols, rows, func(string) {})
	require.NoError(t, err)
	require.EqualValues(t, n, got)

	var count, distinct, right int64
	require.NoError(t, db.conn.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT id),
		count(*) FILTER (WHERE name = 'row ' || id || ' of many, long enough to leave DuckDB''s inlined strings') FROM t`).Scan(&count, &distinct, &right))
	require.Equal(t, []int64{n, n, n}, []int64{count, distinct, right})
}

// countRows are rows 1..n of a source: an id and its text.
type countRows struct {
	cols  []input.Column
	id, n int64
}

func (r *countRows) Columns() []input.Column { return r.cols }
func (r *countRows) Err() error              { return nil }
func (r *countRows) Next(dest []any) bool {
	if r.id == r.n {
		return false
	}
	r.id++
	dest[0], dest[1] = r.id, fmt.Sprintf("row %d of many, long enough to leave DuckDB's inlined strings", r.id)
	return true
}
