package difftest

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The named cases: each draws its variant of one divergence the engines'
// own readers showed.

// oneColumn is a table of id, day and one column c of values.
func oneColumn(name string, vals []cell) table {
	t := table{names: []string{"id", "day", name}}
	for i, v := range vals {
		t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), text(RunDate), v})
	}
	return t
}

// sprinkle is n values of fn with one to three of bad among them.
func (g *gen) sprinkle(n int, fn func() cell, bad []string) []cell {
	out := make([]cell, n)
	for i := range out {
		out[i] = fn()
	}
	for range 1 + g.r.IntN(3) {
		out[g.r.IntN(n)] = text(pick(g.r, bad))
	}
	return out
}

func (g *gen) format() string { return pick(g.r, []string{"csv", "csv", "jsonl"}) }

// loadOne is a step loading t as one file of format, with columns
// declared as decl.
func (g *gen) loadOne(t table, format string, decl [][2]string, merge bool) jobSpec {
	name := "in/x." + format
	j := g.job(name, merge)
	j.columns = decl
	if len(t.families) > 0 {
		g.fit(&j, t)
	}
	g.step(map[string][]byte{name: g.encode(t, format, g.csvStyle(), false)}, j)
	return j
}

// 1: words for the clock, dates written day or month first, zones by
// name: in a DATE or TIMESTAMP column (declared, the target's, or the
// partition column), or a new column where they are text.
func (g *gen) clockWords() {
	bad := []string{"today", "now", "1/8/2026", "04:05:06 PST", "2026-01-08 04:05:06 PST", "yesterday",
		"tomorrow", "epoch", "allballs", "infinity", "January 8, 2026", "20260108"}
	n := 2 + g.r.IntN(6)
	dates := func() cell { return text(g.date().Format("2006-01-02")) }
	switch g.r.IntN(4) {
	case 0: // the partition column
		t := table{names: []string{"id", "day"}}
		for i, v := range g.sprinkle(n, func() cell { return text(RunDate) }, bad) {
			t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), v})
		}
		g.loadOne(t, g.format(), nil, false)
	case 1: // the target's column
		format := g.format()
		j := g.loadOne(oneColumn("d", []cell{dates(), dates()}), format, nil, false)
		t := oneColumn("d", g.sprinkle(n, dates, bad))
		g.step(map[string][]byte{"in/x." + format: g.encode(t, format, plainCSV, false)}, j)
	default:
		var decl [][2]string
		if g.r.IntN(3) != 0 {
			decl = [][2]string{{"d", pick(g.r, []string{"DATE", "TIMESTAMP", "TIMESTAMPTZ"})}}
		}
		g.loadOne(oneColumn("d", g.sprinkle(n, dates, bad)), g.format(), decl, g.r.IntN(4) == 0)
	}
}

// 2: file names holding glob characters, each read once as itself; a
// second run after one of them changed loads again.
func (g *gen) globNames() {
	format := g.format()
	ext := "." + format
	compress := g.r.IntN(4) == 0
	if compress {
		ext += ".gz"
	}
	names := []string{"d[1]", "d1", "d{1,2}", "d?", "d*", "d[!1]", "d\\1"}
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	names = names[:2+g.r.IntN(len(names)-1)]
	files := map[string][]byte{}
	file := func(i int, n, src string) []byte {
		t := table{names: []string{"id", "day", "src"}, rows: [][]cell{{num(fmt.Sprint(i + 1)), text(RunDate), text(src)}}}
		return g.encode(t, format, plainCSV, compress)
	}
	for i, n := range names {
		files["in/"+n+ext] = file(i, n, n)
	}
	j := g.job("in/*"+ext, false)
	g.step(files, j)
	if g.r.IntN(2) == 0 {
		g.step(map[string][]byte{"in/" + names[0] + ext: file(0, names[0], "changed")}, j)
	}
}

// 3: a gzip file cut short or damaged loads none of its rows.
func (g *gen) truncatedGzip() {
	format := g.format()
	n := 50 + g.r.IntN(800)
	t := table{names: []string{"id", "day", "s"}}
	for i := range n {
		t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), text(RunDate), text(fmt.Sprintf("row %d %x", i, g.r.Uint64()))})
	}
	whole := g.encode(t, format, plainCSV, true)
	bad := append([]byte{}, whole...)
	switch g.r.IntN(4) {
	case 0:
		bad[len(bad)-1-g.r.IntN(8)] ^= 0xff // the trailer: CRC-32 and length
	case 1:
		bad = bad[:len(bad)-1-g.r.IntN(8)]
	default:
		bad = bad[:10+g.r.IntN(len(bad)-10)]
	}
	name := "in/x." + format + ".gz"
	j := g.job(name, false)
	if g.r.IntN(2) == 0 {
		g.step(map[string][]byte{name: whole}, j)
	}
	g.step(map[string][]byte{name: bad}, j)
}

// 4: dates with two-digit years are no dates.
func (g *gen) twoDigitYears() {
	bad := []string{"03/04/26", "15/04/26", "26/04/03", "04/03/2026", "26-04-03", "3/4/26", "15.04.26"}
	var decl [][2]string
	if g.r.IntN(2) == 0 {
		decl = [][2]string{{"d", "DATE"}}
	}
	vals := g.sprinkle(1+g.r.IntN(4), func() cell { return text(pick(g.r, bad)) }, bad)
	g.loadOne(oneColumn("d", vals), g.format(), decl, false)
}

// 5: a column name of 64 bytes is refused (exit 2) on every engine; 63
// load.
func (g *gen) longNames() {
	unit := pick(g.r, []string{"n", "é", "€"})
	size := 63 + g.r.IntN(2)
	name := strings.Repeat(unit, size/len(unit))
	name += strings.Repeat("x", size-len(name))
	t := oneColumn(name, []cell{num("1"), num("2")})
	if g.r.IntN(4) == 0 {
		g.parquetOf(t.names, []string{"int64", "date", "int64"}, [][]string{{"1", RunDate, "5"}})
		return
	}
	g.loadOne(t, g.format(), nil, false)
}

// 6: fields of blanks are text; only an empty field is NULL.
func (g *gen) blankFields() {
	blanks := []cell{text(" "), text("   "), text("\t"), text(" \t "), cell{s: "", quote: true}, null(), text("x")}
	t := table{names: []string{"id", "day", "s", "n"}}
	for i := range 2 + g.r.IntN(6) {
		n := num(fmt.Sprint(i))
		if g.r.IntN(3) == 0 {
			n = null()
		}
		t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), text(RunDate), pick(g.r, blanks), n})
	}
	g.loadOne(t, g.format(), nil, g.r.IntN(4) == 0)
}

// 7: blanks around a quoted field are refused by file and line.
func (g *gen) spaceAroundQuotes() {
	bad := []string{` "a"`, `"a" `, "\t\"a\"", `"a"b`, `a"b`, ` "a" `, `""a`}
	t := table{names: []string{"id", "s", "n", "day"}}
	for i := range 1 + g.r.IntN(5) {
		t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), text(pick(g.r, texts)), num("5"), text(RunDate)})
	}
	r := g.r.IntN(len(t.rows))
	t.rows[r][1+g.r.IntN(2)] = cell{s: pick(g.r, bad), raw: true}
	j := g.job("in/x.csv", false)
	g.step(map[string][]byte{"in/x.csv": g.writeCSV(t, g.csvStyle())}, j)
}

// 8: nested JSON keeps every number as written, after any number of
// integers.
func (g *gen) nestedNumbers() {
	t := table{names: []string{"id", "day", "j"}}
	n := 5 + g.r.IntN(200)
	for i := range n {
		j := fmt.Sprintf(`{"a":%d}`, i)
		if g.r.IntN(10) == 0 || i == n-1 {
			j = fmt.Sprintf(`{"a":%s,"b":[%s]}`, pick(g.r, jsonNumbers), pick(g.r, jsonNumbers))
		}
		t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), text(RunDate), nested(j)})
	}
	g.loadOne(t, "jsonl", nil, false)
}

// 9: a value the target's column cannot hold exactly is refused, in
// either load order.
func (g *gen) inexactOrder() {
	pairs := [][2]string{{"1.5", "9007199254740993"}, {"0.1", "12345678901234567890123"}, {"7", "7.5"},
		{"1.25", "123456789012345678.123"}, {"2", "1e-310"}, {"12.5", "3.14159265358979323846"}}
	p := pick(g.r, pairs)
	if g.r.IntN(2) == 0 {
		p[0], p[1] = p[1], p[0]
	}
	if g.r.IntN(3) == 0 {
		// Parquet: a double and a DECIMAL(38,10).
		const huge = "1234567890123456789012345678.0123456789"
		cols := []string{"id", "day", "v"}
		dbl := func(v string) {
			g.parquetOf(cols, []string{"int64", "date", "float64"}, [][]string{{"1", RunDate, "1"}, {"2", RunDate, v}})
		}
		dec := func(v string) {
			g.parquetOf(cols, []string{"int64", "date", "decimal(38,10)"}, [][]string{{"1", RunDate, "1"}, {"2", RunDate, v}})
		}
		if g.r.IntN(2) == 0 {
			dbl("1.5")
			dec(huge)
		} else {
			dec(huge)
			dbl("1.25e-11")
		}
		return
	}
	format := g.format()
	j := g.loadOne(oneColumn("v", []cell{num("1"), num(p[0])}), format, nil, false)
	g.step(map[string][]byte{"in/x." + format: g.encode(oneColumn("v", []cell{num("1"), num(p[1])}), format, plainCSV, false)}, j)
}

// 10: NUMERIC and DECIMAL without a precision and a scale are a job
// error; with them, every digit is kept.
func (g *gen) bareNumeric() {
	typ := pick(g.r, []string{"NUMERIC", "DECIMAL", "numeric", "NUMERIC(10)", "NUMERIC(38,8)", "DECIMAL(12,2)", "FLOAT", "NUMERIC(39,2)"})
	g.loadOne(oneColumn("v", []cell{num("1.23456789"), num("2")}), g.format(), [][2]string{{"v", typ}}, false)
}

// 11: a merge onto a table that holds a key twice (a partition job
// without key loaded it) fails alike, or loads alike where it merges
// other keys.
func (g *gen) keyHeldTwice() {
	part := g.job("in/p.csv", false)
	part.key, part.name = nil, fmt.Sprintf("g%dp", g.c.Index)
	merge := g.job("in/m.csv", true)
	merge.name = fmt.Sprintf("g%dm", g.c.Index)
	part.sharedWith, merge.sharedWith = merge.name, part.name
	t := table{names: []string{"id", "day", "v", "s"}, rows: [][]cell{
		{num("1"), text(RunDate), num("1"), text("a")}, {num("1"), text(RunDate), num("1"), text("b")},
		{num("2"), text(RunDate), num("1"), text("c")}}}
	g.step(map[string][]byte{"in/p.csv": g.writeCSV(t, plainCSV)}, part)
	// A key the table holds once (or not at all), then the one it holds
	// twice.
	for _, id := range []string{pick(g.r, []string{"2", "3"}), "1"} {
		m := table{names: t.names, rows: [][]cell{{num(id), text(RunDate), num("2"), text("new")}}}
		g.step(map[string][]byte{"in/m.csv": g.writeCSV(m, plainCSV)}, merge)
	}
}

// 12: lint refuses a job alike on every engine (a partition key named
// like a surrogate key).
func (g *gen) lintGeneratedKey() {
	key := pick(g.r, []string{"row_id", "order_sk", "rownum", "id"})
	t := table{names: []string{key, "day", "s"}, rows: [][]cell{{num("1"), text(RunDate), text("a")}}}
	j := g.job("in/x.csv", false)
	j.key = []string{key}
	g.step(map[string][]byte{"in/x.csv": g.writeCSV(t, plainCSV)}, j)
}

// 13: a delete_when column holding Y and N is refused by file and line.
func (g *gen) deleteWhenYesNo() {
	words := pick(g.r, [][]string{{"Y", "N"}, {"yes", "no"}, {"1", "0"}, {"true", "false"}, {"T", "F"}})
	format := g.format()
	name := "in/x." + format
	j := g.job(name, true)
	j.deleteWhen = "gone"
	file := func(w []string) []byte {
		t := table{names: []string{"id", "v", "gone", "s"}}
		for i := range 1 + g.r.IntN(4) {
			t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), num(fmt.Sprint(1 + g.r.IntN(3))), boolean(pick(g.r, w)), text("s")})
		}
		return g.encode(t, format, plainCSV, false)
	}
	if g.r.IntN(2) == 0 {
		g.step(map[string][]byte{name: file([]string{"true", "false"})}, j)
	}
	g.step(map[string][]byte{name: file(words)}, j)
}

// 14: JSON keys differing only in case are refused (in one object, or
// in two), as a CSV header naming both is.
func (g *gen) jsonKeyCase() {
	pair := pick(g.r, [][2]string{{"v", "V"}, {"Größe", "größe"}, {"abc", "aBc"}})
	t := table{names: []string{"id", "day", pair[0], pair[1]}}
	if g.r.IntN(4) == 0 {
		t.rows = [][]cell{{num("1"), text(RunDate), num("1"), num("2")}}
		g.loadOne(t, "csv", nil, false)
		return
	}
	for i := range 1 + g.r.IntN(4) {
		r := []cell{num(fmt.Sprint(i + 1)), text(RunDate), num("1"), num("2")}
		if g.r.IntN(2) == 0 {
			r[2+g.r.IntN(2)] = cell{null: true, missing: true}
		}
		t.rows = append(t.rows, r)
	}
	g.loadOne(t, "jsonl", nil, false)
}

// 15: CR LF and LF mixed, a carriage return inside a field.
func (g *gen) lineEnds() {
	merge := g.r.IntN(3) == 0
	t, decl := g.randomTable(merge)
	st := g.csvStyle()
	st.ends = 2
	if g.r.IntN(4) == 0 && len(t.rows) > 0 {
		t.rows[g.r.IntN(len(t.rows))][2] = cell{s: "a\rb", raw: g.r.IntN(2) == 0}
	}
	format := g.format()
	j := g.job("in/x*."+format, merge)
	j.columns = decl
	g.fit(&j, t)
	g.step(g.split(t, format, "."+format, 1+g.r.IntN(3), st), j)
}

// 15: blank lines between rows, for a partition job and a merge.
func (g *gen) blankLines() {
	merge := g.r.IntN(2) == 0
	t, decl := g.randomTable(merge)
	st := g.csvStyle()
	st.blanks = 50
	format := g.format()
	j := g.job("in/x*."+format, merge)
	j.columns = decl
	g.fit(&j, t)
	g.step(g.split(t, format, "."+format, 1+g.r.IntN(3), st), j)
}

// 15: a number beyond a DOUBLE's range toward zero is refused, whatever
// the column.
func (g *gen) tinyExponent() {
	vals := []cell{num("2.5"), num(pick(g.r, []string{"1e-400", "-1E-400", "1e-310", "5e-324", "4.9e-324", "2e-308", "1e-324"}))}
	var decl [][2]string
	if g.r.IntN(2) == 0 {
		decl = [][2]string{{"v", pick(g.r, []string{"DOUBLE", "REAL", "DECIMAL(38,10)", "VARCHAR"})}}
	}
	g.loadOne(oneColumn("v", vals), g.format(), decl, false)
}

// A second load into a table the first made, its values of any family:
// the target's columns, as each engine reads their types back, decide.
func (g *gen) secondLoad() {
	merge := g.r.IntN(2) == 0
	t, decl := g.randomTable(merge)
	format := g.format()
	j := g.loadOne(t, format, decl, merge)
	t2, _ := g.randomTableLike(t, merge)
	g.step(map[string][]byte{"in/x." + format: g.encode(t2, format, g.csvStyle(), false)}, j)
}

// Types a job declares, then a second load by the same job of a value
// the declared type does not hold, into the table the first made, whose
// column may hold more on some engine than declared (a VARCHAR's length).
func (g *gen) declaredThenTarget() {
	c := pick(g.r, [][3]string{
		{"VARCHAR(5)", "abc", "abcdefgh"}, {"VARCHAR(300)", "x", strings.Repeat("y", 301)},
		{"VARCHAR(3)", "é", "éééé"}, {"VARCHAR(255)", "x", strings.Repeat("z", 256)},
		{"SMALLINT", "5", "40000"}, {"INTEGER", "5", "3000000000"}, {"REAL", "0.5", "0.1234567891"},
		{"DECIMAL(5,2)", "1.5", "1234.5"}, {"TIMESTAMP", "2026-01-08 10:00:00", "2026-01-08 10:00:00+01"},
		{"DATE", "2026-01-08", "2026-01-08 10:00:00"}, {"BOOLEAN", "true", "yes"},
	})
	format := g.format()
	j := g.loadOne(oneColumn("v", []cell{text(c[1])}), format, [][2]string{{"v", c[0]}}, false)
	g.step(map[string][]byte{"in/x." + format: g.encode(oneColumn("v", []cell{text(c[1]), text(c[2])}), format, plainCSV, false)}, j)
}

// A JSON column (nested values made it one), then a second load of
// scalars into it: strings, numbers, booleans, text that is no JSON.
func (g *gen) jsonThenScalars() {
	first := oneColumn("j", []cell{nested(`{"a":1}`), nested(`[1,"x"]`)})
	j := g.loadOne(first, "jsonl", nil, false)
	format := g.format()
	vals := []cell{text("abc")} // a string, and text that is no JSON
	for range g.r.IntN(3) {
		vals = append(vals, pick(g.r, []cell{text("abc"), num("5"), boolean("true"), text(`{"b":2}`), text("[1, 2]"), text(`"q"`), null()}))
	}
	name := "in/x." + format
	g.step(map[string][]byte{name: g.encode(oneColumn("j", vals), format, plainCSV, false)}, j)
	if format == "csv" {
		s := &g.c.Steps[len(g.c.Steps)-1]
		s.Remove = []string{"in/x.jsonl"} // the first load's file
		j.files = name
		s.Job = j.text()
	}
}

// Days of a zone (partition.timezone): instants and wall clocks at the
// edges of the run's day there, in zones of odd offsets.
func (g *gen) zonedPartition() {
	zones := map[string]int{"Europe/Berlin": 60, "America/New_York": -300, "Asia/Kolkata": 330,
		"Pacific/Chatham": 825, "America/St_Johns": -210, "Pacific/Kiritimati": 840, "Etc/GMT+12": -720}
	names := make([]string, 0, len(zones))
	for z := range zones {
		names = append(names, z)
	}
	slices.Sort(names)
	zone := pick(g.r, names)
	start := time.Date(2026, 1, 8, 0, 0, 0, 0, time.FixedZone(zone, zones[zone]*60))
	zoned := g.r.IntN(3) != 0
	t := table{names: []string{"id", "day", "s"}}
	for i := range 2 + g.r.IntN(8) {
		at := start.Add(time.Duration(pick(g.r, []int{-1, 0, 1, 3600, 86399, 86400, 86401, 43200, -43200})) * time.Second)
		if g.r.IntN(4) == 0 {
			at = at.Add(time.Duration(g.r.IntN(1_000_000)) * time.Microsecond)
		}
		var v string
		if zoned {
			v = at.UTC().Format("2006-01-02 15:04:05.999999") + pick(g.r, []string{"Z", "+00:00", " UTC"})
			if g.r.IntN(2) == 0 {
				v = at.Format("2006-01-02T15:04:05.999999-07:00")
			}
		} else {
			v = at.Format("2006-01-02 15:04:05.999999")
		}
		t.rows = append(t.rows, []cell{num(fmt.Sprint(i + 1)), text(v), text(pick(g.r, texts))})
	}
	format := g.format()
	name := "in/x." + format
	j := g.job(name, false)
	j.timezone = zone
	if g.r.IntN(3) == 0 {
		j.columns = [][2]string{{"day", pick(g.r, []string{"TIMESTAMP", "TIMESTAMPTZ"})}}
	}
	g.step(map[string][]byte{name: g.encode(t, format, plainCSV, false)}, j)
}

// Rows of one key and one version that differ in one column, of any
// family: which one stays is decided by their content, alike on every
// engine (a merge and a partition job's dedup).
func (g *gen) mergeTies() {
	f := pick(g.r, families)
	merge := g.r.IntN(2) == 0
	t := table{names: []string{"id", "day", "c"}}
	if merge {
		t.names = append(t.names, "v")
	}
	ties := []cell{f.fn(g), f.fn(g), f.fn(g)}
	if g.r.IntN(3) == 0 {
		ties[g.r.IntN(3)] = null()
	}
	for i := range 2 + g.r.IntN(4) {
		row := []cell{num(fmt.Sprint(1 + i%2)), text(RunDate), ties[g.r.IntN(len(ties))]}
		if merge {
			row = append(row, num("1"))
		}
		t.rows = append(t.rows, row)
	}
	format := g.format()
	name := "in/x." + format
	j := g.job(name, merge)
	j.key = []string{"id"}
	g.step(map[string][]byte{name: g.encode(t, format, g.csvStyle(), false)}, j)
	if merge && g.r.IntN(2) == 0 { // and again, the other ties against the table
		t.rows[0][2] = ties[g.r.IntN(len(ties))]
		g.step(map[string][]byte{name: g.encode(t, format, plainCSV, false)}, j)
	}
}

// A second load whose file has a column the table lacks, added (or
// refused, without on_schema_change: add_columns), its values of any
// family.
func (g *gen) newColumn() {
	merge := g.r.IntN(2) == 0
	t, decl := g.randomTable(merge)
	format := g.format()
	j := g.loadOne(t, format, decl, merge)
	t2, _ := g.randomTableLike(t, merge)
	f := pick(g.r, families)
	t2.names = append(append([]string{}, t2.names...), "added_"+f.name)
	for i := range t2.rows {
		t2.rows[i] = append(t2.rows[i], f.fn(g))
	}
	j.addColumns = g.r.IntN(4) != 0
	g.step(map[string][]byte{"in/x." + format: g.encode(t2, format, g.csvStyle(), false)}, j)
}
