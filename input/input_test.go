package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// write writes files under a temporary folder and returns their paths.
func write(t *testing.T, files ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		require.NoError(t, os.WriteFile(p, []byte(files[i+1]), 0o644))
		paths = append(paths, p)
	}
	return paths
}

// readAll scans and reads spec, returning each column's type and every
// row as text ("NULL" for NULL), values joined by |.
func readAll(t *testing.T, spec Spec) (map[string]string, []string, error) {
	t.Helper()
	in, err := Scan(context.Background(), spec)
	if err != nil {
		return nil, nil, err
	}
	types := map[string]string{}
	for _, c := range in.Columns {
		types[c.Name] = c.Type.String()
	}
	r := in.Read(context.Background())
	defer r.Close()
	var rows []string
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return types, rows, err
		}
		for i := 0; i < b.Len; i++ {
			vals := make([]string, len(b.Cols))
			for j, v := range b.Cols {
				s, ok := v.Text(i)
				if !ok {
					s = "NULL"
				}
				vals[j] = s
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
	}
	require.Equal(t, in.Rows, int64(len(rows)))
	return types, rows, nil
}

func csvSpec(t *testing.T, text string) Spec {
	return Spec{Paths: write(t, "x.csv", text), Format: "csv"}
}

func TestCSVInference(t *testing.T) {
	cases := []struct {
		name, text string
		types      map[string]string
		rows       []string
	}{
		{"kinds", "id,day,amount,name,flag,ts,tsz\n1,2026-11-28,1.5,a,true,2026-11-28 10:00:00,2026-11-28T10:00:00+01:00\n2,2026-11-29,2,b,FALSE,2026-11-28,2026-11-28 10:00:00\n",
			map[string]string{"id": "BIGINT", "day": "DATE", "amount": "DOUBLE", "name": "VARCHAR", "flag": "BOOLEAN", "ts": "TIMESTAMP", "tsz": "TIMESTAMPTZ"},
			[]string{"1|2026-11-28|1.5|a|true|2026-11-28 10:00:00|2026-11-28 09:00:00", "2|2026-11-29|2|b|false|2026-11-28 00:00:00|2026-11-28 10:00:00"}},
		{"codes and signs are text", "zip,qty,amount\n02134,+5,007.25\n10000,5,7.25\n",
			map[string]string{"zip": "VARCHAR", "qty": "VARCHAR", "amount": "VARCHAR"}, []string{"02134|+5|007.25", "10000|5|7.25"}},
		{"a fraction makes a double", "n\n1\n2\n5.7\n", map[string]string{"n": "DOUBLE"}, []string{"1", "2", "5.7"}},
		{"digits a double would lose make a decimal", "n\n1.5\n1.23456789012345678\n",
			map[string]string{"n": "DECIMAL(38,17)"}, []string{"1.50000000000000000", "1.23456789012345678"}},
		{"integers past bigint", "n\n1\n98765432109876543210\n-12345678901234567890123\n",
			map[string]string{"n": "DECIMAL(38,0)"}, []string{"1", "98765432109876543210", "-12345678901234567890123"}},
		{"big integer and a fraction", "n\n9007199254740993\n1.5\n", map[string]string{"n": "DECIMAL(38,1)"}, []string{"9007199254740993.0", "1.5"}},
		{"empty and NULL", "a,b,c\n,\"\",NULL\n1,x,\"\"\n", map[string]string{"a": "BIGINT", "b": "VARCHAR", "c": "VARCHAR"},
			[]string{"NULL||NULL", "1|x|"}},
		{"quoted numbers are numbers", "a,b\n\"5\",\"\"\n6,7\n", map[string]string{"a": "BIGINT", "b": "BIGINT"}, []string{"5|NULL", "6|7"}},
		{"quotes doubled, delimiters and lines inside", "a,b\n\"x\"\"y\",\"1,2\nz\"\n", map[string]string{"a": "VARCHAR", "b": "VARCHAR"},
			[]string{"x\"y|1,2\nz"}},
		{"spaces are text", "a,b\n 5,2026-11-28 \n6,2026-11-29\n", map[string]string{"a": "VARCHAR", "b": "VARCHAR"}, []string{" 5|2026-11-28 ", "6|2026-11-29"}},
		{"semicolons", "a;b\n1;x,y\n", map[string]string{"a": "BIGINT", "b": "VARCHAR"}, []string{"1|x,y"}},
		{"bom, crlf, lf and blank lines", "\ufeffa,b\r\n1,x\r\n\n2,y\n\r\n3,z", map[string]string{"a": "BIGINT", "b": "VARCHAR"}, []string{"1|x", "2|y", "3|z"}},
		{"all null", "a,b\n1,\n2,\n", map[string]string{"a": "BIGINT", "b": "VARCHAR"}, []string{"1|NULL", "2|NULL"}},
		{"day-first dates are text", "d\n01/02/2026\n03/04/2026\n", map[string]string{"d": "VARCHAR"}, []string{"01/02/2026", "03/04/2026"}},
		{"sub-microseconds dropped", "ts\n2026-11-28 23:59:59.9999999\n", map[string]string{"ts": "TIMESTAMP"}, []string{"2026-11-28 23:59:59.999999"}},
		{"utc and gmt", "ts\n2026-11-28 10:00:00 UTC\n2026-11-28 10:00:00 GMT\n2026-11-28 10:00:00Z\n2026-11-28 10:00:00+0130\n", map[string]string{"ts": "TIMESTAMPTZ"},
			[]string{"2026-11-28 10:00:00", "2026-11-28 10:00:00", "2026-11-28 10:00:00", "2026-11-28 08:30:00"}},
		{"the word NULL and backslash N", "a\nNULL\nnull\n\\N\n", map[string]string{"a": "VARCHAR"}, []string{"NULL", "null", `\N`}},
		{"inf is text", "a\n1.5\ninf\n", map[string]string{"a": "VARCHAR"}, []string{"1.5", "inf"}},
		{"negative zero", "a\n-0\n-0.0\n", map[string]string{"a": "DOUBLE"}, []string{"0", "0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			types, rows, err := readAll(t, csvSpec(t, c.text))
			require.NoError(t, err)
			require.Equal(t, c.types, types)
			require.Equal(t, c.rows, rows)
		})
	}
}

func TestCSVRefused(t *testing.T) {
	cases := []struct {
		name, text string
		types      map[string]Type
		want       string
	}{
		{"space before a quote", "a,b,c\n1, \"a\",5\n", nil, `line 2: field 2 has a space before its opening quote`},
		{"quote inside a field", "a,b\n1,5\" pipe\n", nil, `line 2: field 2 holds a quote but does not start with one`},
		{"text after a closing quote", "a,b\n1,\"x\"y\n", nil, `line 2: field 2 has text after its closing quote`},
		{"quote never closed", "a,b\n1,2\n3,\"x\n4,5\n", nil, `line 3: a quoted field opened on this line is never closed`},
		{"too few fields", "a,b\n1,2\n3\n", nil, `line 3: expected 2 fields, as the header has, found 1`},
		{"trailing delimiter", "a,b\n1,2,\n", nil, `line 2: expected 2 fields, as the header has, found 3`},
		{"bare carriage return", "a,b\n1,x\ry\n", nil, `line 2: field 2 holds a carriage return that does not end a line`},
		{"invalid utf-8", "id,name\n1,ok\n2,caf\xe9\n", nil, `line 3: column "name": "caf\xe9" is not valid UTF-8 (byte 0xe9 at offset 3)`},
		{"nul byte", "id,name\n1,a\x00b\n", nil, `line 2: column "name": "a\x00b" holds a NUL byte`},
		{"header name twice", "a,A\n1,2\n", nil, `line 1: the header names column "A" twice`},
		{"empty header name", "a,,b\n1,2,3\n", nil, `line 1: field 2 of the header is empty`},
		{"sep line", "sep=;\na;b\n", nil, `line 1: "sep=;" is a spreadsheet's delimiter line`},
		{"huge integer", "id,acct\n1,123456789012345678901234567890123456789012\n", nil, `line 2: column "acct": "123456789012345678901234567890123456789012" is an integer of 42 digits`},
		{"beyond a double", "x\n2.5\n-1.5e400\n", nil, `line 3: column "x": "-1.5e400" is beyond the range of a DOUBLE`},
		{"underflow", "x\n2.5\n1e-400\n", nil, `line 3: column "x": "1e-400" is beyond the range of a DOUBLE (it would be stored as 0)`},
		{"declared integer out of range", "id,n\n1,5\n2,3000000000\n", map[string]Type{"n": {Kind: Int, Bits: 32}}, `line 3: column "n": "3000000000" is out of range for a 32-bit integer`},
		{"declared timestamp with an offset", "ts\n2026-01-02 10:00:00Z\n", map[string]Type{"ts": TimestampType}, `line 2: column "ts": "2026-01-02 10:00:00Z" has a UTC offset, which a TIMESTAMP column would drop: declare the column TIMESTAMPTZ`},
		{"declared timestamptz with a zone name", "ts\n2024-05-01 10:00:00 CET\n", map[string]Type{"ts": TimestampTZType}, `line 2: column "ts": "2024-05-01 10:00:00 CET" names its time zone`},
		{"declared date day first", "d\n01/05/2024\n", map[string]Type{"d": DateType}, `line 2: column "d": "01/05/2024" is not a date (like 2026-11-28): it is written day or month first`},
		{"declared date holding a time", "d\n2024-05-01 10:00\n", map[string]Type{"d": DateType}, `line 2: column "d": "2024-05-01 10:00" is not a date (like 2026-11-28): a DATE column would drop its time of day`},
		{"declared boolean", "b\nY\n", map[string]Type{"b": BoolType}, `line 2: column "b": "Y" is not a boolean (true or false)`},
		{"declared double inexact", "x\n9007199254740993\n", map[string]Type{"x": DoubleType}, `line 2: column "x": "9007199254740993" cannot be held exactly by a DOUBLE (it would read back as 9.007199254740992e+15)`},
		{"declared double infinity", "x\ninf\n", map[string]Type{"x": DoubleType}, `"inf" is not a number: infinity and NaN are not stored`},
		{"declared decimal scale", "x\n1.235\n", map[string]Type{"x": DecimalType(18, 2)}, `"1.235" has more than 2 digits after the point (DECIMAL(18,2))`},
		{"declared decimal precision", "x\n12345.5\n", map[string]Type{"x": DecimalType(5, 2)}, `"12345.5" has more than 3 digits before the point (DECIMAL(5,2))`},
		{"declared varchar length", "x\nabcdé\n", map[string]Type{"x": {Kind: Text, MaxChars: 4}}, `"abcdé" has 5 characters; the column holds at most 4`},
		{"bad date", "id,day\n1,2024-05-01\n2,2024-13-45\n", map[string]Type{"day": DateType}, `line 3: column "day": "2024-13-45" is not a date`},
		{"empty file", "", nil, "is empty (0 bytes)"},
		{"blank lines only", "\n\n", nil, "has no header line: it holds only blank lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := csvSpec(t, c.text)
			spec.Types = c.types
			_, _, err := readAll(t, spec)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			require.Contains(t, err.Error(), spec.Paths[0])
			var e *Error
			require.ErrorAs(t, err, &e)
		})
	}
}

func TestCSVLongName(t *testing.T) {
	long := strings.Repeat("n", 64)
	_, _, err := readAll(t, csvSpec(t, "id,"+long+"\n1,2\n"))
	var ne *NameError
	require.ErrorAs(t, err, &ne)
	require.Contains(t, err.Error(), "is 64 bytes long")
	_, _, err = readAll(t, csvSpec(t, "id,"+long[:63]+"\n1,2\n"))
	require.NoError(t, err)
}

func TestFilesNameTheSameColumns(t *testing.T) {
	paths := write(t, "a.csv", "id,day\n1,x\n", "b.csv", "DAY,id\ny,2\n", "c.csv", "id,other\n3,z\n")
	_, rows, err := readAll(t, Spec{Paths: paths[:2], Format: "csv"})
	require.NoError(t, err)
	require.Equal(t, []string{"1|x", "2|y"}, rows)
	_, _, err = readAll(t, Spec{Paths: paths, Format: "csv"})
	require.ErrorContains(t, err, "c.csv line 1: its header names other columns than a.csv's (more: other; fewer: day)")
}

func TestGzip(t *testing.T) {
	plain := "id,name\n1,a\n2,b\n3,c\n"
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	_, err := z.Write([]byte(strings.Repeat(plain[8:], 1000)))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	whole := "id,name\n" + ""
	_ = whole
	var hb bytes.Buffer
	z = gzip.NewWriter(&hb)
	_, _ = z.Write([]byte("id,name\n" + strings.Repeat("1,a\n2,b\n3,c\n", 1000)))
	require.NoError(t, z.Close())
	gz := hb.Bytes()

	paths := write(t, "good.csv.gz", string(gz), "cut.csv.gz", string(gz[:len(gz)-12]), "damaged.csv.gz", string(append(append([]byte{}, gz[:len(gz)-8]...), 0, 0, 0, 0, 0, 0, 0, 0)), "plain.csv.gz", plain)
	_, rows, err := readAll(t, Spec{Paths: paths[:1], Format: "csv"})
	require.NoError(t, err)
	require.Len(t, rows, 3000)
	for _, p := range paths[1:3] {
		_, _, err := readAll(t, Spec{Paths: []string{p}, Format: "csv"})
		require.ErrorContains(t, err, p+" has gzip data that is cut short or damaged")
	}
	_, _, err = readAll(t, Spec{Paths: paths[3:], Format: "csv"})
	require.ErrorContains(t, err, "is not gzip-compressed, as its name says")
}

func TestLimits(t *testing.T) {
	lim := &Limits{Engine: "ClickHouse", HasDates: true, MinDate: daysFromCivil(1900, 1, 1), MaxDate: daysFromCivil(2299, 12, 31)}
	spec := csvSpec(t, "d\n2026-01-01\n1850-01-01\n")
	spec.Limits = lim
	_, _, err := readAll(t, spec)
	require.ErrorContains(t, err, `line 3: column "d": "1850-01-01" is outside the dates ClickHouse holds (1900-01-01 to 2299-12-31)`)
	spec.Types = map[string]Type{"d": DateType}
	_, _, err = readAll(t, spec)
	require.ErrorContains(t, err, `line 3: column "d": "1850-01-01" is outside the dates ClickHouse holds`)
}

func jsonlSpec(t *testing.T, text string) Spec {
	return Spec{Paths: write(t, "x.jsonl", text), Format: "jsonl"}
}

func TestJSONL(t *testing.T) {
	text := `{"id":1,"day":"2026-11-28","n":5,"obj":{"a":5.70,"b":[1,2e3,12345678901234567890123]},"s":"x"}
{"id":2,"day":"2026-11-29","n":"many","late":true, "s" : "a\"b\u00e9"}

{"id":3,"day":null,"n":7,"obj":[],"s":""}
`
	types, rows, err := readAll(t, jsonlSpec(t, text))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"id": "BIGINT", "day": "DATE", "n": "VARCHAR", "obj": "JSON", "s": "VARCHAR", "late": "BOOLEAN"}, types)
	require.Equal(t, []string{
		`1|2026-11-28|5|{"a":5.70,"b":[1,2e3,12345678901234567890123]}|x|NULL`,
		`2|2026-11-29|many|NULL|a"bé|true`,
		`3|NULL|7|[]||NULL`,
	}, rows)
}

// Lines may give their keys in any order, and leave any out: each value
// goes to its key's column.
func TestJSONLKeysInAnyOrder(t *testing.T) {
	text := `{"a":1,"b":"x","c":true}` + "\n" + `{"b":"y","a":2}` + "\n" + `{"c":false,"a":3,"b":"z"}` + "\n" + `{"a":4,"b":"w","c":true}` + "\n" + `{"d":5,"a":5}` + "\n"
	types, rows, err := readAll(t, jsonlSpec(t, text))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "BIGINT", "b": "VARCHAR", "c": "BOOLEAN", "d": "BIGINT"}, types)
	require.Equal(t, []string{"1|x|true|NULL", "2|y|NULL|NULL", "3|z|false|NULL", "4|w|true|NULL", "5|NULL|NULL|5"}, rows)
}

func TestJSONLRefused(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"not json", "{\"id\":1}\nthis line is not JSON\n", "line 2: not a JSON object: this line is not JSON"},
		{"key twice", `{"id":1,"day":"2024-05-01","id":2}` + "\n", `line 1: the object names key "id" twice`},
		{"keys differing in case", `{"v":1}` + "\n" + `{"V":2}` + "\n", `line 2: key "V" differs only in case from key "v"`},
		{"nested key twice", `{"o":{"a":1,"a":2}}` + "\n", `line 1: a nested object names key "a" twice`},
		{"nul", `{"s":"a\u0000b"}` + "\n", `line 1: a string holds a NUL`},
		{"text after", `{"s":1} x` + "\n", `line 1: not a JSON object (text after the object`},
		{"huge", `{"x":2.5}` + "\n" + `{"x":1E+309}` + "\n", `line 2: column "x": "1E+309" is beyond the range of a DOUBLE`},
		{"key twice after the last line's keys", `{"a":1,"b":2}` + "\n" + `{"a":1,"b":2,"a":3}` + "\n", `line 2: the object names key "a" twice`},
		{"key twice where the last line had another", `{"a":1,"b":2}` + "\n" + `{"a":1,"a":2}` + "\n", `line 2: the object names key "a" twice`},
		{"key twice among many", wideObject(20) + "\n" + wideObject(30, "k3") + "\n", `line 2: the object names key "k3" twice`},
		{"key twice past many", wideObject(20) + "\n" + wideObject(30, "k25") + "\n", `line 2: the object names key "k25" twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := jsonlSpec(t, c.text)
			_, _, err := readAll(t, spec)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			require.Contains(t, err.Error(), spec.Paths[0])
		})
	}
}

// wideObject is an object of keys k0 to k(n-1), then the keys again.
func wideObject(n int, again ...string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	for _, k := range again {
		fmt.Fprintf(&b, `"%s":0,`, k)
	}
	return strings.TrimSuffix(b.String(), ",") + "}"
}

func TestParseType(t *testing.T) {
	for s, want := range map[string]string{"bigint": "BIGINT", "Decimal(12, 2)": "DECIMAL(12,2)", "numeric(38,0)": "DECIMAL(38,0)", "text": "VARCHAR",
		"timestamp with time zone": "TIMESTAMPTZ", "double precision": "DOUBLE", "varchar(10)": "VARCHAR(10)", "JSONB": "JSON"} {
		typ, err := ParseType(s)
		require.NoError(t, err, s)
		require.Equal(t, want, typ.String(), s)
	}
	for _, s := range []string{"NUMERIC", "DECIMAL", "DECIMAL(40,2)", "DECIMAL(5,6)", "INET", "FLOAT", "NOTATYPE"} {
		_, err := ParseType(s)
		require.Error(t, err, s)
	}
}

func TestDatesRoundTrip(t *testing.T) {
	for _, d := range []string{"0001-01-01", "1582-10-04", "1900-02-28", "1969-12-31", "1970-01-01", "2000-02-29", "2026-11-28", "9999-12-31"} {
		days, ok := parseDate([]byte(d))
		require.True(t, ok, d)
		require.Equal(t, d, FormatDate(days))
	}
	for _, bad := range []string{"2026-02-29", "2026-13-01", "0000-01-01", "2026-1-01", "2026-01-32"} {
		_, ok := parseDate([]byte(bad))
		require.False(t, ok, bad)
	}
}

func TestAnyDecimalAndSecondsPrecision(t *testing.T) {
	spec := csvSpec(t, "n,ts\n1.50,2026-01-01 10:00:00\n-1.5e2,2026-01-01 10:00:01.000\n12e-3,\n-0.0,\n")
	spec.Types = map[string]Type{"n": {Kind: Decimal}, "ts": {Kind: Timestamp, Precision: 0}}
	_, rows, err := readAll(t, spec)
	require.NoError(t, err)
	require.Equal(t, []string{"1.50|2026-01-01 10:00:00", "-150|2026-01-01 10:00:01", "0.012|NULL", "0.0|NULL"}, rows)
	spec = csvSpec(t, "ts\n2026-01-01 10:00:00.5\n")
	spec.Types = map[string]Type{"ts": {Kind: Timestamp, Precision: 0}}
	_, _, err = readAll(t, spec)
	require.ErrorContains(t, err, `"2026-01-01 10:00:00.5" has more digits of a second than the column keeps (0)`)
}

func TestReadCancelledIsNoEOF(t *testing.T) {
	var b strings.Builder
	b.WriteString("id\n")
	for i := range 3 * BatchRows {
		b.WriteString(strings.Repeat("1", 1+i%5) + "\n")
	}
	in, err := Scan(context.Background(), csvSpec(t, b.String()))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := in.Read(ctx)
	defer r.Close()
	_, err = r.Next()
	require.NoError(t, err)
	cancel()
	for {
		if _, err = r.Next(); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, context.Canceled)
}

// Names engines cannot keep alike are refused as the job's input (a
// NameError), whatever the format: MariaDB keeps no character beyond
// U+FFFF in a name nor one ending with a blank, PostgreSQL no NUL.
func TestNamesEnginesCannotKeep(t *testing.T) {
	for name, want := range map[string]string{
		"émoji😀":    `holds '😀', a character beyond U+FFFF`,
		"trailing ": "ends with a blank",
		"tab\t":     "ends with a blank",
		"bad\xe9":   "is not valid UTF-8",
	} {
		specs := []Spec{csvSpec(t, "id,\""+name+"x\"\n1,2\n")}
		if !strings.HasSuffix(want, "UTF-8") { // a JSON string that is not UTF-8 is no JSON
			specs = append(specs, jsonlSpec(t, `{"id":1,`+strconv.Quote(name)+`:2}`+"\n"))
		}
		for _, spec := range specs {
			if spec.Format == "csv" && strings.HasSuffix(want, "blank") {
				continue // a CSV header's names are trimmed
			}
			_, _, err := readAll(t, spec)
			var ne *NameError
			require.ErrorAs(t, err, &ne, "%q", name)
			require.ErrorContains(t, err, want)
		}
	}
	_, _, err := readAll(t, jsonlSpec(t, `{"id":1,"Größe ü":2,"\u00e9\u20ac":3}`+"\n"))
	require.NoError(t, err, "every character up to U+FFFF")
}

// A file changed between the two readings is never loaded as it is then:
// its rows would not be the ones checked.
func TestChangedBetweenReadings(t *testing.T) {
	spec := csvSpec(t, "id\n1\n2\n")
	in, err := Scan(context.Background(), spec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(spec.Paths[0], []byte("id\n1\n2\nx\n"), 0o644))
	r := in.Read(context.Background())
	defer r.Close()
	_, err = r.Next()
	require.ErrorIs(t, err, ErrChanged)
}

// Scan hashes the bytes it reads as Fingerprint hashes the files, so a
// caller can tell that the input it named is the input that was read.
func TestScanFingerprint(t *testing.T) {
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	_, _ = z.Write([]byte("id\n1\n"))
	require.NoError(t, z.Close())
	for _, c := range []struct{ name, text, format string }{
		{"a.csv", "id,x\n1,2\n", "csv"}, {"b.csv.gz", gz.String(), "csv"}, {"c.jsonl", `{"a":1}` + "\n", "jsonl"},
	} {
		paths := write(t, c.name, c.text)
		in, err := Scan(context.Background(), Spec{Paths: paths, Format: c.format})
		require.NoError(t, err, c.name)
		want, err := Fingerprint(paths)
		require.NoError(t, err)
		require.Equal(t, want, in.Fingerprint, c.name)
	}
}

// A JSON string's bytes: ASCII and valid UTF-8 (before and after an
// escape) taken as they are; a byte that is not UTF-8, in a value or a
// key, and a raw control character refused, naming the line.
func TestJSONLStringBytes(t *testing.T) {
	_, rows, err := readAll(t, jsonlSpec(t, `{"id":1,"s":"café 😀\"\\ ok"}`+"\n"+`{"id":2,"s":"\u00e9x\té"}`+"\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"1|café 😀\"\\ ok", "2|éx\té"}, rows)
	for text, want := range map[string]string{
		"{\"id\":1,\"s\":\"caf\xe9\"}\n":              "not valid UTF-8",
		"{\"id\":1,\"s\":\"ok\\n\xff\"}\n":            "not valid UTF-8",
		"{\"id\":1,\"s\xc3\":1}\n":                    "not valid UTF-8",
		"{\"id\":1,\"s\":\"a\x01b\"}\n":               "control character",
		"{\"id\":1,\"s\":\"\xe2\x82\"}\n":             "not valid UTF-8",
		"{\"id\":1}\n{\"id\":2,\"s\":\"\xc0\xaf\"}\n": "not valid UTF-8",
	} {
		_, _, err := readAll(t, jsonlSpec(t, text))
		require.ErrorContains(t, err, want, "%q", text)
	}
}
