package enginetest

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
	"github.com/idemdata/idem/runner"
)

// badInput2Cases: every bad input of issue 13 is named (file, line, column
// or key), has its exit code (1 for the data, 2 for the job file), and
// leaves the target byte for byte as it was; inputs that only look odd
// (a BOM, CRLF, a huge field, gzip, hostile names) load faithfully.
var badInput2Cases = []testCase{
	{"DayOrMonthFirstDatesRefused", testDayMonthFirst},
	{"TheWordNULLIsText", testWordNULL},
	{"DayOrMonthFirstDatesRefusedInAnyColumn", testDayMonthFirstAnyColumn},
	{"InvalidUTF8NamedByLine", testInvalidUTF8},
	{"BOMAndCRLFLoadAsPlain", testBOMAndCRLF},
	{"TenMegabyteField", testHugeField},
	{"OverflowNamedByLine", testOverflow},
	{"UnparsableDateNamedByLine", testBadDate},
	{"JSONLLineNotJSON", testJSONLNotJSON},
	{"JSONLKeyPastSampleRefused", testJSONLLateKey},
	{"ParquetTruncatedOrFake", testBadParquet},
	{"GzipCSVLoads", testGzipCSV},
	{"HostileNamesQuotedNeverInjected", testHostileNames},
	{"VarValuesAreData", testVarValuesAreData},
	{"ColumnsTypoIsAJobError", testColumnsTypo},
}

// state is what a refused run must leave as it was: what exists in the
// target, the table's rows (count and checksum) and every ledger row. The
// idem_failures table is left out: a failed run records itself there, by
// design, outside the target table and the ledger.
func (e *Env) state() string {
	e.t.Helper()
	tr := e.Trace()
	tables := tr.Tables[:0:0]
	for _, t := range tr.Tables {
		if !strings.HasSuffix(t, ".idem_failures") {
			tables = append(tables, t)
		}
	}
	tr.Tables = tables
	out := fmt.Sprintf("%+v", tr)
	if !tr.Exists {
		return out
	}
	e.DB(func(ctx context.Context, db engine.DB) {
		q, args := db.SQL().Catalog.TableExists(e.Table)
		if len(queryStrings(e.t, ctx, db.Conn(), q, args...)) > 0 {
			n, sum, err := runner.TableChecksum(ctx, db, e.Table, "", nil)
			require.NoError(e.t, err)
			out += fmt.Sprintf("\ntable: %d rows, checksum %s", n, sum)
		}
		if ok, err := ledger.Exists(ctx, db.Conn(), db); ok && err == nil {
			d := db.SQL()
			out += "\nledger: " + strings.Join(queryStrings(e.t, ctx, db.Conn(), fmt.Sprintf(
				"SELECT %s, %s, %s, %s, %s FROM %s ORDER BY 1, 2, 3", d.Ident("job"), d.Ident("partition"),
				d.Ident("run_id"), d.Ident("row_count"), d.Ident("checksum"), d.Table(db.Names().Ledger))), "; ")
		}
	})
	return out
}

// requireRefused runs j for date through the library and through the
// binary: both must fail with code's error class (1: bad input, a
// runner.InputError; 2: the job file, a job.Error) and a message holding
// every part, and leave the target's state as it was.
func (e *Env) requireRefused(j *job.Job, date string, code int, parts ...string) {
	e.t.Helper()
	before := e.state()
	_, err := e.Run(j, date, Force)
	require.Error(e.t, err)
	switch code {
	case 1:
		var ie *runner.InputError
		require.ErrorAs(e.t, err, &ie, "%v", err)
	case 2:
		var je *job.Error
		require.ErrorAs(e.t, err, &je, "%v", err)
	}
	for _, p := range parts {
		require.Contains(e.t, err.Error(), p)
	}
	require.Equal(e.t, before, e.state(), "the library's run changed the target")
	got, out := runIdem(e.t, nil, "run", j.Path, "--date", date, "--force", "--as-of", "2026-12-01T00:00:00Z")
	require.Equal(e.t, code, got, out)
	for _, p := range parts {
		require.Contains(e.t, out, p)
	}
	require.Equal(e.t, before, e.state(), "the binary's run changed the target")
}

const plainJob = `job: plain
source:
  files: in/x.csv
strategy: partition
partition:
  column: day
`

// loaded returns an env whose target holds one good run of body over
// in/x.csv, and the job.
func loaded(t *testing.T, h Harness, body, good string) (*Env, *job.Job) {
	e := NewEnv(t, h)
	e.Write("in/x.csv", good)
	j := e.Job(body)
	e.MustRun(j, "2024-05-01")
	return e, j
}

func testInvalidUTF8(t *testing.T, h Harness) {
	e, j := loaded(t, h, plainJob, "id,day,name\n1,2024-05-01,ok\n")
	p := e.Write("in/x.csv", "id,day,name\n1,2024-05-01,ok\n2,2024-05-01,caf\xe9\n")
	e.requireRefused(j, "2024-05-01", 1, p+` line 3: column "name": "caf\xe9" is not valid UTF-8 (byte 0xe9 at offset 3)`)
}

// A byte order mark and CRLF line ends are read away: the same table as
// a plain file, the first column named without the mark, no \r in values.
func testBOMAndCRLF(t *testing.T, h Harness) {
	plain := "id,day,name\n1,2024-05-01,a\n2,2024-05-01,b\n"
	var sums []string
	for _, content := range []string{plain, "\ufeff" + plain, strings.ReplaceAll(plain, "\n", "\r\n"), "\ufeff" + strings.ReplaceAll(plain, "\n", "\r\n")} {
		e := NewEnv(t, h)
		e.Write("in/x.csv", content)
		r := e.MustRun(e.Job(plainJob), "2024-05-01")
		require.Equal(t, []string{"1|a", "2|b"}, e.Rows("", "id", "name"), "%q", content)
		require.Equal(t, []string{"2"}, e.Query(`SELECT count(*) FROM `+e.Sales("orders")+` WHERE length(name) = 1`), "%q", content)
		sums = append(sums, r.Checksum)
	}
	for _, s := range sums[1:] {
		require.Equal(t, sums[0], s)
	}
}

// A 10 MB field loads whole.
func testHugeField(t *testing.T, h Harness) {
	const size = 10 << 20
	e := NewEnv(t, h)
	e.Write("in/x.csv", "id,day,name\n1,2024-05-01,"+strings.Repeat("x", size)+"\n2,2024-05-01,b\n")
	r := e.MustRun(e.Job(plainJob), "2024-05-01")
	require.Equal(t, int64(2), r.RowCount)
	require.Equal(t, []string{fmt.Sprint(size), "1"}, e.Query(`SELECT length(name) FROM `+e.Sales("orders")+` ORDER BY id`))
}

// A number the target's column cannot hold names its file, line, column
// and value, whether the job declares the column's type or the target
// has it.
func testOverflow(t *testing.T, h Harness) {
	body := plainJob + "columns:\n  n: INTEGER\n"
	e, declared := loaded(t, h, body, "id,day,n\n1,2024-05-01,5\n")
	undeclared := e.Job(plainJob) // the same job name, the target's column INTEGER
	p := e.Write("in/x.csv", "id,day,n\n1,2024-05-01,5\n2,2024-05-01,3000000000\n")
	for _, j := range []*job.Job{declared, undeclared} {
		e.requireRefused(j, "2024-05-01", 1, p+` line 3: column "n": "3000000000" is out of range for a 32-bit integer`)
	}
	// A number beyond a DOUBLE's range
	// (docs/decisions/0019-one-reader-divergences.md), in CSV and JSON Lines,
	// inferred or declared; infinity spelled out is refused too: MariaDB
	// stores none. (Subtests: on MySQL each test's tables share a schema, and
	// these have other columns.)
	t.Run("csv", func(t *testing.T) { testHugeDouble(t, h, "csv") })
	t.Run("jsonl", func(t *testing.T) { testHugeDouble(t, h, "jsonl") })
}

func testHugeDouble(t *testing.T, h Harness, format string) {
	if format == "jsonl" {
		g, _ := loaded(t, h, plainJob, "id,day,x\n1,2024-05-01,1.5\n")
		p := g.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","x":2.5}`+"\n"+`{"id":2,"day":"2024-05-01","x":1E+309}`+"\n")
		g.requireRefused(g.Job(strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1)), "2024-05-01", 1, p+` line 2: column "x": "1E+309" is beyond the range of a DOUBLE`)
		return
	}
	f, jd := loaded(t, h, plainJob, "id,day,x\n1,2024-05-01,1.5\n")
	p := f.Write("in/x.csv", "id,day,x\n1,2024-05-01,2.5\n2,2024-05-01,-1.5e400\n")
	f.requireRefused(jd, "2024-05-01", 1, p+` line 3: column "x": "-1.5e400" is beyond the range of a DOUBLE`)
	p = f.Write("in/x.csv", "id,day,x\n1,2024-05-01,inf\n2,2024-05-01,-1.5e400\n")
	f.requireRefused(f.Job(plainJob+"columns:\n  x: DOUBLE\n"), "2024-05-01", 1, p+` line 2: column "x": "inf" is not a number: infinity and NaN are not stored`)
	p = f.Write("in/x.csv", "id,day,x\n1,2024-05-01,2.5\n2,2024-05-01,1e-400\n")
	f.requireRefused(f.Job(plainJob+"columns:\n  x: DOUBLE\n"), "2024-05-01", 1, p+` line 3: column "x": "1e-400" is beyond the range of a DOUBLE (it would be stored as 0)`)
}

// A date that does not parse names its value, file and line: in a fresh
// target (where the reader calls the column text), a loaded one (whose
// column is DATE) and with the type declared.
func testBadDate(t *testing.T, h Harness) {
	bad := "id,day,n\n1,2024-05-01,5\n2,2024-13-45,6\n"
	want := ` line 3: column "day": "2024-13-45" is not a date`

	fresh := NewEnv(t, h)
	p := fresh.Write("in/x.csv", bad)
	fresh.requireRefused(fresh.Job(plainJob), "2024-05-01", 1, p+want)
	require.Empty(t, fresh.Trace().Tables)

	for _, body := range []string{plainJob, plainJob + "columns:\n  day: DATE\n"} {
		e, j := loaded(t, h, body, "id,day,n\n1,2024-05-01,5\n")
		p := e.Write("in/x.csv", bad)
		e.requireRefused(j, "2024-05-01", 1, p+want)
	}
}

func testJSONLNotJSON(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01"}`+"\n")
	j := e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1) + "columns:\n  day: DATE\n")
	e.MustRun(j, "2024-05-01")
	p := e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01"}`+"\nthis line is not JSON\n")
	e.requireRefused(j, "2024-05-01", 1, p+" line 2: not a JSON object", "this line is not JSON")
	// A value past the reader's sample that its column's type cannot take,
	// and a key given twice: the file and line, and what to do.
	var late strings.Builder
	for i := range beyondSample {
		fmt.Fprintf(&late, `{"id":%d,"day":"2024-05-01"}`+"\n", i)
	}
	late.WriteString(`{"id":"many","day":"2024-05-01"}` + "\n")
	p = e.Write("in/x.jsonl", late.String())
	e.requireRefused(j, "2024-05-01", 1, fmt.Sprintf(`%s line %d: column "id": "many" is not an integer`, p, beyondSample+1),
		"never changes silently")
	p = e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","id":2}`+"\n")
	e.requireRefused(j, "2024-05-01", 1, p+` line 1: the object names key "id" twice`)
}

// testJSONLLateKey: a key first seen past the reader's sample is refused,
// also where a fraction past it makes the reader take the columns as given
// (a read that drops unknown keys: it loaded with exit 0 and no column x).
func testJSONLLateKey(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","v":1.5}`+"\n")
	j := e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.jsonl", 1) + "columns:\n  day: DATE\n")
	e.MustRun(j, "2024-05-01")
	var late strings.Builder
	for _, v := range []string{"5", "5.7"} {
		late.Reset()
		for i := range beyondSample {
			fmt.Fprintf(&late, `{"id":%d,"day":"2024-05-01","v":%d}`+"\n", i, i)
		}
		late.WriteString(`{"id":1,"day":"2024-05-01","v":` + v + `,"x":"late"}` + "\n")
		e.Write("in/x.jsonl", late.String())
		e.requireRefused(j, "2024-05-01", 1, `the input has column "x", which target`)
	}
}

// writeParquet writes csvText as a Parquet file with an embedded DuckDB.
func writeParquet(t *testing.T, dir, csvText string) []byte {
	t.Helper()
	src := filepath.Join(dir, "src.csv")
	dst := filepath.Join(dir, "src.parquet")
	require.NoError(t, os.WriteFile(src, []byte(csvText), 0o644))
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(fmt.Sprintf("COPY (SELECT * FROM read_csv('%s', header = true)) TO '%s' (FORMAT parquet)", src, dst))
	require.NoError(t, err)
	b, err := os.ReadFile(dst)
	require.NoError(t, err)
	return b
}

func testBadParquet(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	good := writeParquet(t, t.TempDir(), "id,day\n1,2024-05-01\n2,2024-05-01\n")
	e.Write("in/x.parquet", string(good))
	j := e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.parquet", 1))
	e.MustRun(j, "2024-05-01")
	p := e.Write("in/x.parquet", string(good[:len(good)/2]))
	e.requireRefused(j, "2024-05-01", 1, p+" is not a whole Parquet file: it does not end with PAR1")
	e.Write("in/x.parquet", "id,day\n1,2024-05-01\n")
	e.requireRefused(j, "2024-05-01", 1, p+" is not a Parquet file: it does not start with PAR1")
}

// A .csv.gz is read decompressed: the same table as the plain file. A
// file named .gz that is not gzip fails, named.
func testGzipCSV(t *testing.T, h Harness) {
	plain := "id,day,name\n1,2024-05-01,a\n2,2024-05-01,b\n"
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	_, err := z.Write([]byte(plain))
	require.NoError(t, err)
	require.NoError(t, z.Close())

	e0 := NewEnv(t, h)
	e0.Write("in/x.csv", plain)
	want := e0.MustRun(e0.Job(plainJob), "2024-05-01")

	e := NewEnv(t, h)
	e.Write("in/x.csv.gz", buf.String())
	j := e.Job(strings.Replace(plainJob, "in/x.csv", "in/x.csv.gz", 1))
	require.Equal(t, "csv", j.Source.Format)
	r := e.MustRun(j, "2024-05-01")
	require.Equal(t, want.Checksum, r.Checksum)
	require.Equal(t, []string{"1|a", "2|b"}, e.Rows("", "id", "name"))

	p := e.Write("in/x.csv.gz", plain)
	e.requireRefused(j, "2024-05-01", 1, p+" is not gzip-compressed, as its name says")
}

// Table and column names with quotes, semicolons, spaces, reserved words
// and unicode are quoted: they load, rerun as skipped, and nothing else in
// the target changes. Both strategies.
func testHostileNames(t *testing.T, h Harness) {
	const table = `o'brien; DROP TABLE idem_runs; -- ü`
	header := `"we""ird","semi;colon",with space,select,größe,order` + "\n"
	rows := `"a""b",x;y,"s p",1,10,2024-05-01` + "\n" + `c,"'; DROP TABLE idem_runs; --",t,2,20,2024-05-01` + "\n"
	cols := []string{`we"ird`, "semi;colon", "with space", "select", "größe"}
	for _, strategy := range []string{"partition", "merge"} {
		t.Run(strategy, func(t *testing.T) {
			e := NewEnv(t, h)
			e.Table = engine.Table{Schema: e.Schema, Name: table}
			e.Write("in/x.csv", header+rows)
			tail := "partition:\n  column: order\n"
			if strategy == "merge" {
				tail = "latest_by: order\n"
			}
			path := e.Write("job.yaml", fmt.Sprintf(`idem: 1
job: hostile
target:
  url: %s
  table: %s
source:
  files: in/x.csv
strategy: %s
key: ["select"]
columns:
  "größe": BIGINT
  "we\"ird": VARCHAR
  order: DATE
%s`, e.URL, yamlQuote(e.Sales(table)), strategy, tail))
			j, err := job.Load(path)
			require.NoError(t, err)
			r := e.MustRun(j, "2024-05-01")
			require.Equal(t, runner.ActionLoaded, r.Action)
			require.Equal(t, []string{`a"b|x;y|s p|1|10`, `c|'; DROP TABLE idem_runs; --|t|2|20`}, e.Rows("", cols...))
			require.Equal(t, runner.ActionSkipped, e.MustRun(j, "2024-05-01").Action)
			require.Equal(t, 1, e.LedgerRows("hostile", "2024-05-01", ""), "idem_runs is still there")
			require.Contains(t, e.Trace().Tables, e.Sales(table))
		})
	}
}

// ${VAR} values are data, never SQL: a table name, a file name and a
// column name holding SQL are quoted; a column that is not in the source
// is a job error; another table is untouched.
func testVarValuesAreData(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Exec(`CREATE TABLE keep_t (id INTEGER)`, `INSERT INTO keep_t VALUES (7)`)
	e.Write("in/it's; DROP TABLE keep_t.csv", "id,day\n1,2024-05-01\n")
	path := e.Write("vars.yaml", fmt.Sprintf(`idem: 1
job: vars
target:
  url: %s
  table: ${T}
source:
  files: ${F}
  format: csv
strategy: partition
partition:
  column: ${C}
`, yamlQuote(e.URL)))
	const table = `x'); DROP TABLE keep_t; --`
	env := []string{"T=" + e.Sales(table), "F=in/it's; DROP TABLE keep_t.csv", "C=day"}
	code, out := runIdem(t, env, "run", path, "--date", "2024-05-01", "--as-of", "2026-12-01T00:00:00Z")
	require.Equal(t, 0, code, out)
	e.Table = engine.Table{Schema: e.Schema, Name: table}
	require.Equal(t, []string{"1"}, e.Rows("", "id"))
	require.Equal(t, []string{"7"}, e.Query(`SELECT id FROM keep_t`))

	before := e.state()
	env[2] = `C=day" IS NULL OR "x`
	code, out = runIdem(t, env, "run", path, "--date", "2024-05-01", "--as-of", "2026-12-01T00:00:00Z", "--force")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, `partition.column: column "day\" IS NULL OR \"x" is not in the source (its columns: id, day)`)
	require.Equal(t, before, e.state())
	require.Equal(t, []string{"7"}, e.Query(`SELECT id FROM keep_t`))
}

// A typo under columns: is a job-file error with its path and line, found
// before anything is read; with other job-file problems, all are reported
// at once.
func testColumnsTypo(t *testing.T, h Harness) {
	e, _ := loaded(t, h, plainJob, "id,day,amount\n1,2024-05-01,5\n")
	typo := e.Job(plainJob + "columns:\n  amout: DECIMAL(12,2)\n")
	line := lineOf(t, typo.Path, "  amout:")
	e.requireRefused(typo, "2024-05-01", 2,
		fmt.Sprintf(`columns.amout: column "amout" is not in the source (its columns: id, day, amount); did you mean "amount"? (line %d)`, line))

	many := e.Job(strings.Replace(plainJob, "column: day", "column: dday", 1) + "columns:\n  amout: DECIMAL(12,2)\n  id: NOTATYPE\n")
	e.requireRefused(many, "2024-05-01", 2, "3 problems:",
		`partition.column: column "dday" is not in the source (its columns: id, day, amount); did you mean "day"?`,
		fmt.Sprintf(`columns.amout: column "amout" is not in the source (its columns: id, day, amount); did you mean "amount"? (line %d)`, lineOf(t, many.Path, "  amout:")),
		`columns.id: "NOTATYPE" is not a type idem reads`)

	fresh := NewEnv(t, h)
	fresh.Write("in/x.csv", "id,day,amount\n1,2024-05-01,5\n")
	fresh.requireRefused(fresh.Job(plainJob+"columns:\n  amout: DECIMAL(12,2)\n"), "2024-05-01", 2, `columns.amout: column "amout" is not in the source`)
	require.Empty(t, fresh.Trace().Files)
}

// lineOf is the 1-based line of the file that starts with prefix.
func lineOf(t *testing.T, path, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q in %s", prefix, path)
	return 0
}

// Dates written day or month first (01/02/2026: 1 February, or 2
// January?) are no date: in a DATE column (the target's, or declared) they
// are refused by file and line, saying how they are written; undeclared in
// a new column, they are text, as written. The target is unchanged by the
// refusals.
func testDayMonthFirst(t *testing.T, h Harness) {
	e, j := loaded(t, h, plainJob, "id,day,n\n1,2024-05-01,5\n")
	p := e.Write("in/x.csv", "id,day,n\n1,01/05/2024,5\n2,03/04/2024,6\n")
	e.requireRefused(j, "2024-05-01", 1, p+` line 2: column "day": "01/05/2024" is not a date (like 2026-11-28): it is written day or month first, and nothing in the text says which`)
}

// The same in a column that is not the partition's: declared DATE,
// refused; declared VARCHAR or undeclared in a new target, the text loads
// as it is.
func testDayMonthFirstAnyColumn(t *testing.T, h Harness) {
	const merge = `job: born
source:
  files: in/x.csv
strategy: merge
key: [id]
latest_by: updated_at
`
	good := "id,born,updated_at\n1,,2024-05-01 10:00:00\n"
	bad := "id,born,updated_at\n1,01/02/1990,2024-05-02 10:00:00\n2,03/04/1991,2024-05-02 10:00:00\n"
	// Subtests: on MySQL a test's targets share a schema.
	for name, declared := range map[string]string{"varchar": "columns:\n  born: VARCHAR\n", "undeclared": ""} {
		t.Run(name, func(t *testing.T) {
			e, j := loaded(t, h, merge+declared, good)
			e.Write("in/x.csv", bad)
			e.MustRun(j, "2024-05-02")
			require.Equal(t, []string{"1|01/02/1990", "2|03/04/1991"}, e.Rows("", "id", "born"))
		})
	}
	t.Run("date", func(t *testing.T) {
		f, _ := loaded(t, h, merge+"columns:\n  born: DATE\n", good)
		p := f.Write("in/x.csv", bad)
		f.requireRefused(f.Job(merge+"columns:\n  born: DATE\n"), "2024-05-03", 1, p+` line 2: column "born": "01/02/1990" is not a date (like 2026-11-28): it is written day or month first`)
	})
}

// NULL, null and \N in a CSV field are text, as DuckDB's reader reads them;
// only an empty field is NULL. (MySQL's LOAD DATA reads an unquoted NULL
// as NULL: a file holding one goes through the reader there.)
func testWordNULL(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.csv", "id,day,name\n1,2024-05-01,NULL\n2,2024-05-01,null\n3,2024-05-01,\"NULL\"\n4,2024-05-01,\n5,2024-05-01,\\N\n")
	j := e.Job(plainJob)
	e.MustRun(j, "2024-05-01")
	require.Equal(t, []string{"1|NULL", "2|null", "3|NULL", `5|\N`}, e.Rows(`"name" IS NOT NULL`, "id", "name"))
	require.Equal(t, int64(1), e.Checksum(`"name" IS NULL`).Rows)
}
