package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/sqltext"
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
		"{{ x }} = 1", // no template: checked as text
	}
	for _, s := range ok {
		require.NoError(t, CheckExpression(s, sqltext.Unknown), s)
	}
	bad := map[string]string{
		"":                                     "is empty",
		"   ":                                  "is empty",
		"true; DROP TABLE idem_runs; SELECT 1": "contains ';'",
		"true;":                                "contains ';'",
		"true -- and the rest":                 "contains a comment",
		"true /* x */":                         "contains a comment",
		"true /* x":                            "contains a comment",
		"true # x":                             "contains a comment",
		"true) UNION SELECT 1, '2' FROM idem_runs WHERE (true": "closes a parenthesis",
		"true UNION SELECT count(*), 'x' FROM idem_runs":       "has UNION outside parentheses",
		"SELECT true":     "has SELECT outside parentheses",
		"true ORDER BY 1": "has ORDER outside parentheses",
		"true) OR (true":  "closes a parenthesis",
		"(true":           "opens a parenthesis",
		"note = 'open":    "string literal that is not closed",
		`"open = 1`:       "quoted identifier that is not closed",
		"note = $$open":   "$$…$$ string that is not closed",
		"`x` = 1":         "contains '`'",
		"{{ x; }} = 1":    "contains ';'",
		// Ends differently under backslash escapes: unsafe either way.
		`note = 'a\'; DROP TABLE idem_runs; --'`:   "contains",
		`note = E'a\''; DROP TABLE idem_runs; --'`: "contains",
		// A dollar quote where the engine has none.
		"note = $$; DROP TABLE idem_runs $$": "contains ';'",
	}
	for s, want := range bad {
		err := CheckExpression(s, sqltext.Unknown)
		require.Error(t, err, s)
		require.Contains(t, err.Error(), want, s)
	}
}

// An engine's rules decide what is a literal and what a comment: the
// condition is read by them, every way a setting may read it.
func TestCheckExpressionRules(t *testing.T) {
	t.Parallel()
	pg := sqltext.Rules{Backslash: sqltext.NoUnlessSet, EscapeStrings: true, Dollar: sqltext.Yes, NestedComments: true}
	my := sqltext.Rules{Backslash: sqltext.NoUnlessSet, DoubleQuoted: sqltext.NoUnlessSet, Backtick: true,
		DashSpace: true, Hash: true, RunComments: true}
	ch := sqltext.Rules{Backslash: sqltext.Yes, IdentBackslash: true, Backtick: true, Dollar: sqltext.Yes, AnyTag: true,
		NestedComments: true, Hash: true, HashSpace: true, SlashSlash: true}
	cases := []struct {
		r     sqltext.Rules
		where string
		want  string // "" passes
	}{
		{pg, "a # b = 1", ""}, // PostgreSQL's # is XOR
		{pg, `note = 'a\'; DROP TABLE t; --'`, "contains"},
		{pg, "`x` = 1", "contains '`'"},
		{my, "`order id` = 1", ""},
		{my, "x = 1--1", ""}, // MySQL's -- needs a space to start a comment
		{my, "x = 1 -- 1", "contains a comment"},
		{my, "x = 1 /*! OR 1 */", "contains a comment"},
		{my, "x = 1 # y", "contains a comment"},
		{my, `note = "a\"; DROP TABLE t; --"`, "contains"},
		{my, `note = 'a\'; DROP TABLE t; --'`, "contains"},
		{my, "note = $$; DROP TABLE t $$", "contains ';'"},
		{ch, "note = $a b$; x$a b$", ""}, // a heredoc: any tag
		{ch, "note = $a$; x", "contains ';'"},
		{ch, `note = 'a\'; b'`, ""},
		{ch, "`a\\`; b` = 1", ""},
		{ch, "x // y", "contains a comment"},
		{ch, "x #y", "contains a comment"},
		{ch, "x # y", "contains a comment"},
	}
	for _, c := range cases {
		err := CheckExpression(c.where, c.r)
		if c.want == "" {
			require.NoError(t, err, c.where)
			continue
		}
		require.Error(t, err, c.where)
		require.Contains(t, err.Error(), c.want, c.where)
	}
}

func TestLexiconFallback(t *testing.T) {
	t.Parallel()
	// No engine is registered in this package's tests: the unknown rules.
	require.Equal(t, sqltext.Unknown, LexiconFor("nosuch://h/db").Rules)
	require.Equal(t, sqltext.Unknown, LexiconOf(nil).Rules)
	require.True(t, ReportsFunc("anything"), "with no lexicon registered, any name may be reported")
}
