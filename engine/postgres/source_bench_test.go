package postgres_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/postgres"
	"github.com/idemdata/idem/input"
)

// BenchmarkSource1M reads idem-bench scenario 8's table (1M rows) as a
// source database's rows: the read alone (the engine's rows, the reader's
// vectors and the fingerprint), and the read copied into a staging table
// of another connection, rolled back. Numbers in BENCHMARKS.md:
//
//	go test ./engine/postgres -run '^$' -bench Source1M -benchtime 3x -cpuprofile /tmp/src.prof
func BenchmarkSource1M(b *testing.B) {
	ctx := context.Background()
	url := freshDatabase(b)
	setup := benchDB(b, url)
	_, err := setup.ExecContext(ctx, `CREATE TABLE src_orders AS SELECT i::bigint AS order_id, (i % 5000)::bigint AS customer_id,
	  DATE '2026-11-28' AS order_date, 'status_' || (i % 7) AS status, (i % 100000) / 100.0::numeric(12,2) AS amount,
	  TIMESTAMP '2026-11-28' + i * INTERVAL '1 ms' AS updated_at FROM generate_series(1, 1000000) AS i`)
	require.NoError(b, err)
	_, err = setup.ExecContext(ctx, `ALTER TABLE src_orders ALTER COLUMN amount TYPE numeric(12,2)`)
	require.NoError(b, err)
	src, err := postgres.OpenReadOnly(ctx, url, time.Minute)
	require.NoError(b, err)
	defer src.Close()
	read := func(b *testing.B, load func(cols []input.Column, r *input.Reader) int64) {
		rows, err := src.ReadSource(ctx, `SELECT * FROM src_orders`)
		require.NoError(b, err)
		defer rows.Close()
		hashed := input.HashRows(rows)
		cols := rows.Columns()
		types := make([]input.Type, len(cols))
		for i, c := range cols {
			types[i] = c.Type
		}
		r := input.ReadRows(ctx, hashed, types, nil)
		defer r.Close()
		require.Equal(b, int64(1_000_000), load(cols, r))
		require.NotEmpty(b, hashed.Hash.Fingerprint())
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			read(b, func(_ []input.Column, r *input.Reader) (n int64) {
				for {
					batch, err := r.Next()
					if err == io.EOF {
						return n
					}
					require.NoError(b, err)
					n += int64(batch.Len)
				}
			})
		}
	})
	dst, err := postgres.Open(ctx, url, time.Minute)
	require.NoError(b, err)
	defer dst.Close()
	b.Run("read+copy", func(b *testing.B) {
		for b.Loop() {
			read(b, func(cols []input.Column, r *input.Reader) int64 {
				return benchCopy(b, dst, cols, r)
			})
		}
	})
}

// benchCopy copies r into a staging table in a transaction it rolls back.
func benchCopy(b *testing.B, db *postgres.DB, src []input.Column, r *input.Reader) int64 {
	ctx := context.Background()
	d := postgres.Dialect{}
	cols := make([]engine.Column, len(src))
	for i, c := range src {
		cols[i] = engine.Column{Name: c.Name, Type: d.ColumnType(c.Type)}
	}
	tx, err := db.Begin(ctx)
	require.NoError(b, err)
	defer tx.Rollback()
	for _, q := range d.CreateStage(engine.StageTable, cols) {
		_, err := tx.ExecContext(ctx, q)
		require.NoError(b, err)
	}
	n, err := db.LoadRows(ctx, tx, engine.Table{Name: engine.StageTable}, cols, r, nil)
	require.NoError(b, err)
	return n
}
