package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/sqltext"
	"github.com/idemdata/idem/job"
)

// engines are the target URL schemes lint is tested on, one per engine.
var engines = []string{"postgres", "duckdb", "mysql", "clickhouse"}

func lexiconOf(scheme string) *sqltext.Lexicon { return engine.LexiconFor(scheme + "://") }

// funcsIn lints one query as the engine of scheme reads it and returns the
// functions found.
func funcsIn(q, scheme string) []string {
	lex := lexiconOf(scheme)
	var got []string
	for _, f := range nondeterministic(q, readings(q, lex.Rules), lex) {
		got = append(got, f.Func)
	}
	return got
}

func TestEveryEngineHasALexicon(t *testing.T) {
	for _, scheme := range []string{"postgres", "postgresql", "duckdb", "mysql", "chdb", "clickhouse", "clickhouses"} {
		d, ok := engine.Lookup(scheme)
		if !ok || d.Lexicon == nil || len(d.Lexicon.Funcs.Funcs()) == 0 {
			t.Errorf("%s: no lexicon registered", scheme)
		}
	}
	// The dialect a DB gives (for --where) says what the driver says.
	if engine.LexiconFor("chdb:x") != engine.LexiconFor("clickhouse://h/db") {
		t.Error("chdb and clickhouse read SQL differently")
	}
}

// qualifiers are the schemas an engine's built-in functions can be called
// through (none: it does not qualify function names).
var qualifiers = map[string][]string{
	"postgres": {"pg_catalog."},
	"duckdb":   {"main.", "system.main."},
}

// callOf spells a call of f with an argument count its entry covers.
func callOf(name string, f sqltext.Func) string {
	n := 0
	if f.Args != nil {
		n = f.Args[0]
	}
	args := make([]string, n)
	for i := range args {
		args[i] = fmt.Sprintf("a%d", i)
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// Every function of every engine's catalogue is found when called plainly,
// in any case, quoted, qualified, and (for a keyword) without parentheses;
// and not in a string, a comment, or as a column.
func TestCatalogues(t *testing.T) {
	for _, scheme := range engines {
		lex := lexiconOf(scheme)
		quote := func(s string) string { return `"` + s + `"` }
		if scheme == "mysql" {
			quote = func(s string) string { return "`" + s + "`" }
		}
		for _, f := range lex.Funcs.Funcs() {
			call := callOf(f.Name, f)
			forms := []string{
				"SELECT " + call + " AS x FROM t",
				"SELECT id FROM t WHERE ts < " + callOf(strings.ToUpper(f.Name), f),
				"SELECT coalesce(a, " + callOf(strings.ToLower(f.Name), f) + ") FROM t",
				"SELECT\n  id,\n  " + call + "\nFROM t -- comment",
				"SELECT " + strings.Replace(call, "(", " /* c */ (", 1) + " FROM t",
				"SELECT " + callOf(quote(f.Name), f) + " FROM t",
			}
			for _, q := range qualifiers[scheme] {
				forms = append(forms, "SELECT "+q+call, "SELECT "+q+callOf(quote(f.Name), f))
			}
			if f.Bare {
				forms = append(forms, "SELECT "+f.Name+" FROM t", "SELECT id FROM t WHERE d < "+strings.ToUpper(f.Name))
			}
			for _, q := range forms {
				if got := funcsIn(q, scheme); !slices.Equal(got, []string{f.Name}) {
					t.Errorf("%s: %q: found %v, want [%s]", scheme, q, got, f.Name)
				}
			}
			notCalls := []string{
				"SELECT '" + call + "' AS s FROM t",
				"SELECT a -- " + call + "\nFROM t",
				"SELECT a /* " + call + " */ FROM t",
				"SELECT " + quote(f.Name) + " FROM t",
				"SELECT t." + f.Name + " FROM t",
				"SELECT x AS " + f.Name + " FROM t",
				"SELECT " + f.Name + "_at, my_" + call + " FROM t",
			}
			if !f.Bare {
				notCalls = append(notCalls, "SELECT "+f.Name+" FROM t")
			}
			for _, q := range notCalls {
				if got := funcsIn(q, scheme); len(got) > 0 {
					t.Errorf("%s: %q: found %v, want nothing", scheme, q, got)
				}
			}
		}
	}
}

// The calls the issue names, each on its engine.
func TestRunDependentCalls(t *testing.T) {
	cases := []struct {
		scheme, q string
		want      []string
	}{
		{"postgres", `SELECT "now"() AS t`, []string{"now"}},
		{"postgres", `SELECT pg_catalog."now"() AS t`, []string{"now"}},
		{"postgres", `SELECT "pg_catalog"."now"() AS t`, []string{"now"}},
		{"postgres", "SELECT age(created_at) FROM t", []string{"age"}},
		{"postgres", "SELECT age(shipped_at, created_at) FROM t", nil},
		{"postgres", "SELECT pg_catalog.age(x) FROM t", []string{"age"}},
		{"postgres", "SELECT txid_current()", []string{"txid_current"}},
		{"postgres", "SELECT pg_backend_pid()", []string{"pg_backend_pid"}},
		{"postgres", "SELECT now", nil}, // a column
		{"duckdb", "SELECT created_at.age() FROM t", []string{"age"}},
		{"duckdb", "SELECT age(a, b) FROM t", nil},
		{"mysql", "SELECT unix_timestamp()", []string{"unix_timestamp"}},
		{"mysql", "SELECT unix_timestamp(created_at) FROM t", nil},
		{"mysql", "SELECT `rand`(), utc_date", []string{"rand", "utc_date"}},
		{"clickhouse", "SELECT yesterday()", []string{"yesterday"}},
		{"clickhouse", "SELECT rand64()", []string{"rand64"}},
		{"clickhouse", "SELECT generateUUIDv4()", []string{"generateUUIDv4"}},
		{"clickhouse", "SELECT today, now AS x", []string{"today", "now"}}, // ClickHouse calls them without parentheses
		{"chdb", "SELECT yesterday(), rand64(), generateUUIDv4()", []string{"yesterday", "rand64", "generateUUIDv4"}},
	}
	for _, c := range cases {
		if got := funcsIn(c.q, c.scheme); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q: found %v, want %v", c.scheme, c.q, got, c.want)
		}
	}
}

func TestFalseAlarms(t *testing.T) {
	cases := []struct {
		q  string
		in []string // engines the case applies to (nil: all)
	}{
		{q: "SELECT 'now()' AS s"},
		{q: "SELECT 'it''s random() now()' AS s"},
		{q: `SELECT "now" FROM t`}, // a column, or a string in MySQL
		{q: "SELECT `now`, `rand` FROM t", in: []string{"mysql", "clickhouse"}},
		{q: "SELECT a -- now()\nFROM t"},
		{q: "SELECT a /* random() */ FROM t"},
		{q: "SELECT a /* outer /* nested now() */ still random() */ FROM t", in: []string{"postgres", "duckdb", "clickhouse"}},
		{q: "SELECT a # now()\nFROM t", in: []string{"mysql", "clickhouse"}},
		{q: "SELECT x AS now FROM t"},
		{q: "SELECT now AS x FROM t", in: []string{"postgres", "duckdb", "mysql"}}, // a column named now
		{q: "SELECT t.now, t.random FROM t"},
		{q: "SELECT t.current_date, t.localtime FROM t"},
		{q: "SELECT 1 AS current_date, 2 AS localtimestamp"},
		{q: "SELECT nownow(), random_id, uuid_col, now_ts FROM t"},
		{q: "SELECT E'it\\'s now()' AS s", in: []string{"postgres", "duckdb"}},
		{q: "SELECT 'it\\'s now()' AS s", in: []string{"mysql", "clickhouse"}},
		{q: "SELECT $$ now() $$, $fn$ random() $x$ $fn$ AS s", in: []string{"postgres", "duckdb", "clickhouse"}},
		{q: "SELECT a FROM t WHERE d >= {{ start }} AND d < {{ end }} AND note <> 'TIMESTAMP now'"},
		{q: "SELECT 'today' AS label, DATE '2026-01-01'"},
	}
	for _, c := range cases {
		for _, scheme := range engines {
			if c.in != nil && !slices.Contains(c.in, scheme) {
				continue
			}
			if got := funcsIn(c.q, scheme); len(got) > 0 {
				t.Errorf("%s: found %v in %q, want nothing", scheme, got, c.q)
			}
		}
	}
}

// Cases where the engine's lexical rules decide the answer.
func TestEngineRulesDiffer(t *testing.T) {
	cases := []struct {
		q    string
		want map[string]int
	}{
		// PostgreSQL (as standard_conforming_strings reads it) and MySQL
		// under idem's NO_BACKSLASH_ESCAPES do not escape with \ in '…':
		// the string ends at the second quote and now() is code.
		// ClickHouse reads ' as a quote.
		{`SELECT 'a\' , now() -- '`, map[string]int{"postgres": 1, "duckdb": 1, "mysql": 1, "clickhouse": 0}},
		// PostgreSQL nests block comments; MySQL ends at the first */.
		{"SELECT /* a /* b */ now() */ 1", map[string]int{"postgres": 0, "duckdb": 0, "mysql": 1, "clickhouse": 0}},
		// MySQL needs a space after --.
		{"SELECT 1--now()\n", map[string]int{"postgres": 0, "duckdb": 0, "mysql": 1, "clickhouse": 0}},
		// Dollar quotes are PostgreSQL's (and ClickHouse's heredocs).
		{"SELECT $$x$$, now()", map[string]int{"postgres": 1, "duckdb": 1, "mysql": 1, "clickhouse": 1}},
		{"SELECT $a$ now() $a$", map[string]int{"postgres": 0, "duckdb": 0, "mysql": 1, "clickhouse": 0}},
		// // is ClickHouse's comment and DuckDB's integer division.
		{"SELECT 1 // now()\n", map[string]int{"duckdb": 1, "clickhouse": 0}},
		// # is MySQL's comment, ClickHouse's before a space, PostgreSQL's XOR.
		{"SELECT 1 # now()\n", map[string]int{"postgres": 1, "mysql": 0, "clickhouse": 0}},
		{"SELECT 1 #now()\n", map[string]int{"mysql": 0, "clickhouse": 1}},
		// MySQL runs what /*! … */ holds.
		{"SELECT 1 /*! + now() */", map[string]int{"postgres": 0, "mysql": 1}},
		// ANSI_QUOTES (idem's sessions) makes "rand" a name, and "rand"() a call.
		{`SELECT "rand"()`, map[string]int{"mysql": 1}},
	}
	for _, c := range cases {
		for scheme, want := range c.want {
			if got := funcsIn(c.q, scheme); len(got) != want {
				t.Errorf("%s: %q: found %v, want %d", scheme, c.q, got, want)
			}
		}
	}
}

func TestClockStrings(t *testing.T) {
	for _, q := range []string{
		"SELECT TIMESTAMP 'now'", "SELECT 'now'::timestamptz", "SELECT CAST('today' AS DATE)",
		"SELECT DATE 'yesterday'", "SELECT ' Now '::date",
	} {
		if got := funcsIn(q, "postgres"); len(got) != 1 {
			t.Errorf("%q: found %v, want one", q, got)
		}
		// DuckDB reads no such string as the clock: 'now'::timestamp is an
		// error there.
		if got := funcsIn(q, "duckdb"); len(got) != 0 {
			t.Errorf("duckdb: %q: found %v, want none", q, got)
		}
	}
}

// A job's target URL picks the lexicon: the same query is read by
// ClickHouse's rules on a ClickHouse target, and by PostgreSQL's on a
// PostgreSQL one.
func TestTargetPicksTheRules(t *testing.T) {
	q := `SELECT id, d FROM raw WHERE d = {{ date }} AND note <> 'it\' s' AND x = rand64()`
	body := func(url string) string {
		return "idem: 1\njob: orders\ntarget:\n  url: " + url + "\n  table: orders\nsource:\n  query: \"" +
			strings.ReplaceAll(strings.ReplaceAll(q, `\`, `\\`), `"`, `\"`) + "\"\nstrategy: partition\npartition: {column: d}\nkey: [id]\n"
	}
	var got []string
	for _, f := range Check(parse(t, body("clickhouse://default@127.0.0.1:9000/db"))) {
		got = append(got, f.Name+":"+f.Func)
	}
	if !slices.Equal(got, []string{"nondeterministic:rand64"}) {
		t.Errorf("clickhouse target: %v", got)
	}
	// On PostgreSQL the string ends at \', the query leaves a quote open,
	// and rand64 is no function of PostgreSQL's.
	got = nil
	for _, f := range Check(parse(t, body("postgres://u@h/db"))) {
		got = append(got, f.Name+":"+f.Func)
	}
	if len(got) != 0 {
		t.Errorf("postgres target: %v", got)
	}
}

func parse(t *testing.T, body string) *job.Job {
	t.Helper()
	j, err := job.Parse([]byte(body), t.TempDir(), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	j.Path = "orders.yaml"
	return j
}

const head = "idem: 1\njob: orders\ntarget:\n  table: orders\n"

func TestCheckPositionsAndAllow(t *testing.T) {
	j := parse(t, head+`source:
  query: |
    SELECT id, -- now() in a comment
      'now()' AS s, NOW() AS loaded
    FROM raw WHERE d = {{ date }}
strategy: partition
partition: {column: d}
key: [id]
`)
	fs := Check(j)
	if len(fs) != 1 {
		t.Fatalf("findings: %v", fs)
	}
	got := fs[0].String()
	want := "orders.yaml:8:21: error: nondeterministic: now is the time of the run"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "(NOW()) — do instead: use the partition's bounds") {
		t.Errorf("got  %s\nwant %s…", got, want)
	}
	err := Err(j)
	if je, ok := err.(*job.Error); !ok || len(je.Problems) != 1 || je.Problems[0].Line != 8 {
		t.Errorf("Err = %v", err)
	}

	// A one-line plain query maps columns too.
	j = parse(t, head+"source:\n  query: SELECT random() AS r FROM raw WHERE d = {{ date }}\nstrategy: partition\npartition: {column: d}\nkey: [r]\n")
	fs = Check(j)
	if len(fs) != 2 || fs[0].Line != 6 || fs[0].Column != 17 || fs[0].Func != "random" || fs[1].Name != job.LintGeneratedKey {
		t.Errorf("findings: %v", fs)
	}

	for _, allow := range []string{"[nondeterministic, generated-key]", "[\"nondeterministic:random\", generated-key]"} {
		j = parse(t, head+"source:\n  query: SELECT random() AS r FROM raw WHERE d = {{ date }}\nstrategy: partition\npartition: {column: d}\nkey: [r]\nlint: {allow: "+allow+"}\n")
		if err := Err(j); err != nil {
			t.Errorf("allow %s: %v", allow, err)
		}
	}
	// Waiving random does not waive now.
	j = parse(t, head+"source:\n  query: SELECT random(), now() FROM raw WHERE d = {{ date }}\nstrategy: partition\npartition: {column: d}\nkey: [r]\nlint: {allow: [\"nondeterministic:random\"]}\n")
	if err := Err(j); err == nil || !strings.Contains(err.Error(), "now") || strings.Contains(err.Error(), "random is") {
		t.Errorf("Err = %v", err)
	}
}

func TestAllowUnknownNameIsJobError(t *testing.T) {
	for _, allow := range []string{"[nondeterminstic]", "[\"nondeterministic:sin\"]", "[\"generated-key:now\"]"} {
		_, err := job.Parse([]byte(head+"source: {files: \"a-{{ date }}.csv\"}\nstrategy: partition\npartition: {column: d}\nlint:\n  allow: "+allow+"\n"), t.TempDir(), func(string) (string, bool) { return "", false })
		if err == nil || !strings.Contains(err.Error(), "lint.allow[0]") || !strings.Contains(err.Error(), "(line 9)") {
			t.Errorf("allow %s: %v", allow, err)
		}
	}
}

func TestWarnings(t *testing.T) {
	j := parse(t, head+"source:\n  query: SELECT id, d FROM raw\nstrategy: partition\npartition: {column: d}\n")
	var names []string
	for _, f := range Check(j) {
		names = append(names, f.Severity+" "+f.Name)
	}
	if want := []string{"warning query-without-window", "warning partition-without-key"}; !slices.Equal(names, want) {
		t.Errorf("findings %v, want %v", names, want)
	}
	if err := Err(j); err != nil {
		t.Errorf("warnings refuse: %v", err)
	}
	j = parse(t, head+"source:\n  files: [a.csv, b.csv]\nstrategy: partition\npartition: {column: d}\nkey: [id]\n")
	if fs := Check(j); len(fs) != 1 || fs[0].Name != job.LintFilesWithoutDate || fs[0].Line != 6 {
		t.Errorf("findings %v", fs)
	}
	// A template inside a comment or string does not restrict the query.
	j = parse(t, head+"source:\n  query: \"SELECT id, d FROM raw -- {{ date }}\"\nstrategy: partition\npartition: {column: d}\nkey: [id]\n")
	if fs := Check(j); len(fs) != 1 || fs[0].Name != job.LintQueryWithoutWindow {
		t.Errorf("findings %v", fs)
	}
}

func TestGeneratedKey(t *testing.T) {
	for _, c := range []struct {
		q    string
		want int
	}{
		{"SELECT row_number() OVER (ORDER BY ts) AS id, ts FROM raw", 1},
		{"SELECT a, md5(gen_random_uuid()::text) AS \"id\" FROM raw", 1},
		{"SELECT order_id AS id, row_number() OVER () AS rn FROM raw", 0},
		{"SELECT coalesce(x, 1) AS id, (SELECT max(rank() OVER ()) FROM y) AS z FROM raw", 0},
		{"SELECT cast(nextval('s') AS BIGINT) AS id FROM raw", 1},
	} {
		var n int
		pg := lexiconOf("postgres")
		for _, f := range generatedKeys(c.q, readings(c.q, pg.Rules)[0], []string{"id"}, pg.Funcs) {
			if f.Name == job.LintGeneratedKey {
				n++
			}
		}
		if n != c.want {
			t.Errorf("%q: %d generated-key findings, want %d", c.q, n, c.want)
		}
	}
	j := parse(t, head+"source: {files: \"a-{{ date }}.csv\"}\nstrategy: partition\npartition: {column: d}\nkey: [order_sk]\n")
	if fs := Check(j); len(fs) != 1 || fs[0].Name != job.LintGeneratedKey || !fs[0].Refuses() {
		t.Errorf("findings %v", fs)
	}
}

// A key named like a surrogate is a lint error on either strategy, which
// a job whose source really has such a column (a row_id of its own) waives
// under lint.allow; the job file itself is valid.
func TestSurrogateNamedKeyWaived(t *testing.T) {
	const merge = head + "source: {files: \"a-{{ date }}.csv\"}\nstrategy: merge\nkey: [row_id]\nlatest_by: v\n"
	j := parse(t, merge)
	fs := Check(j)
	if len(fs) != 1 || fs[0].Name != job.LintGeneratedKey || !fs[0].Refuses() ||
		!strings.Contains(fs[0].Message, "every rerun would mint new keys") || !strings.Contains(fs[0].Instead, "allow: [generated-key]") {
		t.Fatalf("findings %v", fs)
	}
	if Err(j) == nil {
		t.Fatal("a surrogate-named merge key refuses the job unless waived")
	}
	j = parse(t, merge+"lint: {allow: [generated-key]}\n")
	fs = Check(j)
	if len(fs) != 1 || !fs[0].Allowed || fs[0].Refuses() {
		t.Fatalf("findings %v", fs)
	}
	if err := Err(j); err != nil {
		t.Fatalf("waived: %v", err)
	}
}

// The checks never panic, whatever the query, on any engine's reading.
func FuzzChecks(f *testing.F) {
	for _, s := range []string{"SELECT now()", "'a''b'", "E'\\'", "$a$ x $a$", "/* /* */ */", "{{ date }}", "`x`", "\"q\"\"\"",
		"1e-", "é", "$1", "--", "#", "x AS id", "row_number() OVER () AS id", "pg_catalog.\"now\"(", "'now'::date"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, scheme := range engines {
			lex := lexiconOf(scheme)
			reads := readings(s, lex.Rules)
			for _, fd := range nondeterministic(s, reads, lex) {
				if fd.tok.Off < 0 || fd.tok.Off >= len(s) {
					t.Fatalf("%s: finding at offset %d of %d", scheme, fd.tok.Off, len(s))
				}
			}
			generatedKeys(s, reads[0], []string{"id"}, lex.Funcs)
		}
	})
}
