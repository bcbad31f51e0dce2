package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemdata/idem/job"
)

var dialects = []Dialect{Postgres, DuckDB, MySQL}

// funcsIn lints one query under d and returns the functions found.
func funcsIn(q string, d Dialect) []string {
	var got []string
	for _, f := range nondeterministic(q, Tokenize(q, d)) {
		got = append(got, f.Func)
	}
	return got
}

// The list, each as the SQL that calls it.
var listed = []struct{ name, call string }{
	{"now", "now()"},
	{"current_timestamp", "current_timestamp"},
	{"current_date", "current_date"},
	{"current_time", "current_time"},
	{"localtimestamp", "localtimestamp"},
	{"localtime", "localtime"},
	{"clock_timestamp", "clock_timestamp()"},
	{"statement_timestamp", "statement_timestamp()"},
	{"transaction_timestamp", "transaction_timestamp()"},
	{"timeofday", "timeofday()"},
	{"sysdate", "sysdate()"},
	{"utc_timestamp", "utc_timestamp()"},
	{"random", "random()"},
	{"rand", "rand()"},
	{"uuid", "uuid()"},
	{"gen_random_uuid", "gen_random_uuid()"},
	{"uuid_generate_v4", "uuid_generate_v4()"},
	{"newid", "newid()"},
	{"nextval", "nextval('order_seq')"},
}

func TestListedFunctionsEveryDialect(t *testing.T) {
	for _, d := range dialects {
		for _, fn := range listed {
			forms := []string{
				"SELECT " + fn.call + " AS x FROM t",
				"SELECT id FROM t WHERE ts < " + strings.ToUpper(fn.call),
				"SELECT coalesce(a, " + fn.call + ") FROM t",
				"SELECT\n  id,\n  " + fn.call + "\nFROM t -- comment",
			}
			if strings.HasSuffix(fn.call, "()") {
				// Whitespace and comments between name and "(" still call it.
				forms = append(forms, "SELECT "+fn.name+" /* c */ (  ) FROM t", "SELECT pg_catalog."+fn.name+"()")
			} else {
				forms = append(forms, "SELECT "+fn.call+"(3) FROM t", "SELECT "+fn.call+"::text")
			}
			for _, q := range forms {
				t.Run(d.String()+"/"+q, func(t *testing.T) {
					if got := funcsIn(q, d); !slices.Equal(got, []string{fn.name}) {
						t.Errorf("found %v, want [%s]", got, fn.name)
					}
				})
			}
		}
	}
}

func TestFalseAlarms(t *testing.T) {
	cases := []struct {
		q  string
		in []Dialect // dialects the case applies to (nil: all)
	}{
		{q: "SELECT 'now()' AS s"},
		{q: "SELECT 'it''s random() now()' AS s"},
		{q: `SELECT "now" FROM t`, in: []Dialect{Postgres, DuckDB}},
		{q: `SELECT "now"() FROM t`, in: []Dialect{Postgres, DuckDB}}, // a quoted name is a user's function
		{q: "SELECT `now`, `random`() FROM t", in: []Dialect{MySQL}},
		{q: `SELECT "now" FROM t`, in: []Dialect{MySQL}}, // a string in MySQL
		{q: "SELECT a -- now()\nFROM t"},
		{q: "SELECT a /* random() */ FROM t"},
		{q: "SELECT a /* outer /* nested now() */ still random() */ FROM t", in: []Dialect{Postgres, DuckDB}},
		{q: "SELECT a # now()\nFROM t", in: []Dialect{MySQL}},
		{q: "SELECT x AS now FROM t"},
		{q: "SELECT now AS x FROM t"}, // a column named now
		{q: "SELECT t.now, t.random FROM t"},
		{q: "SELECT t.current_date, t.localtime FROM t"},
		{q: "SELECT 1 AS current_date, 2 AS localtimestamp"},
		{q: "SELECT nownow(), random_id, uuid_col, now_ts FROM t"},
		{q: "SELECT E'it\\'s now()' AS s", in: []Dialect{Postgres, DuckDB}},
		{q: "SELECT 'it\\'s now()' AS s", in: []Dialect{MySQL}},
		{q: "SELECT $$ now() $$, $fn$ random() $x$ $fn$ AS s", in: []Dialect{Postgres, DuckDB}},
		{q: "SELECT a FROM t WHERE d >= {{ start }} AND d < {{ end }} AND note <> 'TIMESTAMP now'"},
		{q: "SELECT 'today' AS label, DATE '2026-01-01'"},
	}
	for _, c := range cases {
		for _, d := range dialects {
			if c.in != nil && !slices.Contains(c.in, d) {
				continue
			}
			t.Run(d.String()+"/"+c.q, func(t *testing.T) {
				if got := funcsIn(c.q, d); len(got) > 0 {
					t.Errorf("found %v in %q, want nothing", got, c.q)
				}
			})
		}
	}
}

// Cases where the dialect's quoting rules decide the answer.
func TestDialectDifferences(t *testing.T) {
	cases := []struct {
		q    string
		want map[Dialect]int
	}{
		// PostgreSQL does not escape with \ in '…': the string ends at
		// the second quote and now() is code. MySQL reads \' as a quote.
		{`SELECT 'a\' , now() -- '`, map[Dialect]int{Postgres: 1, DuckDB: 1, MySQL: 0}},
		// PostgreSQL nests block comments; MySQL ends at the first */.
		{"SELECT /* a /* b */ now() */ 1", map[Dialect]int{Postgres: 0, DuckDB: 0, MySQL: 1}},
		// MySQL needs a space after --.
		{"SELECT 1--now()\n", map[Dialect]int{Postgres: 0, DuckDB: 0, MySQL: 1}},
		// Dollar quotes are PostgreSQL's.
		{"SELECT $$x$$, now()", map[Dialect]int{Postgres: 1, DuckDB: 1, MySQL: 1}},
		{"SELECT $a$ now() $a$", map[Dialect]int{Postgres: 0, DuckDB: 0, MySQL: 1}},
	}
	for _, c := range cases {
		for d, want := range c.want {
			if got := funcsIn(c.q, d); len(got) != want {
				t.Errorf("%s: %q: found %v, want %d", d, c.q, got, want)
			}
		}
	}
}

func TestSpecialDateStrings(t *testing.T) {
	for _, q := range []string{
		"SELECT TIMESTAMP 'now'", "SELECT 'now'::timestamptz", "SELECT CAST('today' AS DATE)",
		"SELECT DATE 'yesterday'", "SELECT ' Now '::date",
	} {
		if got := funcsIn(q, Postgres); len(got) != 1 {
			t.Errorf("%q: found %v, want one", q, got)
		}
	}
}

func TestTokenize(t *testing.T) {
	q := "SELECT \"a\"\"b\", 'x''y', E'\\'', $t$ $ $t$, 1.5e-3, $1 -- c\n/* d */ {{ date + 1d }}::date"
	var got []string
	for _, tk := range Tokenize(q, Postgres) {
		got = append(got, fmt.Sprintf("%s:%s@%d.%d", tk.Kind, tk.Text, tk.Line, tk.Col))
	}
	want := []string{
		"word:SELECT@0.0", `quoted identifier:"a""b"@0.7`, "punctuation:,@0.13", "string:'x''y'@0.15",
		"punctuation:,@0.21", `string:E'\''@0.23`, "punctuation:,@0.28", "string:$t$ $ $t$@0.30",
		"punctuation:,@0.39", "number:1.5e-3@0.41", "punctuation:,@0.47", "parameter:$1@0.49",
		"comment:-- c@0.52", "comment:/* d */@1.0", "template:{{ date + 1d }}@1.8", "punctuation:::@1.23", "word:date@1.25",
	}
	if !slices.Equal(got, want) {
		t.Errorf("tokens:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	toks := Tokenize(`"a""b"`, Postgres)
	if v := toks[0].Value(); v != `a"b` {
		t.Errorf("Value = %q", v)
	}
	// Columns count characters, as YAML does.
	toks = Tokenize("SELECT 'é', now()", Postgres)
	if last := toks[len(toks)-3]; last.Text != "now" || last.Col != 12 {
		t.Errorf("now at column %d, want 12", last.Col)
	}
	for _, q := range []string{"'open", `"open`, "/* open", "$x$ open", "{{ open", "E'\\"} {
		toks := Tokenize(q, Postgres)
		if len(toks) != 1 || !toks[0].Unclosed || toks[0].Text != q {
			t.Errorf("%q: %+v, want one unclosed token", q, toks)
		}
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
		{"SELECT a, md5(uuid()::text) AS \"id\" FROM raw", 1},
		{"SELECT order_id AS id, row_number() OVER () AS rn FROM raw", 0},
		{"SELECT coalesce(x, 1) AS id, (SELECT max(rank() OVER ()) FROM y) AS z FROM raw", 0},
		{"SELECT cast(nextval('s') AS BIGINT) AS id FROM raw", 1},
	} {
		var n int
		for _, f := range generatedKeys(c.q, Tokenize(c.q, Postgres), []string{"id"}) {
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

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"SELECT now()", "'a''b'", "E'\\'", "$a$ x $a$", "/* /* */ */", "{{ date }}", "`x`", "\"q\"\"\"", "1e-", "é", "$1", "--", "#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range dialects {
			toks := Tokenize(s, d)
			// Tokens cover the input in order, skipping only whitespace.
			end := 0
			for _, tk := range toks {
				if tk.Off < end || strings.TrimSpace(s[end:tk.Off]) != "" || s[tk.Off:tk.Off+len(tk.Text)] != tk.Text || tk.Text == "" {
					t.Fatalf("%s: token %+v after offset %d in %q", d, tk, end, s)
				}
				end = tk.Off + len(tk.Text)
				_ = tk.Value()
			}
			if strings.TrimSpace(s[end:]) != "" {
				t.Fatalf("%s: %q left after the last token", d, s[end:])
			}
			nondeterministic(s, toks)
			generatedKeys(s, toks, []string{"id"})
		}
	})
}
