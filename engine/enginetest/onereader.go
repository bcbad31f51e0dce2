package enginetest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// oneReaderCases: the same bytes give the same table on every engine
// (guarantee 9). Each case is one of the divergences the engines' own
// readers showed, now decided by the one reader: the exact value every
// engine stores, or the exact refusal (file and line), which leaves the
// target as it was.
var oneReaderCases = []testCase{
	{"ClockWordsAndLooseTimesAreNoDates", testClockWords},
	{"GlobCharactersInFileNamesReadOnce", testGlobNames},
	{"TruncatedGzipRefused", testTruncatedGzip},
	{"TwoDigitYearDatesAreText", testTwoDigitYears},
	{"LongColumnNameInFileIsAJobError", testLongColumnName},
	{"BlankFieldsKeptAsText", testBlankFields},
	{"SpaceAroundQuotedFieldRefused", testSpaceAroundQuotes},
	{"NestedJSONNumbersKeptExactly", testNestedNumbers},
	{"InexactValueRefusedInEitherOrder", testInexactEitherOrder},
	{"NumericWithoutPrecisionIsAJobError", testBareNumeric},
	{"DeleteWhenYesNoRefused", testDeleteWhenYesNo},
	{"JSONKeysDifferingInCaseRefused", testJSONKeyCase},
	{"LineEndsAndBlankLinesReadAlike", testLineEnds},
	{"TinyExponentRefused", testTinyExponent},
	{"DeclaredLengthHeldOnEveryEngine", testDeclaredLength},
	{"JSONStoredAndTiedAsTheReadersText", testJSONTies},
	{"JSONKeyIsAJobError", testJSONKey},
	{"AddedDecimalColumnKeepsItsType", testAddedDecimal},
}

// A column a merge adds (on_schema_change: add_columns) gets the type the
// reader decided, as the staging table had it: MariaDB reported a staged
// DECIMAL(38,4) back as DECIMAL and added DECIMAL(65,30), so the same
// files gave another table there (the differential test, seed
// 1028994136366181, case 774).
func testAddedDecimal(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	j := e.Job(`job: added_decimal
source:
  files: in/x.csv
strategy: merge
key: [id]
latest_by: v
on_schema_change: add_columns
`)
	e.Write("in/x.csv", "id,v\n1,3\n")
	e.MustRun(j, "2026-01-08")
	e.Write("in/x.csv", "id,v,n\n1,4,0.1\n2,4,123.4500\n3,4,9223372036854775807\n4,4,1e5\n")
	e.MustRun(j, "2026-01-08")
	require.Contains(t, e.dump()[0], "| n decimal(38,4)")
}

// dump is the env's table as canonical text (DumpTable's Lines).
func (e *Env) dump() []string {
	e.t.Helper()
	var out []string
	e.DB(func(ctx context.Context, db engine.DB) {
		d, err := DumpTable(ctx, db, e.Table)
		require.NoError(e.t, err)
		out = d.Lines()
	})
	return out
}

// refused runs j through the library only (for lists of values, where
// requireRefused's binary run per value would cost seconds): it fails as
// bad input with every part in its message, and the target is unchanged.
func (e *Env) refused(j *job.Job, date string, parts ...string) {
	e.t.Helper()
	before := e.state()
	_, err := e.Run(j, date, Force)
	var ie *runner.InputError
	require.ErrorAs(e.t, err, &ie, "%v", err)
	for _, p := range parts {
		require.Contains(e.t, err.Error(), p)
	}
	require.Equal(e.t, before, e.state(), "the run changed the target")
}

// gzipped is s compressed.
func gzipped(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	_, err := z.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	return b.String()
}

// ParquetOf is a Parquet file of one record batch that fill builds.
func ParquetOf(t testing.TB, schema *arrow.Schema, fill func(b *array.RecordBuilder)) string {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &out, nil, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return out.String()
}

// Words for the run's clock, dates written day or month first or in
// words, and zones by name are no date or timestamp: in a column that is
// one (declared, or the target's, past any sample) each is refused by
// file and line; in a new column they are text, as written. (What the
// engines' own readers did: docs/decisions/0019-one-reader-divergences.md.)
func testClockWords(t *testing.T, h Harness) {
	t.Run("declared", func(t *testing.T) { testClockWordsDeclared(t, h) })
	t.Run("undeclared", func(t *testing.T) { testClockWordsUndeclared(t, h) })
	// The target's DATE column, a value past any reader's sample.
	t.Run("target", func(t *testing.T) { testClockWordsTarget(t, h) })
	// The partition column of a new target: its dates decide it is one.
	t.Run("partition", func(t *testing.T) { testClockWordsPartition(t, h) })
}

// testClockWordsDeclared: each word in a declared DATE or TIMESTAMP column
// is refused by file and line, and nothing is created.
func testClockWordsDeclared(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	j := e.Job(plainJob + "columns:\n  d: DATE\n  ts: TIMESTAMP\n")
	for _, c := range []struct{ col, value, why string }{
		{"d", "today", "is not a date (like 2026-11-28)"},
		{"d", "now", "is not a date"},
		{"d", "epoch", "is not a date"},
		{"d", "infinity", "is not a date"},
		{"d", "1/8/2026", "is not a date (like 2026-11-28): it is written day or month first"},
		{"d", "2026/01/08", "is not a date (like 2026-11-28): it is written day or month first"},
		{"d", "08.01.2026", "is not a date (like 2026-11-28): it is written day or month first"},
		{"d", `"January 8, 2026"`, "is not a date"},
		{"d", "20260108", "is not a date"},
		{"d", "2026-1-8", "is not a date"},
		{"d", "J2461049", "is not a date"},
		{"d", "2026-01-08 00:00:00", "is not a date (like 2026-11-28): a DATE column would drop its time of day"},
		{"ts", "now", "is not a date or timestamp (like 2026-11-28 13:45:00)"},
		{"ts", "today", "is not a date or timestamp"},
		{"ts", "allballs", "is not a date or timestamp"},
		{"ts", "04:05:06 PST", "is not a date or timestamp"},
		{"ts", "2026-01-08 04:05:06 PST", "names its time zone: write its UTC offset instead"},
		{"ts", "2026-01-08 04:05:06 America/New_York", "names its time zone"},
		{"ts", "2026-01-08 04:05:06+01:00", "has a UTC offset, which a TIMESTAMP column would drop"},
		{"ts", "2026-01-08 24:00:00", "is not a date or timestamp"},
		{"ts", "1/8/2026 04:05:06", "is not a date or timestamp (like 2026-11-28 13:45:00): it is written day or month first"},
	} {
		d, ts := "2024-05-01", "2024-05-01 10:00:00"
		if c.col == "d" {
			d = c.value
		} else {
			ts = c.value
		}
		p := e.Write("in/x.csv", "id,day,d,ts\n1,2024-05-01,2024-05-01,2024-05-01 10:00:00\n2,2024-05-01,"+d+","+ts+"\n")
		e.refused(j, "2024-05-01", fmt.Sprintf("%s line 3: column %q: %q %s", p, c.col, strings.Trim(c.value, `"`), c.why))
	}
	require.Empty(t, e.Trace().Tables)
	p := e.Write("in/x.csv", "id,day,d,ts\n1,2024-05-01,today,now\n")
	e.requireRefused(j, "2024-05-01", 1, p+` line 2: column "d": "today" is not a date (like 2026-11-28)`, "(columns: declares it DATE)")
}

// testClockWordsUndeclared: in a new column the words are text, as written.
func testClockWordsUndeclared(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.csv", "id,day,note\n1,2024-05-01,1/8/2026\n2,2024-05-01,04:05:06 PST\n3,2024-05-01,today\n4,2024-05-01,now\n"+
		"5,2024-05-01,2026-01-08 04:05:06 PST\n6,2024-05-01,allballs\n")
	e.MustRun(e.Job(plainJob), "2024-05-01")
	require.Equal(t, []string{"id int64 | day date | note text",
		`1 | 2024-05-01 | "1/8/2026"`, `2 | 2024-05-01 | "04:05:06 PST"`, `3 | 2024-05-01 | "today"`,
		`4 | 2024-05-01 | "now"`, `5 | 2024-05-01 | "2026-01-08 04:05:06 PST"`, `6 | 2024-05-01 | "allballs"`}, e.dump())
}

func testClockWordsTarget(t *testing.T, h Harness) {
	e, j := loaded(t, h, plainJob, "id,day,d\n1,2024-05-01,2024-05-01\n")
	var b strings.Builder
	b.WriteString("id,day,d\n")
	for i := range beyondSample {
		fmt.Fprintf(&b, "%d,2024-05-01,2024-05-01\n", i)
	}
	b.WriteString("0,2024-05-01,today\n")
	p := e.Write("in/x.csv", b.String())
	e.refused(j, "2024-05-01", fmt.Sprintf(`%s line %d: column "d": "today" is not a date`, p, beyondSample+2), "never changes silently")
}

func testClockWordsPartition(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	var b strings.Builder
	b.WriteString("id,day\n")
	for i := range beyondSample {
		fmt.Fprintf(&b, "%d,2024-05-01\n", i)
	}
	b.WriteString("0,now\n")
	p := e.Write("in/x.csv", b.String())
	e.refused(e.Job(plainJob), "2024-05-01", fmt.Sprintf(`%s line %d: column "day": "now" is not a date or timestamp`, p, beyondSample+2))
	require.Empty(t, e.Trace().Tables)
}

// File names holding glob characters are read as the files they name,
// each once: a reader that globbed them again read d1.csv twice for
// d[1].csv and never d[1].csv itself. The run id covers exactly the files
// read: changing d[1].csv alone loads again.
func testGlobNames(t *testing.T, h Harness) {
	names := []string{"d[1]", "d1", "d{1,2}", "d?", "d*", "d[!1]"}
	row := func(format string, id int, src string) string {
		if format == "jsonl" {
			return fmt.Sprintf(`{"id":%d,"day":"2024-05-01","src":%q}`+"\n", id, src)
		}
		return fmt.Sprintf("id,day,src\n%d,2024-05-01,\"%s\"\n", id, src)
	}
	for _, format := range []string{"csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			e := NewEnv(t, h)
			var paths, want []string
			for i, n := range names {
				paths = append(paths, e.Write("in/"+n+"."+format, row(format, i+1, n)))
				want = append(want, fmt.Sprintf("%d|%s", i+1, n))
			}
			j := e.Job(strings.Replace(plainJob, "in/x.csv", "in/*."+format, 1))
			r := e.MustRun(j, "2024-05-01")
			require.Equal(t, want, e.Rows("", "id", "src"), "every file once")
			fp, err := input.Fingerprint(paths)
			require.NoError(t, err)
			require.Equal(t, fp, r.InputFingerprint, "the run id covers the files read")

			e.Write("in/d[1]."+format, row(format, 1, "changed"))
			again := e.MustRun(j, "2024-05-01")
			require.Equal(t, runner.ActionLoaded, again.Action)
			require.NotEqual(t, r.RunID, again.RunID)
			want[0] = "1|changed"
			require.Equal(t, want, e.Rows("", "id", "src"))
		})
	}
}

// A gzip file cut short, or whose checksum does not match, loads none of
// its rows: every reader loaded the rows before the cut.
func testTruncatedGzip(t *testing.T, h Harness) {
	for _, format := range []string{"csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			var b strings.Builder
			if format == "csv" {
				b.WriteString("id,day,s\n")
			}
			for i := range 3000 {
				if format == "csv" {
					fmt.Fprintf(&b, "%d,2024-05-01,row %d of %x\n", i, i, i*7919)
				} else {
					fmt.Fprintf(&b, `{"id":%d,"day":"2024-05-01","s":"row %d of %x"}`+"\n", i, i, i*7919)
				}
			}
			whole := gzipped(t, b.String())
			name := "in/x." + format + ".gz"
			body := strings.Replace(plainJob, "in/x.csv", name, 1)

			fresh := NewEnv(t, h)
			p := fresh.Write(name, whole[:len(whole)*2/3])
			fresh.requireRefused(fresh.Job(body), "2024-05-01", 1, p+" has gzip data that is cut short or damaged")
			require.Empty(t, fresh.Trace().Tables)

			e := NewEnv(t, h)
			head := b.String()[:strings.Index(b.String(), "row 10 ")]
			head = head[:strings.LastIndex(head, "\n")+1] // rows 0 to 9
			e.Write(name, gzipped(t, head))
			j := e.Job(body)
			e.MustRun(j, "2024-05-01")
			q := e.Write(name, whole[:len(whole)-100])
			e.refused(j, "2024-05-01", q+" has gzip data that is cut short or damaged")
			bad := []byte(whole)
			bad[len(bad)-6] ^= 0xff // the CRC-32
			e.Write(name, string(bad))
			e.refused(j, "2024-05-01", q+" has gzip data that is cut short or damaged")
			require.Equal(t, []string{"10"}, e.Query("SELECT count(*) FROM "+e.Sales("orders")))
		})
	}
}

// Dates with a two-digit year are no date: 03/04/26 could be read as
// YY/MM/DD (docs/decisions/0019-one-reader-divergences.md).
func testTwoDigitYears(t *testing.T, h Harness) {
	const file = "id,day,born\n1,2024-05-01,03/04/26\n2,2024-05-01,15/04/26\n3,2024-05-01,26-04-03\n"
	t.Run("undeclared", func(t *testing.T) {
		e := NewEnv(t, h)
		e.Write("in/x.csv", file)
		e.MustRun(e.Job(plainJob), "2024-05-01")
		require.Equal(t, []string{"id int64 | day date | born text",
			`1 | 2024-05-01 | "03/04/26"`, `2 | 2024-05-01 | "15/04/26"`, `3 | 2024-05-01 | "26-04-03"`}, e.dump())
	})
	t.Run("declared", func(t *testing.T) {
		e := NewEnv(t, h)
		p := e.Write("in/x.csv", file)
		j := e.Job(plainJob + "columns:\n  born: DATE\n")
		e.requireRefused(j, "2024-05-01", 1, p+` line 2: column "born": "03/04/26" is not a date (like 2026-11-28): it is written day or month first`)
		p = e.Write("in/x.csv", "id,day,born\n1,2024-05-01,26-04-03\n")
		e.refused(j, "2024-05-01", p+` line 2: column "born": "26-04-03" is not a date`)
	})
}

// A column name of 64 bytes, in a CSV header, a JSON key or a Parquet
// column, is refused on every engine as the job's input (exit 2):
// PostgreSQL cut it to 63 bytes, the others kept it. 63 bytes load.
func testLongColumnName(t *testing.T, h Harness) {
	long, fits := strings.Repeat("n", 64), strings.Repeat("é", 31)+"x" // 63 bytes
	files := map[string]func(name string) string{
		"csv":   func(name string) string { return "id,day," + name + "\n1,2024-05-01,5\n" },
		"jsonl": func(name string) string { return `{"id":1,"day":"2024-05-01","` + name + `":5}` + "\n" },
		"parquet": func(name string) string {
			schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
				{Name: "day", Type: arrow.FixedWidthTypes.Date32}, {Name: name, Type: arrow.PrimitiveTypes.Int64}}, nil)
			return ParquetOf(t, schema, func(b *array.RecordBuilder) {
				b.Field(0).(*array.Int64Builder).Append(1)
				b.Field(1).(*array.Date32Builder).Append(arrow.Date32FromTime(mustDate("2024-05-01")))
				b.Field(2).(*array.Int64Builder).Append(5)
			})
		},
	}
	for _, format := range []string{"csv", "jsonl", "parquet"} {
		t.Run(format, func(t *testing.T) {
			e := NewEnv(t, h)
			body := strings.Replace(plainJob, "in/x.csv", "in/x."+format, 1)
			p := e.Write("in/x."+format, files[format](long))
			e.requireRefused(e.Job(body), "2024-05-01", 2, p, "is 64 bytes long: PostgreSQL cuts names at 63 bytes, so idem refuses longer ones on every engine")
			require.Empty(t, e.Trace().Tables)
			e.Write("in/x."+format, files[format](fits))
			e.MustRun(e.Job(body), "2024-05-01")
			require.Equal(t, []string{"id int64 | day date | " + fits + " int64", "1 | 2024-05-01 | 5"}, e.dump())
		})
	}
}

// A field of blanks is text, kept as written; only an empty field is
// NULL, and a quoted empty field is empty text. MariaDB stored blanks as
// NULL when the file held an empty field elsewhere.
func testBlankFields(t *testing.T, h Harness) {
	want := []string{"id int64 | day date | s text | n int64",
		`1 | 2024-05-01 | "   " | NULL`, `2 | 2024-05-01 | NULL | 5`, `3 | 2024-05-01 | "  " | 6`,
		`4 | 2024-05-01 | " x " | 7`, `5 | 2024-05-01 | "" | 8`, `6 | 2024-05-01 | "\t" | 9`}
	t.Run("csv", func(t *testing.T) {
		e := NewEnv(t, h)
		e.Write("in/x.csv", "id,day,s,n\n1,2024-05-01,   ,\n2,2024-05-01,,5\n3,2024-05-01,\"  \",6\n4,2024-05-01, x ,7\n5,2024-05-01,\"\",8\n6,2024-05-01,\t,9\n")
		j := e.Job(plainJob)
		e.MustRun(j, "2024-05-01")
		require.Equal(t, want, e.dump())
		e.MustRun(j, "2024-05-01", Force) // into the target's columns
		require.Equal(t, want, e.dump())
	})
	t.Run("jsonl", func(t *testing.T) {
		e := NewEnv(t, h)
		e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","s":"   "}`+"\n"+`{"id":2,"day":"2024-05-01","n":5}`+"\n"+
			`{"id":3,"day":"2024-05-01","s":"  ","n":6}`+"\n"+`{"id":4,"day":"2024-05-01","s":" x ","n":7}`+"\n"+
			`{"id":5,"day":"2024-05-01","s":"","n":8}`+"\n"+`{"id":6,"day":"2024-05-01","s":"\t","n":9}`+"\n")
		e.MustRun(e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1)), "2024-05-01")
		require.Equal(t, want, e.dump())
	})
}

// Blanks around a quoted field are refused, by file and line: engines
// read 1, "a",5 three ways (a quoted a, a space and a quoted a, or the
// quotes as text).
func testSpaceAroundQuotes(t *testing.T, h Harness) {
	body := strings.Replace(plainJob, "column: day", "column: d", 1)
	e, j := loaded(t, h, body, "id,s,n,d\n1,a,5,2024-05-01\n")
	for _, c := range []struct{ row, why string }{
		{`1, "a",5,2024-05-01`, "line 3: field 2 has a space before its opening quote: the quote must be the field's first character"},
		{`1,"a" ,5,2024-05-01`, "line 3: field 2 has text after its closing quote"},
		{"1,\t\"a\",5,2024-05-01", "line 3: field 2 has a space before its opening quote"},
		{`1,a "b",5,2024-05-01`, "line 3: field 2 holds a quote but does not start with one"},
	} {
		p := e.Write("in/x.csv", "id,s,n,d\n2,b,6,2024-05-01\n"+c.row+"\n")
		e.refused(j, "2024-05-01", p+" "+c.why)
	}
	p := e.Write("in/x.csv", "id,s,n,d\n1, \"a\",5,2024-05-01\n")
	e.requireRefused(j, "2024-05-01", 1, p+" line 2: field 2 has a space before its opening quote")
}

// Nested JSON keeps every number as written, whatever came before it:
// {"a":5.7} after integers was stored as {"a":6}, and a 23-digit integer
// became a double. (PostgreSQL's jsonb respells the text: the values are
// compared, each number by its exact value.)
func testNestedNumbers(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	var b strings.Builder
	for i := range beyondSample {
		fmt.Fprintf(&b, `{"id":%d,"day":"2024-05-01","j":{"a":%d}}`+"\n", 100+i, i)
	}
	nested := map[string]string{
		"1": `{"a":5.7}`,
		"2": `{"a":12345678901234567890123}`,
		"3": `[0.1,1.10,-2.5e-3,1E+21,-0]`,
		"4": `{"z":1,"a":{"n":-0.0000001,"m":123456789012345678.5}}`,
		"5": `{"big":1e400,"tiny":1e-400}`,
	}
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		fmt.Fprintf(&b, `{"id":%s,"day":"2024-05-01","j":%s}`+"\n", id, nested[id])
	}
	e.Write("in/x.jsonl", b.String())
	e.MustRun(e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1)), "2024-05-01")
	got := e.dump()
	require.Equal(t, "id int64 | day date | j json", strings.Replace(got[0], "j text", "j json", 1), "ClickHouse keeps JSON as text")
	rows := map[string]string{}
	for _, r := range got[1:] {
		f := strings.SplitN(r, " | ", 3)
		rows[f[0]] = f[2]
	}
	for id, j := range nested {
		want, err := CanonicalJSON(j)
		require.NoError(t, err)
		stored := rows[id]
		if s, err := strconv.Unquote(stored); err == nil { // text
			stored, err = CanonicalJSON(s)
			require.NoError(t, err, "id %s", id)
		}
		require.Equal(t, want, stored, "id %s", id)
	}
	require.Len(t, rows, beyondSample+len(nested))
}

// A value an existing column cannot hold exactly is refused, whichever
// file came first: 9007199254740993 (no DOUBLE holds it) after 1.5 made
// the column DOUBLE, and 1.5 after 9007199254740993 made it BIGINT; from
// Parquet, a DECIMAL(38,10) into a DOUBLE column and a double needing 11
// digits after the point into a DECIMAL(38,10) column. Each first value
// is stored exactly.
func testInexactEitherOrder(t *testing.T, h Harness) {
	csvFile := func(v string) string { return "id,day,v\n1,2024-05-01,1\n2,2024-05-01," + v + "\n" }
	double := func(f float64) string {
		schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "day", Type: arrow.FixedWidthTypes.Date32}, {Name: "v", Type: arrow.PrimitiveTypes.Float64}}, nil)
		return ParquetOf(t, schema, func(b *array.RecordBuilder) {
			b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
			d := arrow.Date32FromTime(mustDate("2024-05-01"))
			b.Field(1).(*array.Date32Builder).AppendValues([]arrow.Date32{d, d}, nil)
			b.Field(2).(*array.Float64Builder).AppendValues([]float64{1, f}, nil)
		})
	}
	decimal := func(v string) string {
		dt := &arrow.Decimal128Type{Precision: 38, Scale: 10}
		schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "day", Type: arrow.FixedWidthTypes.Date32}, {Name: "v", Type: dt}}, nil)
		return ParquetOf(t, schema, func(b *array.RecordBuilder) {
			b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
			d := arrow.Date32FromTime(mustDate("2024-05-01"))
			b.Field(1).(*array.Date32Builder).AppendValues([]arrow.Date32{d, d}, nil)
			one, err := decimal128.FromString("1", 38, 10)
			require.NoError(t, err)
			n, err := decimal128.FromString(v, 38, 10)
			require.NoError(t, err)
			b.Field(2).(*array.Decimal128Builder).AppendValues([]decimal128.Num{one, n}, nil)
		})
	}
	const huge = "1234567890123456789012345678.0123456789"
	for _, c := range []struct {
		name, format, first, second string
		kind, stored, why           string
	}{
		{"csv/double first", "csv", csvFile("1.5"), csvFile("9007199254740993"),
			"float64", "1.5", `line 3: column "v": "9007199254740993" cannot be held exactly by a DOUBLE (it would read back as 9.007199254740992e+15)`},
		{"csv/integer first", "csv", csvFile("9007199254740993"), csvFile("1.5"),
			"int64", "9007199254740993", `line 3: column "v": "1.5" is not an integer`},
		{"parquet/double first", "parquet", double(1.5), decimal(huge),
			"float64", "1.5", `row 2: column "v": "` + huge + `" cannot be held exactly by a DOUBLE`},
		{"parquet/decimal first", "parquet", decimal(huge), double(1.25e-11),
			"decimal(38,10)", huge, `row 2: column "v": "1.25e-11" has more than 10 digits after the point (DECIMAL(38,10))`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEnv(t, h)
			name := "in/x." + c.format
			e.Write(name, c.first)
			j := e.Job(strings.Replace(plainJob, "in/x.csv", name, 1))
			e.MustRun(j, "2024-05-01")
			p := e.Write(name, c.second)
			e.requireRefused(j, "2024-05-01", 1, p+" "+c.why, "never changes silently")
			require.Equal(t, []string{"id int64 | day date | v " + c.kind, "1 | 2024-05-01 | 1", "2 | 2024-05-01 | " + c.stored}, e.dump())
		})
	}
}

// NUMERIC without a precision and a scale is refused as a job error (exit 2):
// engines differ on what it means
// (docs/decisions/0019-one-reader-divergences.md). A DECIMAL(38,8) keeps
// every digit.
func testBareNumeric(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.csv", "id,day,v\n1,2024-05-01,1.23456789\n")
	for _, typ := range []string{"NUMERIC", "DECIMAL", "numeric"} {
		e.requireRefused(e.Job(plainJob+"columns:\n  v: "+typ+"\n"), "2024-05-01", 2,
			fmt.Sprintf(`columns.v: %q needs a precision and a scale, like DECIMAL(18,4): without them engines keep different numbers of digits`, typ))
	}
	require.Empty(t, e.Trace().Tables)
	e.MustRun(e.Job(plainJob+"columns:\n  v: NUMERIC(38,8)\n"), "2024-05-01")
	require.Equal(t, []string{"id int64 | day date | v decimal(38,8)", "1 | 2024-05-01 | 1.23456789"}, e.dump())
}

const deleteWhenJob = `job: dw
source:
  files: in/x.csv
strategy: merge
key: [id]
latest_by: v
delete_when: gone
`

// A delete_when column holding Y and N is refused by file and line (exit
// 1), on a first merge and onto a loaded table: engines failed with their
// own type errors, or left the tombstone table behind.
func testDeleteWhenYesNo(t *testing.T, h Harness) {
	t.Run("first", func(t *testing.T) {
		e := NewEnv(t, h)
		p := e.Write("in/x.csv", "id,v,gone\n1,1,false\n2,1,N\n")
		e.requireRefused(e.Job(deleteWhenJob), "2024-05-01", 1, p+` line 3: column "gone": "N" is not a boolean (true or false)`)
		require.Empty(t, e.Trace().Tables)
	})
	t.Run("loaded", func(t *testing.T) {
		e, j := loaded(t, h, deleteWhenJob, "id,v,gone\n1,1,false\n2,1,true\n")
		p := e.Write("in/x.csv", "id,v,gone\n1,2,Y\n")
		e.requireRefused(j, "2024-05-01", 1, p+` line 2: column "gone": "Y" is not a boolean (true or false)`)
		require.Equal(t, []string{"1|1"}, e.Rows("", "id", "v"))
	})
}

// JSON keys that differ only in case are refused, in one object or in
// two: v and V loaded as columns v and V_1 (a CSV header naming both was
// refused, as it still is).
func testJSONKeyCase(t *testing.T, h Harness) {
	body := strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1)
	e := NewEnv(t, h)
	e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","v":1}`+"\n")
	j := e.Job(body)
	e.MustRun(j, "2024-05-01")
	p := e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","v":1,"V":2}`+"\n")
	e.requireRefused(j, "2024-05-01", 1, p+` line 1: key "V" differs only in case from key "v" (x.jsonl line 1)`)
	p = e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","v":1}`+"\n\n"+`{"id":2,"day":"2024-05-01","V":2}`+"\n")
	e.refused(j, "2024-05-01", p+` line 3: key "V" differs only in case from key "v" (x.jsonl line 1)`)
	p = e.Write("in/x.csv", "id,day,v,V\n1,2024-05-01,1,2\n")
	e.refused(e.Job(plainJob), "2024-05-01", p+` line 1: the header names column "V" twice`)
}

// CR LF and LF mixed, and blank lines between rows, read as the plain
// file: the same table on every engine, for a partition job and a merge.
// Two engines loaded blank lines and two failed (one of them with "NULL
// in key"); a bad value after them is named by its line in the file.
func testLineEnds(t *testing.T, h Harness) {
	const plain = "id,day,s\n1,2024-05-01,a\n2,2024-05-01,b\n3,2024-05-01,c\n"
	variants := map[string]string{
		"mixed":  "id,day,s\r\n1,2024-05-01,a\n2,2024-05-01,b\r\n3,2024-05-01,c\n",
		"blanks": "id,day,s\n\n1,2024-05-01,a\n\r\n\n2,2024-05-01,b\n\n3,2024-05-01,c\n\n\n",
		"both":   "id,day,s\r\n1,2024-05-01,a\r\n\r\n2,2024-05-01,b\n\n3,2024-05-01,c",
	}
	jobs := map[string]string{"partition": plainJob,
		"merge": "job: lines\nsource:\n  files: in/x.csv\nstrategy: merge\nkey: [id]\nlatest_by: day\n"}
	want := []string{"id int64 | day date | s text", `1 | 2024-05-01 | "a"`, `2 | 2024-05-01 | "b"`, `3 | 2024-05-01 | "c"`}
	for _, name := range []string{"mixed", "blanks", "both"} {
		for _, strategy := range []string{"partition", "merge"} {
			t.Run(name+"/"+strategy, func(t *testing.T) {
				e := NewEnv(t, h)
				e.Write("in/x.csv", variants[name])
				e.MustRun(e.Job(jobs[strategy]), "2024-05-01")
				require.Equal(t, want, e.dump())
			})
		}
	}
	e, j := loaded(t, h, plainJob, plain)
	for _, c := range []struct{ file, at string }{
		{"id,day,s\r\n1,2024-05-01,a\n\n\r\n2,2024-13-01,b\n", "line 5"},
		{"id,day,s\n1,2024-05-01,\"two\nlines\"\n\n2,2024-13-01,b\n", "line 5"},
		{"id,day,s\n\n\n1,2024-13-01,a\r\n", "line 4"},
	} {
		p := e.Write("in/x.csv", c.file)
		e.refused(j, "2024-05-01", p+" "+c.at+`: column "day": "2024-13-01" is not a date`)
	}
	p := e.Write("in/x.csv", "id,day,s\n1,2024-05-01,a\rb\n")
	e.requireRefused(j, "2024-05-01", 1, p+" line 2: field 3 holds a carriage return that does not end a line")
	jl := e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1))
	p = e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","s":"a"}`+"\r\n\n"+`{"id":2,"day":"2024-13-01","s":"b"}`+"\n")
	e.refused(jl, "2024-05-01", p+` line 3: column "day": "2024-13-01" is not a date`)
}

// A number beyond a DOUBLE's range toward zero (1e-400) is refused in a
// new column, in CSV and JSON Lines: one engine refused it, three stored
// 0. The smallest doubles there are (subnormal) load as themselves.
func testTinyExponent(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	p := e.Write("in/x.csv", "id,day,x\n1,2024-05-01,2.5\n2,2024-05-01,1e-400\n")
	e.requireRefused(e.Job(plainJob), "2024-05-01", 1, p+` line 3: column "x": "1e-400" is beyond the range of a DOUBLE (it would be stored as 0)`)
	p = e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","x":-1E-400}`+"\n")
	e.refused(e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1)), "2024-05-01", p+` line 1: column "x": "-1E-400" is beyond the range of a DOUBLE`)
	require.Empty(t, e.Trace().Tables)
	e.Write("in/x.csv", "id,day,x\n1,2024-05-01,2.5\n2,2024-05-01,1e-310\n3,2024-05-01,-2.2250738585072014e-308\n4,2024-05-01,1.7976931348623157e308\n")
	e.MustRun(e.Job(plainJob), "2024-05-01")
	require.Equal(t, []string{"id int64 | day date | x float64", "1 | 2024-05-01 | 2.5", "2 | 2024-05-01 | 1e-310",
		"3 | 2024-05-01 | -2.2250738585072014e-308", "4 | 2024-05-01 | 1.7976931348623157e+308"}, e.dump())
}

// mustDate is a date written YYYY-MM-DD.
func mustDate(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// A length the job declares (VARCHAR(n)) holds in every load of the job,
// also where the engine's column keeps none (DuckDB, ClickHouse, MariaDB
// past 255 characters): a second load stored the longer value there, and
// was refused on PostgreSQL.
func testDeclaredLength(t *testing.T, h Harness) {
	for _, n := range []int{5, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e, j := loaded(t, h, plainJob+fmt.Sprintf("columns:\n  s: VARCHAR(%d)\n", n), "id,day,s\n1,2024-05-01,abc\n")
			fits := strings.Repeat("é", n)
			p := e.Write("in/x.csv", "id,day,s\n1,2024-05-01,"+fits+"\n2,2024-05-01,"+fits+"x\n")
			e.requireRefused(j, "2024-05-01", 1, p+` line 3: column "s": `, fmt.Sprintf("has %d characters; the column holds at most %d", n+1, n))
			e.Write("in/x.csv", "id,day,s\n1,2024-05-01,"+fits+"\n")
			e.MustRun(j, "2024-05-01")
			require.Equal(t, []string{"1|" + fits}, e.Rows("", "id", "s"))
		})
	}
}

// JSON is stored as the reader's text of it, keys in their order, on
// every engine; rows of one key tying on their version are ordered by
// their content, a JSON column by that text. PostgreSQL's jsonb reordered
// keys and ordered [true] before ["null",{}] (fewer elements first), so
// another row survived there.
func testJSONTies(t *testing.T, h Harness) {
	const jl = "in/x.jsonl"
	text := func(e *Env) []string {
		return e.Query(`SELECT id, CONCAT(j, '') FROM ` + e.Sales("orders") + ` ORDER BY id`)
	}
	t.Run("dedup", func(t *testing.T) {
		e := NewEnv(t, h)
		e.Write(jl, `{"id":1,"day":"2024-05-01","j":[true]}`+"\n"+`{"id":1,"day":"2024-05-01","j":["null",{}]}`+"\n"+
			`{"id":2,"day":"2024-05-01","j":{"b":1,"a":[1.10,1e2]}}`+"\n")
		e.MustRun(e.Job(strings.Replace(plainJob, "in/x.csv", jl, 1)+"key: [id]\n"), "2024-05-01")
		require.Equal(t, []string{`1|["null",{}]`, `2|{"b":1,"a":[1.10,1e2]}`}, text(e))
	})
	t.Run("merge", func(t *testing.T) {
		e := NewEnv(t, h)
		j := e.Job("job: ties\nsource:\n  files: " + jl + "\nstrategy: merge\nkey: [id]\nlatest_by: v\n")
		e.Write(jl, `{"id":1,"v":1,"j":[true]}`+"\n")
		e.MustRun(j, "2024-05-01")
		e.Write(jl, `{"id":1,"v":1,"j":["null",{}]}`+"\n")
		e.MustRun(j, "2024-05-02")
		require.Equal(t, []string{`1|["null",{}]`}, text(e))
		e.Write(jl, `{"id":1,"v":1,"j":[true]}`+"\n")
		e.MustRun(j, "2024-05-03")
		require.Equal(t, []string{`1|["null",{}]`}, text(e), "the tie is decided the same way whichever came first")
	})
}

// A key or version column the reader reads as JSON is refused (exit 2):
// PostgreSQL's json has no order to index a key by, MariaDB compared it
// under a collation its staged copy did not have, DuckDB and ClickHouse
// merged. Declared VARCHAR, it is a key like any text.
func testJSONKey(t *testing.T, h Harness) {
	const merge = "job: jkey\nsource:\n  files: in/x.jsonl\nstrategy: merge\nkey: [id, j]\nlatest_by: v\n"
	file := `{"id":1,"j":[],"v":1}` + "\n" + `{"id":1,"j":{"a":1},"v":2}` + "\n"
	e := NewEnv(t, h)
	e.Write("in/x.jsonl", file)
	e.requireRefused(e.Job(merge), "2024-05-01", 2, `key[1]: column "j" is read as JSON; a key or version column must not be JSON`)
	require.Empty(t, e.Trace().Tables)
	e.requireRefused(e.Job(strings.Replace(merge, "key: [id, j]\nlatest_by: v", "key: [id]\nlatest_by: j", 1)), "2024-05-01", 2,
		`latest_by: column "j" is read as JSON`)
	e.MustRun(e.Job(merge+"columns:\n  j: VARCHAR\n"), "2024-05-01")
	require.Equal(t, []string{`1|[]|1`, `1|{"a":1}|2`}, e.Rows("", "id", "j", "v"))
}
