package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

// CountDistinct counts what a subquery of SELECT DISTINCT counts, NULLs
// included (one value alone, and inside a row of several columns), on an
// empty table too.
func TestCountDistinct(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	ctx := t.Context()
	q := db.Conn()
	_, err := q.ExecContext(ctx, `CREATE TABLE "k" ("a" BIGINT, "b" TEXT)`)
	require.NoError(t, err)
	in := db.SQL().Inspect
	count := func(query string) (n int64) {
		require.NoError(t, q.QueryRowContext(ctx, query).Scan(&n))
		return n
	}
	for _, rows := range []string{
		"",
		"(1, 'x'), (1, 'x'), (2, 'x')",
		"(NULL, 'x'), (NULL, 'x'), (1, NULL), (1, NULL), (NULL, NULL), (NULL, NULL), (2, 'y')",
	} {
		if rows != "" {
			_, err := q.ExecContext(ctx, `INSERT INTO "k" VALUES `+rows)
			require.NoError(t, err)
		}
		for _, cols := range [][]string{{"a"}, {"b"}, {"a", "b"}} {
			want := count(`SELECT count(*) FROM (SELECT DISTINCT ` + idents(cols) + ` FROM "k") AS d`)
			require.Equal(t, want, count(in.CountDistinct(`"k"`, cols)), "%v over %q", cols, rows)
		}
	}
}

func idents(cols []string) string {
	s := ""
	for i, c := range cols {
		if i > 0 {
			s += ", "
		}
		s += `"` + c + `"`
	}
	return s
}

// PlacementChecksum's one scan gives Placement's counts and the checksum
// Checksum gives of the window's rows, so a direct load's recorded
// checksum is the one a later run's skip compares.
func TestPlacementChecksum(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	ctx := t.Context()
	q := db.Conn()
	_, err := q.ExecContext(ctx, `CREATE TABLE "p" ("id" BIGINT, "d" DATE, "v" TEXT, "n" NUMERIC(12,2));
		INSERT INTO "p" VALUES (1, '2026-11-28', 'a', 1.50), (2, '2026-11-28', NULL, NULL), (3, '2026-11-27', 'c', 2),
		(4, NULL, 'd', 3), (5, '2026-11-28', 'a', 1.50)`)
	require.NoError(t, err)
	s := db.SQL()
	cols, err := columnsOf(t, q, `"p"`)
	require.NoError(t, err)
	for _, where := range []string{`"d" >= DATE '2026-11-28' AND "d" < DATE '2026-11-29'`, `"d" >= DATE '2026-12-01' AND "d" < DATE '2026-12-02'`} {
		var total, in, nulls, wantTotal, wantIn, wantNulls, n int64
		var sum, wantSum string
		require.NoError(t, q.QueryRowContext(ctx, s.Write.Placement(`"p"`, where, "d")).Scan(&wantTotal, &wantIn, &wantNulls))
		require.NoError(t, q.QueryRowContext(ctx, s.Check.Checksum(`"p"`, cols, where)).Scan(&n, &wantSum))
		pc := s.Check.(engine.PlacementChecksummer)
		require.NoError(t, q.QueryRowContext(ctx, pc.PlacementChecksum(`"p"`, where, "d", cols)).Scan(&total, &in, &nulls, &sum))
		require.Equal(t, []int64{wantTotal, wantIn, wantNulls, n}, []int64{total, in, nulls, in}, where)
		require.Equal(t, wantSum, sum, where)
	}
}

func columnsOf(t *testing.T, q engine.Querier, table string) ([]engine.Column, error) {
	t.Helper()
	rows, err := q.QueryContext(t.Context(), "SELECT * FROM "+table+" LIMIT 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]engine.Column, len(cts))
	for i, c := range cts {
		cols[i] = engine.Column{Name: c.Name(), Type: c.DatabaseTypeName()}
	}
	return cols, nil
}
