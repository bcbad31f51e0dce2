package sqltext

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Rules shaped like the engines' (each engine's own are tested with its
// catalogue, through lint).
var (
	pgLike    = Rules{Backslash: NoUnlessSet, EscapeStrings: true, Dollar: Yes, NestedComments: true}
	mysqlLike = Rules{Backslash: NoUnlessSet, DoubleQuoted: NoUnlessSet, Backtick: true,
		DashSpace: true, Hash: true, RunComments: true}
	clickhouseLike = Rules{Backslash: Yes, IdentBackslash: true, Backtick: true, Dollar: Yes, AnyTag: true,
		NestedComments: true, Hash: true, HashSpace: true, SlashSlash: true}
	testRules = map[string]Rules{"pg": pgLike, "mysql": mysqlLike, "clickhouse": clickhouseLike, "unknown": Unknown}
)

func describe(toks []Token) []string {
	var out []string
	for _, tk := range toks {
		s := fmt.Sprintf("%s:%s", tk.Kind, tk.Text)
		if tk.Unclosed {
			s += "(unclosed)"
		}
		out = append(out, s)
	}
	return out
}

func TestTokenize(t *testing.T) {
	t.Parallel()
	r := pgLike
	r.Templates = true
	q := "SELECT \"a\"\"b\", 'x''y', E'\\'', $t$ $ $t$, 1.5e-3, $1 -- c\n/* d */ {{ date + 1d }}::date"
	var got []string
	for _, tk := range Tokenize(q, r) {
		got = append(got, fmt.Sprintf("%s:%s@%d.%d", tk.Kind, tk.Text, tk.Line, tk.Col))
	}
	want := []string{
		"word:SELECT@0.0", `quoted identifier:"a""b"@0.7`, "punctuation:,@0.13", "string:'x''y'@0.15",
		"punctuation:,@0.21", `string:E'\''@0.23`, "punctuation:,@0.28", "string:$t$ $ $t$@0.30",
		"punctuation:,@0.39", "number:1.5e-3@0.41", "punctuation:,@0.47", "parameter:$1@0.49",
		"comment:-- c@0.52", "comment:/* d */@1.0", "template:{{ date + 1d }}@1.8", "punctuation:::@1.23", "word:date@1.25",
	}
	require.Equal(t, want, got)
	require.Equal(t, `a"b`, Tokenize(`"a""b"`, r)[0].Value())
	require.Equal(t, " x ", Tokenize(`$q$ x $q$`, r)[0].Value())
	// Columns count characters, as YAML does.
	toks := Tokenize("SELECT 'é', now()", r)
	require.Equal(t, "now", toks[len(toks)-3].Text)
	require.Equal(t, 12, toks[len(toks)-3].Col)
	for _, q := range []string{"'open", `"open`, "/* open", "$x$ open", "{{ open", "E'\\"} {
		toks := Tokenize(q, r)
		require.Len(t, toks, 1, q)
		require.True(t, toks[0].Unclosed, q)
		require.Equal(t, q, toks[0].Text)
	}
	// Without Templates, {{ is punctuation: only lint's job queries have
	// templates.
	require.Equal(t, []string{"punctuation:{", "punctuation:{", "word:x", "punctuation:}", "punctuation:}"},
		describe(Tokenize("{{x}}", pgLike)))
}

// Each rule changes where a literal or a comment ends.
func TestRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		r    Rules
		in   string
		want []string
	}{
		{"standard strings end at the quote", Rules{}, `'a\' b`,
			[]string{`string:'a\'`, "word:b"}},
		{"backslash escapes", Rules{Backslash: Yes}, `'a\' b'`,
			[]string{`string:'a\' b'`}},
		{"a setting's first reading", Rules{Backslash: YesUnlessSet}, `'a\' b'`,
			[]string{`string:'a\' b'`}},
		{"escape strings", Rules{EscapeStrings: true}, `E'a\'' b`,
			[]string{`string:E'a\''`, "word:b"}},
		{"no escape strings", Rules{}, `E'a'`,
			[]string{"word:E", "string:'a'"}},
		{"double quotes make an identifier", Rules{Backslash: Yes}, `"a\" b"`,
			[]string{`quoted identifier:"a\"`, "word:b", `quoted identifier:"(unclosed)`}},
		{"double quotes make a string", Rules{Backslash: Yes, DoubleQuoted: Yes}, `"a\" b"`,
			[]string{`string:"a\" b"`}},
		{"backslash in identifiers", Rules{IdentBackslash: true, Backtick: true}, "`a\\` b` \"c\\\" d\"",
			[]string{"quoted identifier:`a\\` b`", `quoted identifier:"c\" d"`}},
		{"no backticks", Rules{}, "`a`",
			[]string{"punctuation:`", "word:a", "punctuation:`"}},
		{"dollar quotes", Rules{Dollar: Yes}, "$a$ x $b$ $a$ $$y$$",
			[]string{"string:$a$ x $b$ $a$", "string:$$y$$"}},
		{"no dollar quotes", Rules{}, "$a$",
			[]string{"punctuation:$", "word:a$"}},
		{"an unclosed dollar quote runs to the end", Rules{Dollar: Yes}, "$a$ x",
			[]string{"string:$a$ x(unclosed)"}},
		{"any tag", Rules{Dollar: Yes, AnyTag: true}, "$x y$ ; $x y$",
			[]string{"string:$x y$ ; $x y$"}},
		{"any tag needs its close", Rules{Dollar: Yes, AnyTag: true}, "$a$ ;",
			[]string{"punctuation:$", "word:a$", "punctuation:;"}},
		{"nested comments", Rules{NestedComments: true}, "/* a /* b */ c */ d",
			[]string{"comment:/* a /* b */ c */", "word:d"}},
		{"flat comments", Rules{}, "/* a /* b */ c */ d",
			[]string{"comment:/* a /* b */", "word:c", "punctuation:*", "punctuation:/", "word:d"}},
		{"-- starts a comment", Rules{}, "1--1\n2",
			[]string{"number:1", "comment:--1", "number:2"}},
		{"-- needs a space", Rules{DashSpace: true}, "1--1 -- x\n2 --\t",
			[]string{"number:1", "punctuation:-", "punctuation:-", "number:1", "comment:-- x", "number:2", "comment:--\t"}},
		{"# is an operator", Rules{}, "a # b",
			[]string{"word:a", "punctuation:#", "word:b"}},
		{"# comments", Rules{Hash: true}, "a #b\nc",
			[]string{"word:a", "comment:#b", "word:c"}},
		{"# comments before a space", Rules{Hash: true, HashSpace: true}, "a #b # c\nd #!e",
			[]string{"word:a", "punctuation:#", "word:b", "comment:# c", "word:d", "comment:#!e"}},
		{"// comments", Rules{SlashSlash: true}, "a // b\nc",
			[]string{"word:a", "comment:// b", "word:c"}},
		{"// divides", Rules{}, "a // b",
			[]string{"word:a", "punctuation:/", "punctuation:/", "word:b"}},
		{"run comments", Rules{RunComments: true}, "1 /*!50100 + now() */ /*M! - 2 */ /* x */",
			[]string{"number:1", "comment:/*!50100", "punctuation:+", "word:now", "punctuation:(", "punctuation:)",
				"comment:*/", "comment:/*M!", "punctuation:-", "number:2", "comment:*/", "comment:/* x */"}},
		{"run comments are comments elsewhere", Rules{}, "/*! now() */",
			[]string{"comment:/*! now() */"}},
		{"templates", Rules{Templates: true}, "{{ '}}' }} x",
			[]string{"template:{{ '}}", "string:' }} x(unclosed)"}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, describe(Tokenize(c.in, c.r)), "%s: %q", c.name, c.in)
	}
}

func TestReadings(t *testing.T) {
	t.Parallel()
	rs := pgLike.Readings()
	require.Len(t, rs, 2)
	require.Equal(t, No, rs[0].Backslash)
	require.Equal(t, Yes, rs[1].Backslash)
	rs = mysqlLike.Readings()
	require.Len(t, rs, 4)
	require.Equal(t, []Rule{No, No}, []Rule{rs[0].Backslash, rs[0].DoubleQuoted}, "idem's sessions first")
	seen := map[[2]Rule]bool{}
	for _, r := range rs {
		seen[[2]Rule{r.Backslash, r.DoubleQuoted}] = true
		require.True(t, r.Backtick, "other rules are kept")
	}
	require.Len(t, seen, 4)
	rs = Unknown.Readings()
	require.Len(t, rs, 4)
	require.Equal(t, []Rule{No, Yes}, []Rule{rs[0].Backslash, rs[0].Dollar})
	require.Len(t, clickhouseLike.Readings(), 1)

	// Only the rules whose characters the text has read it two ways.
	require.Len(t, mysqlLike.ReadingsOf("SELECT 1"), 1)
	require.Equal(t, mysqlLike.Readings()[0], mysqlLike.ReadingsOf("SELECT 1")[0])
	require.Len(t, mysqlLike.ReadingsOf(`SELECT 'a\'`), 2)
	require.Len(t, mysqlLike.ReadingsOf(`SELECT "a"`), 2)
	require.Len(t, mysqlLike.ReadingsOf(`SELECT "a\"`), 4)
	require.Len(t, Unknown.ReadingsOf("$$"), 2)
	require.Len(t, Unknown.ReadingsOf(`$$ \`), 4)
}

var testCatalogue = NewCatalogue(
	Func{Name: "now", Kind: Clock},
	Func{Name: "current_date", Kind: Clock, Bare: true},
	Func{Name: "age", Kind: Clock, Args: []int{1}},
	Func{Name: "unix_timestamp", Kind: Clock, Args: []int{0}},
	Func{Name: "generateUUIDv4", Kind: Random},
)

func callsIn(q string, r Rules) []string {
	toks := Tokenize(q, r)
	var out []string
	for _, c := range testCatalogue.Calls(toks) {
		text := q[toks[c.Start].Off : toks[c.End].Off+len(toks[c.End].Text)]
		out = append(out, fmt.Sprintf("%s/%d %s", c.Func.Name, c.Args, text))
	}
	return out
}

func TestCalls(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"SELECT now()":                                   {"now/0 now()"},
		"SELECT NOW ( ) FROM t":                          {"now/0 NOW ( )"},
		"SELECT now /* c */ (  ) FROM t":                 {"now/0 now /* c */ (  )"},
		`SELECT "now"()`:                                 {`now/0 "now"()`},
		`SELECT pg_catalog."now"()`:                      {`now/0 pg_catalog."now"()`},
		`SELECT "pg_catalog".now(), a.b.now()`:           {`now/0 "pg_catalog".now()`, "now/0 a.b.now()"},
		"SELECT GenerateUUIDv4(), generateuuidv4(x)":     {"generateUUIDv4/0 GenerateUUIDv4()", "generateUUIDv4/1 generateuuidv4(x)"},
		"SELECT age(x), age(x, y), age(f(a, b)), age()":  {"age/1 age(x)", "age/1 age(f(a, b))"},
		"SELECT pg_catalog.age(x), pg_catalog.age(x, y)": {"age/1 pg_catalog.age(x)"},
		"SELECT ts.age(), ts.age(a, b)":                  {"age/0 ts.age()"}, // a method call: age(ts)
		"SELECT age(ARRAY[1, 2]), age((1, 2))":           {"age/1 age(ARRAY[1, 2])", "age/1 age((1, 2))"},
		"SELECT unix_timestamp(), unix_timestamp(d)":     {"unix_timestamp/0 unix_timestamp()"},
		"SELECT current_date, CURRENT_DATE(), x":         {"current_date/-1 current_date", "current_date/0 CURRENT_DATE()"},
		"SELECT now(":                                    {"now/0 now("},
		"SELECT now(1, age(x":                            {"now/2 now(1, age(x", "age/1 age(x"},
		// Not calls.
		"SELECT 'now()', $$now()$$ -- now()\n/* now() */":          nil,
		`SELECT "now", "current_date" FROM t`:                      nil,
		"SELECT now, t.now, t.current_date, current_date.x FROM t": nil,
		"SELECT 1 AS current_date, x AS now":                       nil,
		"SELECT nownow(), now_ts, generateUUIDv4x()":               nil,
	}
	for q, want := range cases {
		require.Equal(t, want, callsIn(q, pgLike), q)
	}
	require.Equal(t, []string{"now/0 `now`()"}, callsIn("SELECT `now`(), `now` FROM t", mysqlLike))
	require.Nil(t, (*Catalogue)(nil).Calls(Tokenize("now()", pgLike)))
}

func TestCatalogue(t *testing.T) {
	t.Parallel()
	require.True(t, testCatalogue.Has("GENERATEUUIDV4"))
	require.False(t, testCatalogue.Has("random"))
	f, ok := testCatalogue.Lookup("AGE", 1)
	require.True(t, ok)
	require.Equal(t, "age", f.Name)
	_, ok = testCatalogue.Lookup("age", 2)
	require.False(t, ok)
	_, ok = testCatalogue.Lookup("now", -1)
	require.False(t, ok, "now is no keyword")
	m := Merge(testCatalogue, nil, NewCatalogue(Func{Name: "random", Kind: Random}))
	require.True(t, m.Has("random"))
	require.True(t, m.Has("age"))
	require.Len(t, m.Funcs(), 6)
	var nilC *Catalogue
	require.False(t, nilC.Has("now"))
	require.Empty(t, nilC.Funcs())
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"SELECT now()", "'a''b'", "E'\\'", "$a$ x $a$", "/* /* */ */", "{{ date }}", "`x`",
		"\"q\"\"\"", "1e-", "é", "$1", "--", "#", "# x", "#!", "//", "/*!1 now() */", "/*M!", "$a b$ $a b$", "pg_catalog.\"now\"(",
		"age(x, (y), [z])", "ts.age()", "current_date"} {
		f.Add(s)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range testRules {
			if !yield(k) {
				return
			}
		}
	})
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range names {
			base := testRules[name]
			base.Templates = true
			for _, r := range base.Readings() {
				toks := Tokenize(s, r)
				// Tokens cover the input in order, skipping only whitespace,
				// and their lines and columns are where their offsets are.
				end, line, col := 0, 0, 0
				for _, tk := range toks {
					if tk.Off < end || tk.Text == "" || tk.Off+len(tk.Text) > len(s) || s[tk.Off:tk.Off+len(tk.Text)] != tk.Text ||
						strings.TrimSpace(s[end:tk.Off]) != "" {
						t.Fatalf("%s: token %+v after offset %d in %q", name, tk, end, s)
					}
					line, col = advance(s[end:tk.Off], line, col)
					if tk.Line != line || tk.Col != col {
						t.Fatalf("%s: token %+v is at %d.%d", name, tk, line, col)
					}
					line, col = advance(tk.Text, line, col)
					end = tk.Off + len(tk.Text)
					_ = tk.Value()
				}
				if strings.TrimSpace(s[end:]) != "" {
					t.Fatalf("%s: %q left after the last token", name, s[end:])
				}
				for _, c := range testCatalogue.Calls(toks) {
					if c.Start < 0 || c.Start > c.Name || c.Name > c.End || c.End >= len(toks) {
						t.Fatalf("%s: call %+v out of range of %d tokens", name, c, len(toks))
					}
				}
			}
		}
	})
}

// advance moves a 0-based line and column (in characters) over s.
func advance(s string, line, col int) (int, int) {
	for _, c := range s {
		if c == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	return line, col
}
