package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"
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
