package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckExpression(t *testing.T) {
	t.Parallel()
	ok := []string{
		"true",
		"status = 'shipped'",
		`"order id" > 3 AND "we;ird" IS NOT NULL`,
		"note = 'a; b -- c /* d */ # e'",
		"note = 'it''s; fine'",
		`"a""b" = 1`,
		"created_at >= TIMESTAMP '2026-11-28 00:00:00' AND created_at < TIMESTAMP '2026-11-29 00:00:00'",
		"order_id IN (SELECT order_id FROM sales.orders WHERE status = 'x' UNION SELECT 2)",
		"(a OR b) AND (c OR (d))",
		"x IS DISTINCT FROM y",
		"CAST(x AS TIMESTAMP WITH TIME ZONE) > now()",
		"note = $$it's (here$$",
		"note = $t$a b$t$",
		"x = $1",
		`path = 'C:\'`,           // a single backslash, standard SQL
		"E'\\'' = note",          // an escaped quote, PostgreSQL escape string
		"selected AND unionized", // words that contain clause words
		"über > 1",
		"x / 2 > 1 AND y - 1 < 0",
		"-1 < x",
	}
	for _, s := range ok {
		require.NoError(t, CheckExpression(s), s)
	}
	bad := map[string]string{
		"":                                     "is empty",
		"   ":                                  "is empty",
		"true; DROP TABLE idem_runs; SELECT 1": "contains ';'",
		"true;":                                "contains ';'",
		"true -- and the rest":                 "contains a comment",
		"true /* x */":                         "contains a comment",
		"true # x":                             "contains a comment",
		"true) UNION SELECT 1, '2' FROM idem_runs WHERE (true": "closes a parenthesis",
		"true UNION SELECT count(*), 'x' FROM idem_runs":       "has UNION outside parentheses",
		"SELECT true":     "has SELECT outside parentheses",
		"true ORDER BY 1": "has ORDER outside parentheses",
		"true) OR (true":  "closes a parenthesis",
		"(true":           "opens a parenthesis",
		"note = 'open":    "string literal that is not closed",
		`"open = 1`:       "quoted identifier that is not closed",
		"note = $$open":   "string that is not closed",
		"`x` = 1":         "contains '`'",
		// Ends differently under backslash escapes: unsafe either way.
		`note = 'a\'; DROP TABLE idem_runs; --'`:   "contains",
		`note = E'a\''; DROP TABLE idem_runs; --'`: "contains",
		// A dollar quote where the engine has none.
		"note = $$; DROP TABLE idem_runs $$": "contains ';'",
	}
	for s, want := range bad {
		err := CheckExpression(s)
		require.Error(t, err, s)
		require.Contains(t, err.Error(), want, s)
	}
}
