// Package difftest generates small hostile input files, each with the job
// that loads it, for the differential test across engines
// (TestEnginesAgree): the same bytes must give the same table on every
// engine, or the same refusal (guarantee 9).
//
// Case i of seed s is the same on every machine: a PCG source seeded with
// (s, i) draws it.
package difftest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemdata/idem/input"
)

// Case is one generated input: the steps that load it, in order.
type Case struct {
	Index int
	// Name is the generator's case (clock-words, mixed, …).
	Name  string
	Steps []Step
	// Edge is a value of the input that some engine's documented range of
	// dates or times does not hold; nil for none. An engine whose
	// input.Limits exclude it must refuse the step naming it.
	Edge *Edge
}

// Step is one run: the files it writes first, and its job.
type Step struct {
	// Files are written (replacing any earlier ones) under the case's
	// folder before the run, by path relative to it.
	Files map[string][]byte
	// Remove are files of earlier steps removed before the run.
	Remove []string
	// Job is the job file with "@URL@" where the target URL goes.
	Job  string
	Date string
}

// Edge is a date or time at the edge of an engine's range.
type Edge struct {
	Value string
	Kind  input.Kind // Date, Timestamp or TimestampTZ
	// At is the value as days (Date) or microseconds (the others) since
	// 1970-01-01 (UTC for an instant).
	At int64
}

// RunDate is the partition every case runs.
const RunDate = "2026-01-08"

// gen draws one case.
type gen struct {
	r *rand.Rand
	c *Case
}

// Generate returns case i of seed. The first cases are each of the named
// cases once, then each edge value once; later ones draw a named case a
// quarter of the time and a mix of hostile columns otherwise.
func Generate(seed uint64, i int) Case {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(i))), c: &Case{Index: i}}
	switch {
	case i < len(named):
		g.c.Name = named[i].name
		named[i].fn(g)
	case i < len(named)+len(edges):
		g.c.Name = "edge"
		g.edge(edges[i-len(named)])
	case g.r.IntN(4) == 0:
		n := named[g.r.IntN(len(named))]
		g.c.Name = n.name
		n.fn(g)
	default:
		g.c.Name = "mixed"
		g.mixed()
	}
	return *g.c
}

// Named lists the names of the generator's named cases, in order.
func Named() []string {
	out := make([]string, len(named))
	for i, n := range named {
		out[i] = n.name
	}
	return out
}

// named are the generator's cases: one per divergence the engines' own
// readers showed (the observations, by their number there), then
// the paths a first load does not take (Parquet's types, second loads,
// zones, ties, new columns).
var named = []struct {
	name string
	fn   func(*gen)
}{
	{"clock-words", (*gen).clockWords},                  // 1
	{"glob-names", (*gen).globNames},                    // 2
	{"truncated-gzip", (*gen).truncatedGzip},            // 3
	{"two-digit-years", (*gen).twoDigitYears},           // 4
	{"long-names", (*gen).longNames},                    // 5
	{"blank-fields", (*gen).blankFields},                // 6
	{"space-around-quotes", (*gen).spaceAroundQuotes},   // 7
	{"nested-json-numbers", (*gen).nestedNumbers},       // 8
	{"inexact-either-order", (*gen).inexactOrder},       // 9
	{"bare-numeric", (*gen).bareNumeric},                // 10
	{"key-held-twice", (*gen).keyHeldTwice},             // 11
	{"lint-generated-key", (*gen).lintGeneratedKey},     // 12
	{"delete-when-yes-no", (*gen).deleteWhenYesNo},      // 13
	{"json-keys-differing-in-case", (*gen).jsonKeyCase}, // 14
	{"line-ends", (*gen).lineEnds},                      // 15
	{"blank-lines", (*gen).blankLines},                  // 15
	{"tiny-exponent", (*gen).tinyExponent},              // 15
	{"parquet", (*gen).parquet},
	{"second-load", (*gen).secondLoad},
	{"declared-then-target", (*gen).declaredThenTarget},
	{"json-then-scalars", (*gen).jsonThenScalars},
	{"zoned-partition", (*gen).zonedPartition},
	{"merge-ties", (*gen).mergeTies},
	{"new-column", (*gen).newColumn},
}

// ---- cells, tables and files

// cell is one value as a file writes it.
type cell struct {
	s string
	// quote: CSV writes s quoted even where it need not be.
	quote bool
	// raw: CSV writes s as it is, whatever it holds (a hostile field).
	raw bool
	// null: an empty CSV field, JSON null; missing: no JSON key either.
	null, missing bool
	// json is the JSON token; "" writes s as a JSON string.
	json string
}

func text(s string) cell { return cell{s: s} }
func num(s string) cell {
	if validJSONNumber(s) {
		return cell{s: s, json: s}
	}
	return cell{s: s}
}
func null() cell           { return cell{null: true} }
func nested(j string) cell { return cell{s: j, json: j} }
func boolean(s string) cell {
	switch s {
	case "true", "false":
		return cell{s: s, json: s}
	}
	return cell{s: s}
}

// validJSONNumber reports JSON's number grammar.
func validJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start || s[start] == '0' && i-start > 1 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		f := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == f {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		f := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == f {
			return false
		}
	}
	return i == len(s)
}

// table is a file's columns and rows.
type table struct {
	names []string
	rows  [][]cell
	// families of a generated table's columns by name, for more rows
	// like them.
	families map[string]family
}

// csvStyle is how a CSV file is written.
type csvStyle struct {
	delim      byte
	ends       int // 0 LF, 1 CRLF, 2 mixed
	blanks     int // percent of rows followed by a blank line
	bom        bool
	noFinalEnd bool
}

// plainCSV is a CSV file as most are.
var plainCSV = csvStyle{delim: ','}

func (g *gen) csvStyle() csvStyle {
	s := plainCSV
	if g.r.IntN(5) == 0 {
		s.delim = ";\t|"[g.r.IntN(3)]
	}
	if g.r.IntN(4) == 0 {
		s.ends = 1 + g.r.IntN(2)
	}
	if g.r.IntN(6) == 0 {
		s.blanks = 20
	}
	s.bom = g.r.IntN(15) == 0
	s.noFinalEnd = g.r.IntN(8) == 0
	return s
}

// csvField writes one field.
func csvField(c cell, delim byte) string {
	switch {
	case c.raw:
		return c.s
	case c.null:
		return ""
	}
	if c.quote || c.s == "" || strings.ContainsAny(c.s, "\"\r\n"+string(delim)) ||
		strings.TrimLeft(c.s, " \t") != c.s && strings.HasPrefix(strings.TrimLeft(c.s, " \t"), `"`) {
		return `"` + strings.ReplaceAll(c.s, `"`, `""`) + `"`
	}
	return c.s
}

func (g *gen) writeCSV(t table, st csvStyle) []byte {
	var b bytes.Buffer
	if st.bom {
		b.WriteString("\ufeff")
	}
	line := func(fields []string, last bool) {
		b.WriteString(strings.Join(fields, string(st.delim)))
		if last && st.noFinalEnd {
			return
		}
		if st.ends == 1 || st.ends == 2 && g.r.IntN(2) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		if st.blanks > 0 && g.r.IntN(100) < st.blanks {
			if g.r.IntN(2) == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
	}
	head := make([]string, len(t.names))
	for i, n := range t.names {
		head[i] = csvField(text(n), st.delim)
	}
	line(head, len(t.rows) == 0)
	for ri, r := range t.rows {
		fs := make([]string, len(r))
		for i, c := range r {
			fs[i] = csvField(c, st.delim)
		}
		line(fs, ri == len(t.rows)-1)
	}
	return b.Bytes()
}

// jsonString is s as a JSON string, escaped one of two ways.
func (g *gen) jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r > 0x7f && g.r.IntN(4) == 0:
			if r > 0xffff {
				r1, r2 := surrogates(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

func (g *gen) writeJSONL(t table, st csvStyle) []byte {
	var b bytes.Buffer
	for _, r := range t.rows {
		order := g.r.Perm(len(r))
		if g.r.IntN(3) != 0 {
			for i := range order {
				order[i] = i
			}
		}
		b.WriteByte('{')
		first := true
		for _, i := range order {
			c := r[i]
			if c.missing {
				continue
			}
			if !first {
				b.WriteString(",")
				if g.r.IntN(5) == 0 {
					b.WriteString(" ")
				}
			}
			first = false
			b.WriteString(g.jsonString(t.names[i]))
			b.WriteByte(':')
			switch {
			case c.null:
				b.WriteString("null")
			case c.json != "":
				b.WriteString(c.json)
			default:
				b.WriteString(g.jsonString(c.s))
			}
		}
		b.WriteByte('}')
		if st.ends == 1 || st.ends == 2 && g.r.IntN(2) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		if st.blanks > 0 && g.r.IntN(100) < st.blanks {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	z := gzip.NewWriter(&out)
	z.Write(b)
	z.Close()
	return out.Bytes()
}

// ---- jobs

// jobSpec is what a job file says besides its target.
type jobSpec struct {
	name, table string
	files       string
	strategy    string // partition or merge
	partition   string // the partition column
	key         []string
	latestBy    string
	deleteWhen  string
	columns     [][2]string
	sharedWith  string
	timezone    string
	addColumns  bool
}

func (j jobSpec) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "idem: 1\njob: %s\ntarget:\n  url: @URL@\n  table: %s\n", j.name, j.table)
	if j.sharedWith != "" {
		fmt.Fprintf(&b, "  shared_with: [%s]\n", j.sharedWith)
	}
	fmt.Fprintf(&b, "source:\n  files: %q\nstrategy: %s\n", j.files, j.strategy)
	if j.strategy == "partition" {
		fmt.Fprintf(&b, "partition:\n  column: %q\n", j.partition)
		if j.timezone != "" {
			fmt.Fprintf(&b, "  timezone: %s\n", j.timezone)
		}
	}
	if j.addColumns {
		b.WriteString("on_schema_change: add_columns\n")
	}
	if len(j.key) > 0 {
		q := make([]string, len(j.key))
		for i, k := range j.key {
			q[i] = fmt.Sprintf("%q", k)
		}
		fmt.Fprintf(&b, "key: [%s]\n", strings.Join(q, ", "))
	}
	if j.latestBy != "" {
		fmt.Fprintf(&b, "latest_by: %q\n", j.latestBy)
	}
	if j.deleteWhen != "" {
		fmt.Fprintf(&b, "delete_when: %q\n", j.deleteWhen)
	}
	if len(j.columns) > 0 {
		b.WriteString("columns:\n")
		for _, c := range j.columns {
			fmt.Fprintf(&b, "  %q: %s\n", c[0], c[1])
		}
	}
	return b.String()
}

// job is the case's job over files: a partition job by day (with or
// without a key), or a merge on id by v.
func (g *gen) job(files string, merge bool) jobSpec {
	j := jobSpec{name: fmt.Sprintf("g%d", g.c.Index), table: fmt.Sprintf("d%d", g.c.Index), files: files,
		strategy: "partition", partition: "day"}
	if merge {
		j.strategy, j.key, j.latestBy = "merge", []string{"id"}, "v"
	} else if g.r.IntN(2) == 0 {
		j.key = []string{"id"}
	}
	return j
}

// fit fits a job to a generated table: a merge deletes by its gone
// column; now and then the key is another column, or two.
func (g *gen) fit(j *jobSpec, t table) {
	var others []string
	for _, n := range t.names[2:] {
		switch n {
		case "gone":
			if j.strategy == "merge" {
				j.deleteWhen = n
			}
		case "v":
		default:
			others = append(others, n)
		}
	}
	if len(others) > 0 && g.r.IntN(8) == 0 {
		k := pick(g.r, others)
		if j.strategy == "merge" || g.r.IntN(2) == 0 {
			j.key = []string{"id", k}
		} else {
			j.key = []string{k}
		}
	}
}

func (g *gen) step(files map[string][]byte, j jobSpec) {
	g.c.Steps = append(g.c.Steps, Step{Files: files, Job: j.text(), Date: RunDate})
}

// ---- values

// pick is one of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// date is a date every engine holds (1971 to 2037: as an instant too).
func (g *gen) date() time.Time {
	return time.Date(1971+g.r.IntN(67), time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC)
}

// day is a value of the partition column: the run's day mostly, a
// neighbour sometimes (out of the window), as a date or a timestamp.
func (g *gen) day(stamps bool) cell {
	d := RunDate
	switch g.r.IntN(8) {
	case 0:
		d = "2026-01-07"
	case 1:
		d = "2026-01-09"
	}
	if stamps {
		return text(fmt.Sprintf("%s %02d:%02d:%02d", d, g.r.IntN(24), g.r.IntN(60), g.r.IntN(60)))
	}
	return text(d)
}

var hostileDates = []string{"2026-02-29", "2024-02-29", "2026-13-01", "2026-00-10", "2026-01-32", "today", "now",
	"yesterday", "tomorrow", "epoch", "infinity", "-infinity", "1/8/2026", "03/04/26", "15/04/26", "2026/01/08",
	"08.01.2026", "20260108", "2026-1-8", "January 8, 2026", "8 Jan 2026", "J2461049", "0000-01-01", "10000-01-01",
	" 2026-01-08", "2026-01-08 ", "2026-01-08T", "Thu Jan  8 2026"}

func (g *gen) dateValue() cell {
	if g.r.IntN(6) == 0 {
		return text(pick(g.r, hostileDates))
	}
	return text(g.date().Format(time.DateOnly))
}

var offsets = []string{"Z", "z", "+01", "-05", "+0530", "-0330", "+01:00", "-08:00", "+14:00", "-12:00", " UTC", " GMT", "UTC"}

var hostileTimes = []string{"04:05:06", "04:05:06 PST", "2026-01-08 04:05:06 PST", "2026-01-08 04:05:06 CET",
	"2026-01-08 04:05:06 Europe/Paris", "2026-01-08 24:00:00", "2026-01-08 23:59:60", "2026-01-08 04:05:06.",
	"2026-01-08T04:05:06+25:00", "2026-01-08 04:05 PM", "2026-01-08 4:05:06", "2026-01-08 04:05:06 +01:00",
	"allballs", "now", "2026-01-08T04:05:06.123456789012Z", "1/8/2026 04:05:06", "2026-01-08 04:05:06+1"}

// timeValue is a timestamp, zoned with an offset when zoned (else
// sometimes), in one of its spellings.
func (g *gen) timeValue(zoned bool) cell {
	if g.r.IntN(7) == 0 {
		return text(pick(g.r, hostileTimes))
	}
	d := g.date()
	s := d.Format(time.DateOnly)
	sep := pick(g.r, []string{" ", "T"})
	s += fmt.Sprintf("%s%02d:%02d", sep, g.r.IntN(24), g.r.IntN(60))
	if g.r.IntN(5) != 0 {
		s += fmt.Sprintf(":%02d", g.r.IntN(60))
		if g.r.IntN(3) == 0 {
			digits := 1 + g.r.IntN(9)
			s += "." + fmt.Sprintf("%09d", g.r.IntN(1_000_000_000))[:digits]
		}
	}
	if zoned || g.r.IntN(10) == 0 {
		s += pick(g.r, offsets)
	}
	return text(s)
}

var safeNumbers = []string{"0", "1", "-1", "42", "1.5", "-1.5", "0.1", "1.10", "1e5", "1.5e-7", "2147483647",
	"2147483648", "9223372036854775807", "-9223372036854775808", "0.000001", "123.4500", "100", "-0.5", "7.25"}

var edgeNumbers = []string{"-0", "007", "+1", ".5", "5.", "3.14159265358979323846", "1E+5", "-2147483649",
	"9223372036854775808", "-9223372036854775809", "9007199254740993", "12345678901234567890123",
	"123456789012345678.123", strings.Repeat("9", 38), strings.Repeat("9", 39), "1e308", "1.7976931348623157e308",
	"1e309", "-1e309", "1e-400", "5e-324", "2.2250738585072014e-308", "1e-310", "NaN", "nan", "inf", "-Infinity",
	"1_000", "0x10", "1,5", "1 000", " 1", "1 ", "100000000000000000000", "-0.0", "0e0", "1e-5", "0.1e1",
	"4.35", "0.30000000000000004", "123456789012345.6", "1234567890123456.7", "-1.0E-10"}

func (g *gen) numberValue() cell {
	if g.r.IntN(5) == 0 {
		return num(pick(g.r, edgeNumbers))
	}
	return num(pick(g.r, safeNumbers))
}

// intValue is an integer for a column of integers.
func (g *gen) intValue() cell {
	switch g.r.IntN(10) {
	case 0:
		return num(pick(g.r, []string{"9223372036854775807", "-9223372036854775808", "2147483648", "-2147483649",
			"9223372036854775808", "12345678901234567890123", "32768", "-32769", "128", "0"}))
	}
	return num(fmt.Sprint(g.r.IntN(2000) - 1000))
}

var booleans = []string{"true", "false", "TRUE", "False", "tRuE", "t", "f", "yes", "no", "Y", "N", "1", "0", "on", "off"}

func (g *gen) boolValue() cell {
	if g.r.IntN(6) == 0 {
		return boolean(pick(g.r, booleans))
	}
	return boolean(pick(g.r, []string{"true", "false"}))
}

var texts = []string{"a", "plain text", " lead", "trail ", "  ", " ", "\t", "a,b", "semi;colon", "pipe|bar",
	`say "hi"`, "two\nlines", "cr\r\nlf", "'single'", `back\slash`, `\N`, "NULL", "null", "None", "NaN", "é",
	"ünïcödé ✓", "😀", "e\u0301", "\u200b", "<&>", `{"a":1}`, "[1,2]", "true", "0", "-", "#", "=1+1", "%s",
	"${HOME}", "{{ date }}", strings.Repeat("x", 300), "Ω≈ç√", "\u00a0nbsp", "trailing\\", "«»"}

var hostileTexts = []string{"nul\x00byte", "bad\xe9utf8", "lone\rcr"}

func (g *gen) textValue() cell {
	c := text(pick(g.r, texts))
	switch g.r.IntN(40) {
	case 0:
		c = text(pick(g.r, hostileTexts))
	case 1:
		c.quote = true
	}
	return c
}

var jsonNumbers = []string{"5", "5.7", "-0", "1.10", "1e400", "1E-400", "12345678901234567890123", "0.1",
	"-2.5e-3", "1E+21", "9007199254740993", "123456789012345678.5", "0", "-1"}

var jsonKeys = []string{"a", "b", "A", "z", "é", "", "key with space", "k\"q"}

// nestedValue is an object or array, numbers at every edge.
func (g *gen) nestedValue(depth int) string {
	if depth > 2 || g.r.IntN(3) == 0 && depth > 0 {
		switch g.r.IntN(6) {
		case 0:
			return g.jsonString(pick(g.r, texts))
		case 1:
			return pick(g.r, []string{"true", "false", "null"})
		}
		return pick(g.r, jsonNumbers)
	}
	n := g.r.IntN(4)
	if g.r.IntN(2) == 0 {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = g.nestedValue(depth + 1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	seen := map[string]bool{}
	var parts []string
	for range n {
		k := pick(g.r, jsonKeys)
		if seen[k] {
			continue
		}
		seen[k] = true
		parts = append(parts, g.jsonString(k)+":"+g.nestedValue(depth+1))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

var hostileNested = []string{`{"a":1,"a":2}`, `{"a":"\u0000"}`, `["\ud800"]`, `{"a":[1,2,]}`, `{"a":01}`}

func (g *gen) jsonValue() cell {
	if g.r.IntN(25) == 0 {
		return cell{s: pick(g.r, hostileNested), raw: true, json: pick(g.r, hostileNested)}
	}
	return nested(g.nestedValue(0))
}

// ---- columns

// family draws the values of one column.
type family struct {
	name string
	fn   func(g *gen) cell
	// types a job may declare the column as.
	types []string
}

var families = []family{
	{"date", (*gen).dateValue, []string{"DATE", "TIMESTAMP", "VARCHAR", "TIMESTAMPTZ"}},
	{"time", func(g *gen) cell { return g.timeValue(false) }, []string{"TIMESTAMP", "TIMESTAMPTZ", "VARCHAR", "DATE"}},
	{"zoned", func(g *gen) cell { return g.timeValue(true) }, []string{"TIMESTAMPTZ", "TIMESTAMP", "VARCHAR"}},
	{"number", (*gen).numberValue, []string{"DOUBLE", "DECIMAL(38,10)", "DECIMAL(12,2)", "BIGINT", "VARCHAR", "REAL", "NUMERIC(20,4)"}},
	{"int", (*gen).intValue, []string{"BIGINT", "INTEGER", "SMALLINT", "DECIMAL(20,0)", "DOUBLE", "VARCHAR"}},
	{"bool", (*gen).boolValue, []string{"BOOLEAN", "VARCHAR"}},
	{"text", (*gen).textValue, []string{"VARCHAR", "VARCHAR(5)", "TEXT", "JSON"}},
	{"json", (*gen).jsonValue, []string{"JSON", "VARCHAR"}},
}

var columnNames = []string{"Größe", "with space", "select", "order", `we"ird`, "semi;colon", "UPPER", "MiXeD",
	"dot.name", "émoji😀", "a-b", "trailing ", " leading", "x" + strings.Repeat("y", 62), "1starts", "tab\tin"}

// column is one generated column: its name, family and values.
type column struct {
	name   string
	family family
	cells  []cell
}

// values draws n values of the family, some NULL (empty) and, now and
// then, one of another family.
func (g *gen) values(f family, n int) []cell {
	nulls := []int{0, 0, 5, 20, 50}[g.r.IntN(5)]
	out := make([]cell, n)
	for i := range out {
		switch {
		case g.r.IntN(100) < nulls:
			out[i] = null()
			if g.r.IntN(3) == 0 {
				out[i].missing = true
			}
		case g.r.IntN(30) == 0:
			out[i] = pick(g.r, families).fn(g)
		default:
			out[i] = f.fn(g)
		}
	}
	return out
}

// mixed is the generator's common case: an id, a partition column, and
// one to four columns of hostile values, as CSV, JSON Lines (either
// maybe gzipped) or Parquet, loaded by a partition job or a merge,
// columns declared now and then, once or twice.
func (g *gen) mixed() {
	merge := g.r.IntN(3) == 0
	format := pick(g.r, []string{"csv", "csv", "csv", "jsonl", "jsonl", "parquet"})
	if format == "parquet" {
		g.parquet()
		return
	}
	t, decl := g.randomTable(merge)
	st := g.csvStyle()
	ext := "." + format
	if g.r.IntN(6) == 0 {
		ext += ".gz"
	}
	// The rows in one to four files, read as one input.
	files := 1 + g.r.IntN(4)
	j := g.job("in/x*"+ext, merge)
	j.columns = decl
	g.fit(&j, t)
	g.step(g.split(t, format, ext, files, st), j)
	if g.r.IntN(4) == 0 {
		// A second load into the table the first made: its columns'
		// types decide now.
		t2, _ := g.randomTableLike(t, merge)
		g.step(g.split(t2, format, ext, files, st), j)
	}
}

// split writes t's rows as n files in/x1…n (each CSV file with its
// columns in an order of its own: files may order them as they like).
func (g *gen) split(t table, format, ext string, n int, st csvStyle) map[string][]byte {
	parts := make([]table, n)
	for i := range parts {
		order := make([]int, len(t.names))
		for k := range order {
			order[k] = k
		}
		if i > 0 && g.r.IntN(2) == 0 {
			order = g.r.Perm(len(t.names))
		}
		for _, k := range order {
			parts[i].names = append(parts[i].names, t.names[k])
		}
		for ri, r := range t.rows {
			if ri%n != i {
				continue
			}
			row := make([]cell, len(order))
			for k, o := range order {
				row[k] = r[o]
			}
			parts[i].rows = append(parts[i].rows, row)
		}
	}
	out := map[string][]byte{}
	for i, p := range parts {
		out[fmt.Sprintf("in/x%d%s", i+1, ext)] = g.encode(p, format, st, strings.HasSuffix(ext, ".gz"))
	}
	return out
}

func (g *gen) encode(t table, format string, st csvStyle, compress bool) []byte {
	var b []byte
	if format == "jsonl" {
		b = g.writeJSONL(t, st)
	} else {
		b = g.writeCSV(t, st)
	}
	if compress {
		b = gz(b)
	}
	return b
}

// randomTable draws a table and the columns: a job might declare.
func (g *gen) randomTable(merge bool) (table, [][2]string) {
	n := g.r.IntN(12)
	if g.r.IntN(10) == 0 {
		n = 0
	}
	stamps := g.r.IntN(4) == 0
	t := table{names: []string{"id", "day"}}
	ids := g.ids(n, merge)
	var cols []column
	k := 1 + g.r.IntN(4)
	for i := range k {
		f := pick(g.r, families)
		name := fmt.Sprintf("c%d_%s", i+1, f.name)
		if g.r.IntN(8) == 0 {
			name = pick(g.r, columnNames)
		}
		cols = append(cols, column{name: name, family: f, cells: g.values(f, n)})
	}
	if merge {
		cols = append(cols, column{name: "v", family: families[4], cells: g.versions(n)})
		if g.r.IntN(3) == 0 {
			cols = append(cols, column{name: "gone", family: families[5], cells: g.values(families[5], n)})
		}
	}
	var decl [][2]string
	for _, c := range cols {
		t.names = append(t.names, c.name)
		if t.families == nil {
			t.families = map[string]family{}
		}
		t.families[c.name] = c.family
		if g.r.IntN(5) == 0 && c.name != "v" {
			decl = append(decl, [2]string{c.name, pick(g.r, c.family.types)})
		}
	}
	if g.r.IntN(10) == 0 {
		decl = append(decl, [2]string{"day", pick(g.r, []string{"DATE", "TIMESTAMP", "TIMESTAMPTZ"})})
	}
	for i := range n {
		row := []cell{ids[i], g.day(stamps)}
		if g.r.IntN(60) == 0 {
			row[1] = null()
		}
		for _, c := range cols {
			row = append(row, c.cells[i])
		}
		t.rows = append(t.rows, row)
	}
	return t, decl
}

// randomTableLike draws new rows for t's columns, each column's values
// mostly of the family its first rows had.
func (g *gen) randomTableLike(t table, merge bool) (table, [][2]string) {
	n := 1 + g.r.IntN(8)
	out := table{names: t.names, families: t.families}
	ids := g.ids(n, merge)
	for i := range n {
		row := []cell{ids[i], g.day(false)}
		for _, name := range t.names[2:] {
			f, ok := t.families[name]
			switch {
			case name == "v" && merge:
				row = append(row, g.versions(1)[0])
				continue
			case !ok || g.r.IntN(8) == 0:
				f = pick(g.r, families)
			}
			row = append(row, f.fn(g))
		}
		out.rows = append(out.rows, row)
	}
	return out, nil
}

// ids are the key's values: distinct, or (for a merge, or now and then)
// some repeated.
func (g *gen) ids(n int, merge bool) []cell {
	out := make([]cell, n)
	for i := range out {
		id := i + 1
		if (merge || g.r.IntN(5) == 0) && i > 0 && g.r.IntN(3) == 0 {
			id = 1 + g.r.IntN(i)
		}
		out[i] = num(fmt.Sprint(id))
	}
	return out
}

// versions are a merge's version column: integers, some equal.
func (g *gen) versions(n int) []cell {
	out := make([]cell, n)
	for i := range out {
		out[i] = num(fmt.Sprint(1 + g.r.IntN(4)))
	}
	return out
}

// ---- edges

// edges are dates and times at the ends of the engines' documented
// ranges (input.Limits): ClickHouse's dates and times 1900 to 2299, its
// instants a day inside them, MariaDB's dates from 1000 and its instants
// 1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC.
var edges = []string{
	"DATE 1899-12-31", "DATE 1900-01-01", "DATE 2299-12-31", "DATE 2300-01-01", "DATE 0999-12-31",
	"DATE 1000-01-01", "DATE 0001-01-01", "DATE 9999-12-31",
	"TIMESTAMP 1899-12-31 23:59:59.999999", "TIMESTAMP 1900-01-01 00:00:00", "TIMESTAMP 2299-12-31 23:59:59.999999",
	"TIMESTAMP 2300-01-01 00:00:00", "TIMESTAMP 0999-12-31 23:59:59", "TIMESTAMP 9999-12-31 23:59:59.999999",
	"TIMESTAMPTZ 1970-01-01 00:00:00Z", "TIMESTAMPTZ 1970-01-01 00:00:01Z", "TIMESTAMPTZ 2038-01-19 03:14:07.999999Z",
	"TIMESTAMPTZ 2038-01-19 03:14:08Z", "TIMESTAMPTZ 1900-01-02 00:00:00Z", "TIMESTAMPTZ 1900-01-01 23:59:59Z",
	"TIMESTAMPTZ 2299-12-30 23:59:59.999999Z", "TIMESTAMPTZ 2299-12-31 00:00:00Z", "TIMESTAMPTZ 1969-12-31 19:00:01-05:00",
}

// edge loads one edge value in a declared column, beside a value every
// engine holds.
func (g *gen) edge(spec string) {
	typ, value, _ := strings.Cut(spec, " ")
	kind := map[string]input.Kind{"DATE": input.Date, "TIMESTAMP": input.Timestamp, "TIMESTAMPTZ": input.TimestampTZ}[typ]
	g.c.Edge = &Edge{Value: value, Kind: kind, At: edgeAt(value, kind)}
	t := table{names: []string{"id", "day", "e"}}
	rows := [][]cell{{num("1"), text(RunDate), text(value)}, {num("2"), text(RunDate), text("2026-01-08 10:00:00Z")}}
	if kind == input.Date {
		rows[1][2] = text("2026-01-08")
	} else if kind == input.Timestamp {
		rows[1][2] = text("2026-01-08 10:00:00")
	}
	if g.r.IntN(2) == 0 {
		rows[0], rows[1] = rows[1], rows[0]
	}
	t.rows = rows
	if g.r.IntN(3) == 0 {
		// Parquet: the value in the file's own type.
		ptype, v := map[input.Kind]string{input.Date: "date", input.Timestamp: "timestamp", input.TimestampTZ: "timestamptz"}[kind], value
		if kind == input.TimestampTZ {
			v = time.UnixMicro(g.c.Edge.At).UTC().Format("2006-01-02 15:04:05.999999")
		}
		other := map[input.Kind]string{input.Date: "2026-01-08", input.Timestamp: "2026-01-08 10:00:00", input.TimestampTZ: "2026-01-08 10:00:00"}[kind]
		g.parquetOf(t.names, []string{"int64", "date", ptype}, [][]string{{"1", RunDate, v}, {"2", RunDate, other}})
		return
	}
	format := pick(g.r, []string{"csv", "jsonl"})
	name := "in/x." + format
	j := g.job(name, false)
	j.columns = [][2]string{{"e", typ}}
	g.step(map[string][]byte{name: g.encode(t, format, plainCSV, false)}, j)
}

// edgeAt is an edge value as Edge.At counts it.
func edgeAt(value string, kind input.Kind) int64 {
	if kind == input.Date {
		t, err := time.Parse(time.DateOnly, value)
		if err != nil {
			panic(err)
		}
		return t.Unix() / 86400
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999Z07:00", "2006-01-02 15:04:05.999999"} {
		if t, err := time.Parse(layout, value); err == nil {
			return t.UnixMicro()
		}
	}
	panic("edge value " + value)
}
