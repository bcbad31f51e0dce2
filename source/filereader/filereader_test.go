package filereader

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

// testTypes is an engine that stages the reader's types under their own
// names, except nested values, which it stores as JSON text its CSV loader
// cannot read.
type testTypes struct{}

func (testTypes) Type(reader string) (string, bool) {
	if IsNested(reader) {
		return "JSON", true
	}
	return reader, false
}

func (testTypes) CSVText(typ string) bool { return typ != "JSON" }

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func openReader(t *testing.T) *Reader {
	t.Helper()
	rd, err := Open(t.Context())
	require.NoError(t, err)
	t.Cleanup(rd.Close)
	return rd
}

// colTypes renders columns as name:reader>type, with + for text and ! for
// a type the reader does not know.
func colTypes(cols []Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name + ":" + c.Reader + ">" + c.Type
		if c.Text {
			out[i] += "+"
		}
		if c.Unknown {
			out[i] += "!"
		}
	}
	return out
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "o.csv", "id,name,amount,ts,d\n1,a,1.50,2026-11-28 10:00:00,2026-11-28\n2,b,2.25,2026-11-28 11:00:00,2026-11-29\n")
	jsonPath := writeFile(t, dir, "e.jsonl",
		`{"id": 1, "tags": ["a", "b"], "meta": {"k": 1}, "email": "A@x", "at": "2026-11-28T10:00:00Z"}`+"\n"+
			`{"id": 2, "tags": [], "meta": null, "email": null, "at": null}`+"\n")
	for _, tc := range []struct {
		name string
		in   engine.FileInput
		want []string
	}{
		{"csv", engine.FileInput{Paths: []string{csvPath}, Format: "csv", Delim: ",", Types: map[string]string{"amount": "DECIMAL(12,2)"}},
			[]string{"id:BIGINT>BIGINT", "name:VARCHAR>VARCHAR", "amount:DECIMAL(12,2)>DECIMAL(12,2)", "ts:TIMESTAMP>TIMESTAMP", "d:DATE>DATE"}},
		{"jsonl", engine.FileInput{Paths: []string{jsonPath}, Format: "jsonl", Types: map[string]string{"email": "CITEXT", "at": "TIMESTAMPTZ"}},
			[]string{"id:BIGINT>BIGINT", "tags:VARCHAR[]>JSON+", `meta:STRUCT(k BIGINT)>JSON+`, "email:VARCHAR>CITEXT+!", "at:TIMESTAMP WITH TIME ZONE>TIMESTAMP WITH TIME ZONE"}},
		{"parquet", engine.FileInput{Paths: []string{"testdata/orders.parquet"}, Format: "parquet"},
			[]string{"id:BIGINT>BIGINT", "name:VARCHAR>VARCHAR", "amount:DECIMAL(12,2)>DECIMAL(12,2)", "ts:TIMESTAMP>TIMESTAMP", "tags:INTEGER[]>JSON+", "ok:BOOLEAN>BOOLEAN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src, err := openReader(t).Describe(t.Context(), tc.in, testTypes{})
			require.NoError(t, err)
			require.Equal(t, tc.want, colTypes(src.Columns))
		})
	}
}

// The bytes of a CSV file go to the engine's loader as they are only where
// it parses them as the reader does.
func TestCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", "id,x\n1,a\n")
	b := writeFile(t, dir, "b.csv", "x,id\n\"b, c\",2\n")
	other := writeFile(t, dir, "other.csv", "id,y\n3,z\n")
	for _, tc := range []struct {
		name string
		in   engine.FileInput
		want *CSVDialect // nil: rows
		fail string      // Describe's error, as the run's read fails
	}{
		{"comma", engine.FileInput{Paths: []string{a}, Delim: ","}, &CSVDialect{Delim: ",", Quote: `"`}, ""},
		{"columns_in_other_order", engine.FileInput{Paths: []string{a, b}, Delim: ","}, &CSVDialect{Delim: ",", Quote: `"`}, ""},
		{"semicolon", engine.FileInput{Paths: []string{writeFile(t, dir, "semi.csv", "id;x\n1;a\n2;b\n")}, Delim: ";"}, &CSVDialect{Delim: ";", Quote: `"`}, ""},
		{"tab_sniffed", engine.FileInput{Paths: []string{writeFile(t, dir, "tab.csv", "id\tx\n1\ta\n2\tb\n")}}, &CSVDialect{Delim: "\t", Quote: ""}, ""},
		{"bom", engine.FileInput{Paths: []string{writeFile(t, dir, "bom.csv", "\ufeffid,x\n1,a\n")}, Delim: ","}, &CSVDialect{Delim: ",", Quote: `"`}, ""},
		{"quotes_sniffed", engine.FileInput{Paths: []string{writeFile(t, dir, "q.csv", "id,x\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n")}}, &CSVDialect{Delim: ",", Quote: `"`}, ""},
		{"no_quotes_sniffed", engine.FileInput{Paths: []string{writeFile(t, dir, "plain.csv", "id,name\n1,5\" screen\n2,a \"b\" c\n")}}, &CSVDialect{Delim: ",", Quote: ""}, ""},
		{"backslash_escape", engine.FileInput{Paths: []string{writeFile(t, dir, "esc.csv", "id,x\n1,\"say \\\"hi\\\"\"\n2,\"a\"\n")}}, &CSVDialect{Delim: ",", Quote: `"`, Escape: `\`}, ""},
		{"day_first_dates", engine.FileInput{Paths: []string{writeFile(t, dir, "dmy.csv", "id,d\n1,28/11/2026\n2,13/12/2026\n")}, Delim: ","}, nil, ""},
		{"converted_column", engine.FileInput{Paths: []string{writeFile(t, dir, "l.csv", "id,l\n1,\"[1, 2]\"\n")}, Delim: ",", Types: map[string]string{"l": "BIGINT[]"}}, nil, ""},
		{"unknown_type", engine.FileInput{Paths: []string{writeFile(t, dir, "u.csv", "id,e\n1,A@x\n")}, Delim: ",", Types: map[string]string{"e": "CITEXT"}}, &CSVDialect{Delim: ",", Quote: `"`}, ""},
		{"headers_differ", engine.FileInput{Paths: []string{a, other}, Delim: ","}, nil, "Schema mismatch"},
		{"jsonl", engine.FileInput{Paths: []string{writeFile(t, dir, "j.jsonl", `{"id": 1}`+"\n")}, Format: "jsonl"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.in.Format == "" {
				tc.in.Format = "csv"
			}
			src, err := openReader(t).Describe(t.Context(), tc.in, testTypes{})
			if tc.fail != "" {
				require.ErrorContains(t, err, tc.fail)
				return
			}
			require.NoError(t, err)
			got, err := src.CSV(t.Context())
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// The rows path yields every row, across batches, with integers as int64,
// decimals as Decimal and nested values as JSON text.
func TestRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("id,amount\n")
	n := BatchRows + 1
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%d,%d.%02d\n", i, i/100, i%100)
	}
	p := writeFile(t, dir, "many.csv", sb.String())
	src, err := openReader(t).Describe(t.Context(), engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ",",
		Types: map[string]string{"id": "INTEGER", "amount": "DECIMAL(12,2)"}}, testTypes{})
	require.NoError(t, err)
	rows, err := src.Rows(t.Context())
	require.NoError(t, err)
	defer rows.Close()
	var count, sum int64
	cents := new(big.Int)
	for rows.Next() {
		v, err := rows.Values()
		require.NoError(t, err)
		id, ok := v[0].(int64)
		require.True(t, ok, "%T", v[0])
		d, ok := v[1].(Decimal)
		require.True(t, ok, "%T", v[1])
		require.Equal(t, 2, d.Scale)
		count++
		sum += id
		cents.Add(cents, d.Value)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, int64(n), count)
	require.Equal(t, int64(n)*int64(n+1)/2, sum)
	require.Equal(t, big.NewInt(int64(n)*int64(n+1)/2), cents) // amount is id/100

	q := writeFile(t, dir, "n.jsonl", `{"id": 7, "tags": ["a", "b"]}`+"\n")
	src, err = openReader(t).Describe(t.Context(), engine.FileInput{Paths: []string{q}, Format: "jsonl"}, testTypes{})
	require.NoError(t, err)
	rows, err = src.Rows(t.Context())
	require.NoError(t, err)
	defer rows.Close()
	require.True(t, rows.Next())
	v, err := rows.Values()
	require.NoError(t, err)
	require.Equal(t, []any{int64(7), `["a","b"]`}, v)
	require.False(t, rows.Next())
	require.NoError(t, rows.Err())
}

func TestDecimalString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value int64
		scale int
		want  string
	}{
		{150, 2, "1.50"}, {-5, 2, "-0.05"}, {0, 3, "0.000"}, {42, 0, "42"}, {-1234567, 3, "-1234.567"},
	} {
		require.Equal(t, tc.want, Decimal{Value: big.NewInt(tc.value), Scale: tc.scale}.String())
	}
}

// A reader error keeps what is wrong, where, and the file, not the dump of
// reader options after it; the original stays in the chain.
func TestCondense(t *testing.T) {
	t.Parallel()
	orig := errors.New("Conversion Error: CSV Error on Line: 3\nOriginal Line: 2,abc\n\n  file = /in/bad.csv\n  delimiter = ','\n  sample_size = 20480")
	got := condense(orig)
	require.EqualError(t, got, "Conversion Error: CSV Error on Line: 3; Original Line: 2,abc (file /in/bad.csv)")
	require.ErrorIs(t, got, orig)

	plain := errors.New("IO Error: No files found that match the pattern")
	require.Same(t, plain, condense(plain))

	// A real one, from the reader.
	p := writeFile(t, t.TempDir(), "bad.csv", "id,n\n1,10\n2,abc\n")
	src, err := openReader(t).Describe(t.Context(), engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ",",
		Types: map[string]string{"n": "BIGINT"}}, testTypes{})
	require.NoError(t, err)
	_, err = src.Rows(t.Context())
	require.Error(t, err)
	require.Contains(t, err.Error(), p)
	require.Regexp(t, `(?i)line:? 3\b`, err.Error())
	require.Contains(t, err.Error(), `"abc"`)
	require.NotContains(t, err.Error(), "sample_size")
	require.NotContains(t, err.Error(), "\n")
}

// DescribeSample reads the types from the sniffer's sample; Resolve reads
// every row and says whether they hold: not when a value beyond the
// sample has a UTC offset, which Describe reads as an instant. A declared
// TIMESTAMP with such a value is Resolve's error, as Describe's.
func TestDescribeSampleThenResolve(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,ts\n")
	for i := range 30000 { // beyond the sniffer's sample (20480 rows)
		fmt.Fprintf(&b, "%d,2026-01-02 00:00:%02d\n", i+1, i%60)
	}
	dir := t.TempDir()
	plain := writeFile(t, dir, "plain.csv", b.String())
	zoned := writeFile(t, dir, "zoned.csv", b.String()+"0,2026-01-01T20:30:00-05:00\n")
	in := func(p string, types map[string]string) engine.FileInput {
		return engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ",", Types: types}
	}
	rd := openReader(t)

	src, err := rd.DescribeSample(t.Context(), in(plain, nil), testTypes{})
	require.NoError(t, err)
	require.Equal(t, []string{"id:BIGINT>BIGINT", "ts:TIMESTAMP>TIMESTAMP"}, colTypes(src.Columns))
	ok, err := src.Resolve(t.Context())
	require.NoError(t, err)
	require.True(t, ok, "every row is zoneless")

	src, err = rd.DescribeSample(t.Context(), in(zoned, nil), testTypes{})
	require.NoError(t, err)
	require.Equal(t, []string{"id:BIGINT>BIGINT", "ts:TIMESTAMP>TIMESTAMP"}, colTypes(src.Columns), "the sample has no offset")
	ok, err = src.Resolve(t.Context())
	require.NoError(t, err)
	require.False(t, ok, "the last row has an offset")
	full, err := rd.Describe(t.Context(), in(zoned, nil), testTypes{})
	require.NoError(t, err)
	require.Equal(t, []string{"id:BIGINT>BIGINT", "ts:TIMESTAMP WITH TIME ZONE>TIMESTAMP WITH TIME ZONE"}, colTypes(full.Columns))

	src, err = rd.DescribeSample(t.Context(), in(zoned, map[string]string{"ts": "TIMESTAMP"}), testTypes{})
	require.NoError(t, err)
	_, err = src.Resolve(t.Context())
	require.ErrorContains(t, err, "zoned.csv line 30002")
}
