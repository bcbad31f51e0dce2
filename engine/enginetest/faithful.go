package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// faithfulCases: what reaches the target is what the input says, whatever
// the host, the reader's sample or the target path (issue 7, sections 4, 5
// and 8).
var faithfulCases = []testCase{
	{"TargetNotADatabase", testTargetNotADatabase},
	{"OffsetRowEarlyOrLateSameTable", testOffsetEarlyOrLate},
	{"OffsetInTimestampColumnRefused", testOffsetRefused},
	{"ZonedTimestampsReadStrictly", testZonedStrict},
	{"TimestampTZIndependentOfHostTZ", testHostTZ},
	{"TimestampIndependentOfHostTZ", testHostTZWallClock},
	{"BigIntegerKeysKeepIdentity", testBigKeys},
	{"BigIntegersKeepEveryDigit", testBigIntegers},
	{"LateTimeOfDayKept", testLateTime},
	{"LeadingZerosPastTheSampleKept", testLeadingZeros},
	{"FractionsPastTheSampleKept", testLateFractions},
	{"SubMicrosecondsDropped", testSubMicro},
	{"FloatKeyRefused", testFloatKeyRefused},
}

// A DuckDB target path naming an existing file that is not a DuckDB
// database (DuckDB would open a .csv as an in-memory database with a view
// over it) or a directory is refused as a usage error, and the file is
// never modified.
func testTargetNotADatabase(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	if !strings.HasPrefix(e.URL, "duckdb:") {
		t.Skip("about DuckDB target files")
	}
	const precious = "id,day\n1,2026-11-28\n"
	csvPath := e.Write("precious.csv", precious)
	require.NoError(t, os.Mkdir(filepath.Join(e.Dir, "adir"), 0o755))
	e.Write("in/x.csv", "id,day\n1,2026-11-28\n")
	for _, target := range []string{"precious.csv", "adir"} {
		jobPath := e.Write("job_"+target+".yaml", `idem: 1
job: not_a_db
target:
  url: duckdb:`+target+`
  table: t
source:
  files: in/x.csv
strategy: partition
partition:
  column: day
`)
		for range 2 {
			code, stdout, stderr := RunBinary(t, nil, "run", jobPath, "--date", "2026-11-28")
			require.Equal(t, 2, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.NotContains(t, stdout, "loaded")
			require.Contains(t, stderr, "duckdb:"+target+": ")
			require.Contains(t, stderr, "not a DuckDB database")
		}
		j, err := job.Load(jobPath)
		require.NoError(t, err)
		_, err = idem.Run(context.Background(), j, idem.Options{Date: "2026-11-28", AsOf: e.Now})
		require.ErrorIs(t, err, idem.ErrTarget)
	}
	got, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	require.Equal(t, precious, string(got), "the file is untouched")
	entries, err := os.ReadDir(e.Dir)
	require.NoError(t, err)
	for _, en := range entries {
		require.False(t, strings.HasPrefix(en.Name(), "precious.csv."), "no %s beside it", en.Name())
	}
	adir, err := os.ReadDir(filepath.Join(e.Dir, "adir"))
	require.NoError(t, err)
	require.Empty(t, adir)
}

// beyondSample is more data rows than DuckDB's type sniffer samples
// (20480), so a value placed last is one it never sees.
const beyondSample = 25000

// offsetFile is beyondSample zoneless rows on 2026-01-02 and one row whose
// value carries an offset (2026-01-02 01:30 in UTC, 2026-01-01 as
// written), first or last.
func offsetFile(last bool) string {
	var b strings.Builder
	b.WriteString("id,ts\n")
	offset := "0,2026-01-01T20:30:00-05:00\n"
	if !last {
		b.WriteString(offset)
	}
	for i := 1; i <= beyondSample; i++ {
		fmt.Fprintf(&b, "%d,2026-01-02 %02d:%02d:%02d\n", i, i%24, i%60, (i/60)%60)
	}
	if last {
		b.WriteString(offset)
	}
	return b.String()
}

const offsetJob = `job: offsets
source:
  files: in/e.csv
strategy: partition
partition:
  column: ts
key: [id]
`

// Where the row with an offset sits in the file does not change the table:
// its instant is kept, and it lands in the UTC day of that instant.
func testOffsetEarlyOrLate(t *testing.T, h Harness) {
	var sums []string
	for _, last := range []bool{false, true} {
		e := NewEnv(t, h)
		e.Write("in/e.csv", offsetFile(last))
		r := e.MustRun(e.Job(offsetJob), "2026-01-02")
		require.Equal(t, int64(beyondSample+1), r.RowCount, "last=%v", last)
		require.Equal(t, int64(0), r.RowsOutOfWindow, "last=%v", last)
		require.Equal(t, []string{"2026-01-02 01:30:00"}, e.Rows("id = 0", "ts"), "last=%v: the instant, in UTC", last)
		sums = append(sums, r.Checksum)
	}
	require.Equal(t, sums[0], sums[1], "the same table whether the offset row is first or last")
}

// A column declared TIMESTAMP (without time zone) cannot keep an offset:
// the value is refused with its file and line, and the target keeps its
// rows. Beyond the sample, in CSV and in JSON Lines.
func testOffsetRefused(t *testing.T, h Harness) {
	for _, format := range []string{"csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			e := NewEnv(t, h)
			good := offsetFile(true)
			good = good[:strings.LastIndex(strings.TrimSuffix(good, "\n"), "\n")+1] // without the offset row
			file := "in/e." + format
			write := func(csvText string) {
				if format == "csv" {
					e.Write(file, csvText)
					return
				}
				var b strings.Builder
				for _, line := range strings.Split(strings.TrimSpace(csvText), "\n")[1:] {
					id, ts, _ := strings.Cut(line, ",")
					fmt.Fprintf(&b, "{\"id\":%s,\"ts\":%q}\n", id, ts)
				}
				e.Write(file, b.String())
			}
			write(good)
			j := e.Job(strings.Replace(offsetJob, "in/e.csv", file, 1) + "columns:\n  ts: TIMESTAMP\n")
			e.MustRun(j, "2026-01-02")
			before := e.Checksum("")

			bads := []string{"2026-01-02T20:30:00-05:00", "2026-01-02 10:00:00Z", "2026-01-02 10:00:00+01"}
			if testing.Short() && format != "csv" { // -short: every spelling in CSV, one in JSON Lines
				bads = bads[:1]
			}
			for _, bad := range bads {
				write(good + "99999," + bad + "\n")
				r, err := e.Run(j, "2026-01-02")
				require.Error(t, err, bad)
				require.Equal(t, runner.ActionFailed, r.Action)
				var ie *runner.InputError
				require.ErrorAs(t, err, &ie, bad)
				line := beyondSample + 2 // the header (CSV) and the good rows come first
				if format == "jsonl" {
					line = beyondSample + 1
				}
				require.Contains(t, err.Error(), fmt.Sprintf("%s line %d:", filepath.Join(e.Dir, file), line))
				require.Contains(t, err.Error(), fmt.Sprintf("%q", bad))
				require.Contains(t, err.Error(), "TIMESTAMPTZ")
				require.Equal(t, before, e.Checksum(""), "the target keeps its rows")
			}
		})
	}
}

// A TIMESTAMPTZ column's partition does not depend on the host's time zone:
// the binary run under three TZ settings writes the same rows, with the
// same run id. Zoneless values are UTC.
func testHostTZ(t *testing.T, h Harness) {
	const input = "id,ts\n" +
		"1,2026-01-01 23:30:00\n" + // 2026-01-01 in UTC; 01-02 in UTC if read in New York
		"2,2026-01-01T20:30:00-05:00\n" + // 2026-01-02 01:30 UTC wherever it is read
		"3,2026-01-02 00:30:00\n" + // 2026-01-02 in UTC; 01-01 in UTC if read in Tokyo
		"4,2026-01-02 12:00:00\n"
	for _, declared := range []bool{true, false} {
		body := offsetJob
		if declared {
			body += "columns:\n  ts: TIMESTAMPTZ\n"
		}
		var first map[string]any
		for _, tz := range []string{"UTC", "America/New_York", "Asia/Tokyo"} {
			e := NewEnv(t, h)
			e.Write("in/e.csv", input)
			j := e.Job(body)
			code, stdout, stderr := RunBinary(t, []string{"TZ=" + tz}, "run", j.Path, "--date", "2026-01-02", "--as-of", "2026-02-01T00:00:00Z", "--json")
			require.Equal(t, 0, code, "TZ=%s: %s", tz, stderr)
			var res map[string]any
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			require.Equal(t, float64(3), res["row_count"], "TZ=%s declared=%v", tz, declared)
			require.Equal(t, []string{"2", "3", "4"}, e.Rows("", "id"), "TZ=%s", tz)
			if first == nil {
				first = res
				continue
			}
			for _, k := range []string{"run_id", "checksum", "rows_out_of_window"} {
				require.Equal(t, first[k], res[k], "TZ=%s: %s", tz, k)
			}
		}
	}
}

// A wall-clock TIMESTAMP column's partitions do not depend on the host's
// time zone either, in a first load and in a rerun that replaces the
// partition (on ClickHouse a mutation, which a session's time zone does not
// reach, deleted the wrong day's rows under TZ=Pacific/Kiritimati).
func testHostTZWallClock(t *testing.T, h Harness) {
	const first = "id,ts\n1,2026-01-01 23:30:00\n3,2026-01-02 00:30:00\n4,2026-01-02 18:00:00\n5,2026-01-03 03:00:00\n"
	const second = "id,ts\n3,2026-01-02 01:30:00\n6,2026-01-02 23:00:00\n"
	for _, tz := range []string{"UTC", "Pacific/Kiritimati", "America/Los_Angeles"} {
		// A subtest each: on MySQL a test's targets share its schemas.
		t.Run(tz, func(t *testing.T) {
			e := NewEnv(t, h)
			j := e.Job(offsetJob + "columns:\n  ts: TIMESTAMP\n")
			for _, c := range []struct {
				input, date string
				want        []string
			}{
				{first, "2026-01-02", []string{"3", "4"}},
				{first, "2026-01-03", []string{"3", "4", "5"}},
				{second, "2026-01-02", []string{"3", "5", "6"}},
			} {
				e.Write("in/e.csv", c.input)
				code, _, stderr := RunBinary(t, []string{"TZ=" + tz}, "run", j.Path, "--date", c.date, "--as-of", "2026-02-01T00:00:00Z")
				require.Equal(t, 0, code, "TZ=%s: %s", tz, stderr)
				require.Equal(t, c.want, e.Rows("", "id"), "TZ=%s, after --date %s", tz, c.date)
			}
		})
	}
}

// Keys and versions of 20 digits overflow BIGINT; read as DOUBLE they
// would round to one value. They keep their identity, in CSV and JSON
// Lines: three keys are three rows, and the newer of two versions that
// differ in the last digit wins.
func testBigKeys(t *testing.T, h Harness) {
	rows := [][3]string{
		{"12345678901234567890", "98765432109876543210", "a_old"},
		{"12345678901234567890", "98765432109876543211", "z_new"},
		{"12345678901234567891", "98765432109876543210", "b"},
		{"12345678901234567892", "98765432109876543210", "c"},
	}
	for _, format := range []string{"csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			e := NewEnv(t, h)
			lines := make([][]string, len(rows))
			for i, r := range rows {
				lines[i] = []string{r[0], r[1], strconv.Quote(r[2]), `"2026-11-28"`}
			}
			e.Write("in/k."+format, numberRows(format, []string{"id", "ver", "status", "day"}, lines))
			j := e.Job(dayJob("bigkeys", "in/k."+format, "key: [id]\nlatest_by: ver\n"))
			r := e.MustRun(j, "2026-11-28")
			require.Equal(t, int64(4), r.RowsIn)
			require.Equal(t, int64(1), r.RowsDeduped, "only the two versions of one key")
			require.Equal(t, int64(3), r.RowCount)
			require.Equal(t, []string{
				"12345678901234567890|98765432109876543211|z_new",
				"12345678901234567891|98765432109876543210|b",
				"12345678901234567892|98765432109876543210|c",
			}, e.Rows("", "id", "ver", "status"))
		})
	}
}

// A key that is not integer text is never used as floating point: the run
// is refused as a job error that says what to declare, and nothing is
// written. So is a key a query types DOUBLE.
func testFloatKeyRefused(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/k.csv", "id,day\n1.5,2026-11-28\n2.5,2026-11-28\n")
	j := e.Job(`job: floatkey
source:
  files: in/k.csv
strategy: partition
partition:
  column: day
columns:
  day: DATE
key: [id]
`)
	_, err := e.Run(j, "2026-11-28")
	var je *job.Error
	require.ErrorAs(t, err, &je)
	require.Contains(t, err.Error(), `key[0]: column "id" is read as`)
	require.Contains(t, err.Error(), "must not be floating point")
	require.Contains(t, err.Error(), "under columns:")
	require.Equal(t, 0, e.LedgerRows("floatkey", "2026-11-28", ""))

	e.Exec(`CREATE TABLE raw_k (id DOUBLE PRECISION, day DATE)`, `INSERT INTO raw_k VALUES (1, DATE '2026-11-28')`)
	q := e.Job(`job: floatquery
source:
  query: SELECT id, day FROM raw_k
strategy: partition
partition:
  column: day
key: [id]
`)
	_, err = e.Run(q, "2026-11-28")
	require.ErrorAs(t, err, &je)
	require.Contains(t, err.Error(), `key[0]: column "id" is read as`)
	require.Contains(t, err.Error(), "source.query")
}

// A TIMESTAMPTZ column (declared, or typed so from its offsets) is read
// strictly: a value that is not a date and time with an offset is refused
// by file and line, whether in the sniffer's sample or far after it, in
// CSV and JSON Lines, where DuckDB's reader would make it NULL; so is a
// value naming its zone (CET, Europe/Paris), after which DuckDB's reader
// takes the zoneless values in that zone. UTC, GMT and Z name the zone
// zoneless values are read in, and load; an empty field is NULL. The
// target is unchanged by every refusal.
func testZonedStrict(t *testing.T, h Harness) {
	const body = `job: zoned
source:
  files: in/x.csv
strategy: partition
partition:
  column: day
`
	good := "id,day,ts\n1,2024-05-01,2024-05-01 10:00:00+01\n"
	rows := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d,2024-05-01,2024-05-01 10:00:00+01\n", i+10)
		}
		return b.String()
	}
	// An offset after a space makes the sniffer read the column as text,
	// which an engine then casts as it can (ClickHouse reads it right): it
	// is tried in a declared column only.
	bads := []struct{ name, text, line, value, what string }{
		{"bad in sample", good + "2,2024-05-01,soon\n", "3", "soon", "is not a date"},
		{"bad past sample", good + rows(beyondSample) + "2,2024-05-01,soon\n", fmt.Sprint(beyondSample + 3), "soon", "is not a date"},
		{"offset after a space", good + "2,2024-05-01,2024-05-01 10:00:00 -00:30\n", "3", "2024-05-01 10:00:00 -00:30", "is not a date"},
		{"zone name", good + "2,2024-05-01,2024-05-01 10:00:00 CET\n3,2024-05-01,2024-05-01 10:00:00\n", "3", "2024-05-01 10:00:00 CET", "names its time zone"},
		{"IANA zone name past sample", good + rows(beyondSample) + "2,2024-05-01,2024-05-01 10:00:00 Europe/Paris\n", fmt.Sprint(beyondSample + 3), "2024-05-01 10:00:00 Europe/Paris", "names its time zone"},
	}
	for _, declared := range []bool{false, true} {
		b := body
		if declared {
			b += "columns:\n  ts: TIMESTAMPTZ\n"
		}
		e, j := loaded(t, h, b, good)
		for _, c := range bads {
			if testing.Short() && c.name != "bad past sample" && c.name != "zone name" {
				continue // -short: one of each kind
			}
			if !declared && c.name == "offset after a space" {
				continue
			}
			p := e.Write("in/x.csv", c.text)
			e.requireRefused(j, "2024-05-01", 1, fmt.Sprintf("%s line %s: column \"ts\": %q %s", p, c.line, c.value, c.what))
		}
		e.Write("in/x.csv", good+"2,2024-05-01,2024-05-01 10:00:00 UTC\n3,2024-05-01,2024-05-01 10:00:00Z\n4,2024-05-01,\n5,2024-05-01,2024-05-01 10:00:00\n6,2024-05-01,2024-05-01 10:00:00 GMT\n")
		e.MustRun(j, "2024-05-01")
		require.Equal(t, 6, len(e.Rows("", "id")), "an empty field is NULL, the rest load")
		n := e.Checksum(`"ts" IS NULL`)
		require.Equal(t, int64(1), n.Rows, "only the empty field is NULL")
	}

	// JSON Lines, declared: a value that is no instant is refused by line.
	e := NewEnv(t, h)
	e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","ts":"2024-05-01 10:00:00+01"}`+"\n")
	j := e.Job(strings.Replace(body, "in/x.csv", "in/x.jsonl", 1) + "columns:\n  ts: TIMESTAMPTZ\n")
	e.MustRun(j, "2024-05-01")
	p := e.Write("in/x.jsonl", `{"id":1,"day":"2024-05-01","ts":"2024-05-01 10:00:00+01"}`+"\n"+`{"id":2,"day":"2024-05-01","ts":"2024-05-01 10:00:00 CET"}`+"\n")
	e.requireRefused(j, "2024-05-01", 1, p+` line 2: column "ts": "2024-05-01 10:00:00 CET" names its time zone`)
}

// Integers too large for BIGINT in a column that is not a key are kept
// exactly too, where a reader would make them DOUBLE (15 to 17 digits):
// DECIMAL(38,0) when every value is an integer of at most 38 digits;
// beyond, refused (in a new column, and in the target's DECIMAL(38,0)). A
// column with fractions stays floating point.
func testBigIntegers(t *testing.T, h Harness) {
	for _, format := range []string{"csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			e := NewEnv(t, h)
			e.Write("in/k."+format, numberRows(format, []string{"id", "acct", "f", "day"}, [][]string{
				{"1", "98765432109876543210", "2.5", `"2026-11-28"`}, {"2", "-12345678901234567890123", "1", `"2026-11-28"`}}))
			j := e.Job(dayJob("bigints", "in/k."+format, ""))
			e.MustRun(j, "2026-11-28")
			require.Equal(t, []string{"1|98765432109876543210", "2|-12345678901234567890123"}, e.Rows("", "id", "acct"))
			if format == "csv" {
				p := e.Write("in/k.csv", "id,acct,f,day\n1,123456789012345678901234567890123456789012,2.5,2026-11-28\n")
				e.requireRefused(j, "2026-11-28", 1, p+` line 2: column "acct": "123456789012345678901234567890123456789012" has more than 38 digits before the point (DECIMAL(38,0))`)

			}
		})
	}
	t.Run("fresh", func(t *testing.T) { // its own test: on MySQL a test's targets share a schema
		fresh := NewEnv(t, h)
		p := fresh.Write("in/k.csv", "id,acct,f,day\n1,123456789012345678901234567890123456789012,2.5,2026-11-28\n")
		fresh.requireRefused(fresh.Job(dayJob("bigints", "in/k.csv", "")), "2026-11-28", 1, p+` line 2: column "acct": "123456789012345678901234567890123456789012" is an integer of 42 digits`)
	})
}

// A column of dates in the sniffer's sample with a time of day in a value
// after it is read as TIMESTAMP, keeping the time a DATE would drop; with
// an offset, as TIMESTAMPTZ.
func testLateTime(t *testing.T, h Harness) {
	lasts := []string{"2026-11-28 10:00:00", "2026-11-28T10:00:00+01:00"}
	if testing.Short() {
		lasts = lasts[1:] // -short: the offset, which passes through both upgrades
	}
	for _, last := range lasts {
		t.Run(last, func(t *testing.T) { // on MySQL a test's targets share a schema
			e := NewEnv(t, h)
			var b strings.Builder
			b.WriteString("id,day,d\n")
			for i := range beyondSample {
				fmt.Fprintf(&b, "%d,2026-11-28,2026-11-28\n", i)
			}
			fmt.Fprintf(&b, "%d,2026-11-28,%s\n", beyondSample, last)
			e.Write("in/x.csv", b.String())
			e.MustRun(e.Job(plainJob), "2026-11-28")
			require.Equal(t, int64(beyondSample), e.Checksum(`"d" = '2026-11-28 00:00:00'`).Rows, last)
			require.Equal(t, int64(0), e.Checksum(`"d" IS NULL`).Rows, last)
			require.Equal(t, int64(1), e.Checksum(`"d" > '2026-11-28 00:00:00'`).Rows, "the time of day is kept: %s", last)
		})
	}
}

// A value DuckDB's sniffer does not take for a number (a leading zero,
// 02134, 007.25, or a plus sign, +5) makes its column text when it lies in
// the sample; past the sample, the reader would cast it to the sampled
// number type and drop the zero without a word. The column is text
// wherever such a value lies: the same table whatever the row order, and
// every zero kept.
func testLeadingZeros(t *testing.T, h Harness) {
	body := func(lateFirst bool) string {
		var b strings.Builder
		b.WriteString("id,day,zip,qty,amount\n")
		odd := fmt.Sprintf("%d,2026-11-28,02134,+5,007.25\n", beyondSample)
		if lateFirst {
			b.WriteString(odd)
		}
		for i := range beyondSample {
			fmt.Fprintf(&b, "%d,2026-11-28,%d,%d,%d.50\n", i, 10000+i, i, i)
		}
		if !lateFirst {
			b.WriteString(odd)
		}
		return b.String()
	}
	var sums []Sum
	for _, lateFirst := range []bool{true, false} {
		e := NewEnv(t, h)
		e.Write("in/x.csv", body(lateFirst))
		r := e.MustRun(e.Job(plainJob), "2026-11-28")
		require.Equal(t, int64(beyondSample+1), r.RowCount)
		for _, where := range []string{`"zip" LIKE '0%'`, `"qty" LIKE '+%'`, `"amount" LIKE '00%'`} {
			require.Equal(t, int64(1), e.Checksum(where).Rows, "%s, the odd row first: %v", where, lateFirst)
		}
		sums = append(sums, e.Checksum(""))
	}
	require.Equal(t, sums[0], sums[1], "the same table whatever the row order")
}

// A value with a fraction (5.7) in a column whose sampled values are all
// integers makes it floating point, as it does in the sample; past the
// sample, the readers would round it into the sampled integer type (6)
// without a word. The same table whatever the row order, in CSV and JSON
// Lines; a second file is past the sample too.
func testLateFractions(t *testing.T, h Harness) {
	for _, format := range []string{"csv", "jsonl"} {
		row := func(id int, n string) string {
			if format == "csv" {
				return fmt.Sprintf("%d,2026-11-28,%s\n", id, n)
			}
			return fmt.Sprintf(`{"id":%d,"day":"2026-11-28","n":%s}`+"\n", id, n)
		}
		header := ""
		if format == "csv" {
			header = "id,day,n\n"
		}
		rows := func(lo, hi int) string {
			var b strings.Builder
			for i := lo; i < hi; i++ {
				b.WriteString(row(i, strconv.Itoa(i)))
			}
			return b.String()
		}
		odd := row(999999, "5.7")
		var sums []Sum
		for _, files := range [][]string{
			{header + odd + rows(0, beyondSample)},
			{header + rows(0, beyondSample) + odd},
			{header + rows(0, 10), header + odd},
		} {
			e := NewEnv(t, h)
			for i, f := range files {
				e.Write(fmt.Sprintf("in/x%d.%s", i, format), f)
			}
			e.MustRun(e.Job(strings.Replace(plainJob, "files: in/x.csv", "files: in/*."+format, 1)), "2026-11-28")
			require.Equal(t, int64(1), e.Checksum(`"n" > 5.6 AND "n" < 5.8`).Rows, "%s: 5.7 is kept: %.40q", format, files[len(files)-1])
			if len(files) == 1 {
				sums = append(sums, e.Checksum(""))
			}
		}
		require.Equal(t, sums[0], sums[1], "%s: the same table whatever the row order", format)
	}
}

// Digits of a second past the microsecond are dropped, as every reader but
// PostgreSQL's drops them (which rounds: its COPY is not used for such a
// file): 23:59:59.9999999 stays in its day.
func testSubMicro(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.csv", "id,day,ts\n1,2026-11-28,2026-11-28 23:59:59.9999999\n2,2026-11-28,2026-11-28 10:00:00.1234564\n")
	j := e.Job(strings.Replace(plainJob, "column: day", "column: ts", 1))
	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(2), r.RowCount)
	require.Equal(t, int64(0), r.RowsOutOfWindow)
	require.Equal(t, int64(1), e.Checksum(`"ts" > '2026-11-28 23:59:59.999998' AND "ts" < '2026-11-29 00:00:00'`).Rows)
	require.Equal(t, int64(1), e.Checksum(`"ts" > '2026-11-28 10:00:00.123455' AND "ts" < '2026-11-28 10:00:00.123457'`).Rows)
}

// numberRows renders rows of JSON literals (numbers as they are, strings
// quoted) as CSV (the quotes dropped) or as JSON Lines, whose numbers a
// reader then types as JSON numbers.
func numberRows(format string, header []string, rows [][]string) string {
	var b strings.Builder
	if format == "csv" {
		b.WriteString(strings.Join(header, ",") + "\n")
	}
	for _, r := range rows {
		if format == "csv" {
			vals := make([]string, len(r))
			for i, v := range r {
				vals[i] = strings.Trim(v, `"`)
			}
			b.WriteString(strings.Join(vals, ",") + "\n")
			continue
		}
		fields := make([]string, len(r))
		for i, v := range r {
			fields[i] = strconv.Quote(header[i]) + ":" + v
		}
		b.WriteString("{" + strings.Join(fields, ",") + "}\n")
	}
	return b.String()
}

// dayJob is a partition job over file, by its DATE column day, with more
// of the job file after.
func dayJob(name, file, more string) string {
	return "job: " + name + "\nsource:\n  files: " + file + "\nstrategy: partition\npartition:\n  column: day\ncolumns:\n  day: DATE\n" + more
}
