package source

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kinds := map[string]Kind{"n": KindInt32, "day": KindDate, "ts": KindTimestamp}
	for _, tc := range []struct{ content, want string }{
		{"id,day,n,ts\n1,2024-05-01,5,2024-05-01 10:00:00\n2,,,\n3,2024-05-01,-2147483648,2024-05-01T10:00:00+02:00\n", ""},
		{"id,day,n\n1,2024-05-01,5\n2,2024-05-01,3000000000\n", `v.csv line 3: column "n": "3000000000" is out of range for a 32-bit integer (-2147483648 to 2147483647)`},
		{"id,day,n\n1,2024-13-45,5\n", `v.csv line 2: column "day": "2024-13-45" is not a date (like 2026-11-28)`},
		{"\ufeffday;ts\r\n2024-05-01;soon\r\n", `v.csv line 2: column "ts": "soon" is not a date or timestamp`},
		{"n\n1.5\n", `v.csv line 2: column "n": "1.5" is not an integer`},
	} {
		delim, err := CSVDelimiter(write(t, dir, "v.csv", tc.content))
		require.NoError(t, err)
		err = CheckValues(dir+"/v.csv", delim, kinds)
		if tc.want == "" {
			require.NoError(t, err, tc.content)
			continue
		}
		require.ErrorContains(t, err, tc.want, tc.content)
	}
}

func TestCheckCSVUTF8(t *testing.T) {
	t.Parallel()
	p := write(t, t.TempDir(), "u.csv", "id,name\n1,ok\n2,caf\xe9\n")
	require.ErrorContains(t, CheckCSV(p, ','), `u.csv line 3: column "name" is not valid UTF-8 (byte 0xe9 at offset 3)`)
}

func TestCheckJSONLAndParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, CheckJSONL(write(t, dir, "a.jsonl", "{\"a\":1}\n\n{\"a\":2}\n")))
	require.ErrorContains(t, CheckJSONL(write(t, dir, "b.jsonl", "{\"a\":1}\n[1]\n")), "b.jsonl line 2: not a JSON object")
	require.ErrorContains(t, CheckParquet(write(t, dir, "a.parquet", "id\n1\n")), "a.parquet is not a Parquet file: it has 5 bytes")
	require.ErrorContains(t, CheckParquet(write(t, dir, "b.parquet", "PAR1 and then it stops")), "b.parquet is not a whole Parquet file: it does not end with PAR1")
	require.ErrorContains(t, CheckParquet(write(t, dir, "c.parquet", "some text that ends PAR1")), "c.parquet is not a Parquet file: it does not start with PAR1")
	require.NoError(t, CheckParquet(write(t, dir, "d.parquet", "PAR1 footer PAR1")))
}

func TestOpenGzip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	_, err := z.Write([]byte("a;b\n1;2\n"))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	p := write(t, dir, "x.csv.GZ", buf.String())
	f, err := Open(p)
	require.NoError(t, err)
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Equal(t, "a;b\n1;2\n", string(b))
	d, err := CSVDelimiter(p)
	require.NoError(t, err)
	require.Equal(t, byte(';'), d)

	_, err = Open(write(t, dir, "y.csv.gz", "a,b\n"))
	require.ErrorContains(t, err, "y.csv.gz is not gzip-compressed, as its name says")
}

func TestCheckColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := write(t, dir, "c.csv", "id,day,status\n1,2024-05-01,placed\n2,2024-13-45,shipped\n3,,x\n4,2024-05-02,y\n")
	bad, good, err := CheckColumn(p, ',', "day", KindTimestamp)
	require.NoError(t, err)
	require.Equal(t, 2, good)
	require.ErrorContains(t, bad, `c.csv line 3: column "day": "2024-13-45" is not a date or timestamp`)

	bad, good, err = CheckColumn(p, ',', "status", KindTimestamp)
	require.NoError(t, err)
	require.Equal(t, 0, good, "a column of no dates")
	require.ErrorContains(t, bad, `c.csv line 2: column "status": "placed"`)
}

// FilesContain finds a needle anywhere, across the boundary between two
// reads too, and in a gzip file's text.
func TestFilesContain(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("x"), 1<<20-2) // "NULL" will straddle the 1 MiB read
	for _, c := range []struct {
		name    string
		content []byte
		want    bool
	}{
		{"a.csv", []byte("a,b\n1,NULL\n"), true},
		{"b.csv", []byte("a,b\n1,null\n2,NUL\n"), false},
		{"c.csv", append(append(big, "NULL"...), '\n'), true},
		{"d.csv", nil, false},
	} {
		p := filepath.Join(dir, c.name)
		require.NoError(t, os.WriteFile(p, c.content, 0o644))
		got, err := FilesContain([]string{p}, []byte("NULL"))
		require.NoError(t, err)
		require.Equal(t, c.want, got, c.name)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("a,b\n1,NULL\n"))
	require.NoError(t, w.Close())
	p := filepath.Join(dir, "e.csv.gz")
	require.NoError(t, os.WriteFile(p, z.Bytes(), 0o644))
	got, err := FilesContain([]string{filepath.Join(dir, "b.csv"), p}, []byte("NULL"))
	require.NoError(t, err)
	require.True(t, got)
}

// FilesHoldSubMicroseconds finds a time with seven or more digits of a
// second, and nothing else.
func TestFilesHoldSubMicroseconds(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		content string
		want    bool
	}{
		{"id,ts\n1,2026-11-28 23:59:59.9999999\n", true},
		{"id,ts\n1,2026-11-28T10:00:00.1234567890+01:00\n", true},
		{"id,ts\n1,2026-11-28 23:59:59.999999\n", false},
		{"id,x\n1,3.14159265358979\n2,10:00\n", false},
		{"id,x,ts\n1.5,2.5..,10:00:00.1234567\n", true}, // after other dots
		{"id,x,ts\n1,.,x:0.1234567\n2,.5,:5a.1234567\n", false},
		{":00.1234567", true},                                   // at the very start
		{strings.Repeat("x", 1<<20-6) + ":59.99999999\n", true}, // across two reads
	} {
		p := filepath.Join(dir, "f.csv")
		require.NoError(t, os.WriteFile(p, []byte(c.content), 0o644))
		got, err := FilesHoldSubMicroseconds([]string{p})
		require.NoError(t, err)
		require.Equal(t, c.want, got, c.content[:min(len(c.content), 60)])
	}
}

// FileHoldsEmptyField finds every empty field, quoted or not, wherever it
// is (first, middle or last column; first or last line; across the 1 MiB
// reads), and says none only where there is none.
func TestFileHoldsEmptyField(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("x,"), 1<<19) // the 1 MiB read ends after a delimiter
	for _, c := range []struct {
		name    string
		content []byte
		delim   byte
		want    bool
	}{
		{"none", []byte("a,b\n1,x\n2,y\n"), ',', false},
		{"none, no last newline", []byte("a,b\n1,x\n2,y"), ',', false},
		{"none, quoted", []byte("a,b\n1,\"x,y\"\n"), ',', false},
		{"middle", []byte("a,b,c\n1,,x\n"), ',', true},
		{"first column", []byte("a,b\n,x\n"), ',', true},
		{"last column", []byte("a,b\n1,\n2,y\n"), ',', true},
		{"last column, last line", []byte("a,b\n1,x\n2,"), ',', true},
		{"first column, first line", []byte(",b\n1,x\n"), ',', true},
		{"empty line", []byte("a\n1\n\n2\n"), ',', true},
		{"quoted empty", []byte("a,b\n1,\"\"\n"), ',', true},
		{"doubled quote (may)", []byte("a,b\n1,\"x\"\"y\"\n"), ',', true},
		{"other delimiter", []byte("a;b\n1;;\n"), ';', true},
		{"commas under semicolons", []byte("a;b\n1,,2;x\n"), ';', false},
		{"across reads", append(big, ",1\n"...), ',', true},
		{"empty file", nil, ',', true},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".csv")
		require.NoError(t, os.WriteFile(p, c.content, 0o644))
		got, err := FileHoldsEmptyField(p, c.delim, '"')
		require.NoError(t, err)
		require.Equal(t, c.want, got, c.name)
	}
}

// Against encoding/csv's reading of random files: wherever it reads an
// empty field, FileHoldsEmptyField says so.
func TestFileHoldsEmptyFieldMissesNone(t *testing.T) {
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "1", ",", "\n", "\"", " ", "é"}
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		var b strings.Builder
		for range 2 + rnd.IntN(30) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		records, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
		if err != nil {
			continue // not CSV; a loader refuses it anyway
		}
		empty := false
		for _, r := range records {
			for _, f := range r {
				empty = empty || f == ""
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("%d.csv", i))
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		got, err := FileHoldsEmptyField(p, ',', '"')
		require.NoError(t, err)
		if empty {
			require.True(t, got, "%q", b.String())
		}
	}
}

// adjacentPair, eight bytes at a time, answers as a byte-by-byte loop
// does, wherever the pair falls (inside a word, across two, in the tail).
func TestAdjacentPair(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	naive := func(b []byte, delim, quote byte) bool {
		sep := func(c byte) bool { return c == delim || c == '\n' }
		for i := 1; i < len(b); i++ {
			if (sep(b[i]) && sep(b[i-1])) || (quote != 0 && b[i] == quote && b[i-1] == quote) {
				return true
			}
		}
		return false
	}
	alphabet := []byte{'a', ',', ';', '\n', '"', 0x80, 0xff, 0}
	for range 20000 {
		b := make([]byte, rnd.IntN(40))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		for _, dq := range [][2]byte{{',', '"'}, {';', 0}, {0xff, 0x80}} {
			require.Equal(t, naive(b, dq[0], dq[1]), adjacentPair(b, dq[0], dq[1]), "%q %q", b, dq)
		}
	}
}
