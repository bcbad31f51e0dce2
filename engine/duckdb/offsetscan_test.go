package duckdb

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Values zonedRE matches are found in every way a CSV file can hold them;
// values without offsets, in the usual files, are not.
func TestMayHoldOffset(t *testing.T) {
	re := regexp.MustCompile(zonedRE)
	zoned := []string{"2026-11-28 10:00:00+05", "2026-11-28 10:00:00Z", "2026-11-28T10:00:00z", "2026-11-28 10:00:00 UTC",
		"2026-11-28 10:00:00-05:00", "2026-11-28 10:00:00.123456+0100", "2026-11-28 10:00:00 Europe/Berlin",
		"2026-11-28 10:00:00 gmt", "2026-11-28 10:00:00\t+1", "2026-11-28 10:00:00 America/Argentina/Buenos_Aires",
		"2026-11-28 10:00:00 \u212aelvin/x", "10:00:00.+01", "2026-11-28 10:00:00\n-03"}
	for _, v := range zoned {
		require.True(t, re.MatchString(v), "the case must be one zonedRE matches: %q", v)
		for _, line := range []string{v, `"` + v + `"`, "1,\"a \"\"q\"\"\"," + v + ",x", `1,"` + v + `",2`} {
			csv := "id,at,n\n1,2026-11-28 09:00:00,3\n" + line + "\n2,2026-11-28 11:00:00,4\n"
			for _, size := range []int{16, 17, 23, 64, 1 << 20} {
				may, err := readerMayHoldOffset(strings.NewReader(csv), size)
				require.NoError(t, err)
				require.True(t, may, "%q in blocks of %d", line, size)
			}
		}
	}
	plain := []string{
		"order_id,customer_id,order_date,status,amount,updated_at\n1,2,2026-11-28,placed,1.00,2026-11-28 10:00:00\n2,3,2026-11-28,shipped,2.50,2026-11-28 23:59:59.999\n",
		"a;b\n2026-11-28T10:00:00;x\n",
		"at\n2026-11-28 10:00\n10:00:00\n",
		"",
	}
	for _, csv := range plain {
		for _, size := range []int{16, 19, 1 << 20} {
			may, err := readerMayHoldOffset(strings.NewReader(csv), size)
			require.NoError(t, err)
			require.False(t, may, "%q in blocks of %d", csv, size)
		}
	}
	// Compressed bytes may hold anything.
	may, err := readerMayHoldOffset(bytes.NewReader([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0}), 16)
	require.NoError(t, err)
	require.True(t, may)
	dir := t.TempDir()
	plainFile, gz := filepath.Join(dir, "a.csv"), filepath.Join(dir, "a.csv.gz")
	require.NoError(t, os.WriteFile(plainFile, []byte(plain[0]), 0o644))
	require.NoError(t, os.WriteFile(gz, []byte(plain[0]), 0o644))
	require.False(t, mayHoldOffset([]string{plainFile}))
	require.True(t, mayHoldOffset([]string{plainFile, gz}), "named as compressed")
	require.True(t, mayHoldOffset([]string{filepath.Join(dir, "missing.csv")}), "unreadable")
}

// Any text zonedRE matches, anywhere in a file, in any block size, makes
// mayHoldOffset true: random texts over the characters that matter.
func TestMayHoldOffsetCoversZonedRE(t *testing.T) {
	re := regexp.MustCompile(zonedRE)
	alphabet := []rune("0123456789::::..  \t\n+-zZuUtTcCgGmMaA/_,\"xé\u212a\u017f")
	rng := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range 1_000_000 {
		n := 3 + rng.IntN(14)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		v := b.String()
		if !re.MatchString(v) {
			continue
		}
		found++
		for _, size := range []int{16, 21} {
			may, err := readerMayHoldOffset(strings.NewReader("h\n"+v+"\n"), size)
			require.NoError(t, err)
			require.True(t, may, "%q", v)
		}
	}
	require.Greater(t, found, 100, "the random texts must include matches")
}

// A field starting with a zero and a digit, or a plus sign and a digit, is
// found wherever it lies (first, last or quoted; across block edges); the
// usual numbers, dates and times do not trip it.
func TestMayHoldLeadingZero(t *testing.T) {
	starts := func(delim string) *[256]bool {
		s := [256]bool{'\n': true, '\r': true, '"': true}
		if delim == "" {
			delim = ",;|\t"
		}
		for i := range len(delim) {
			s[delim[i]] = true
		}
		return &s
	}
	odd := []string{"02134", "007.25", "+5", "00", "+1.5"}
	for _, v := range odd {
		for _, tc := range []struct{ delim, line string }{
			{",", v + ",x"}, {",", "x," + v}, {",", `x,"` + v + `"`}, {";", "x;" + v + ";y"}, {"", "x\t" + v}, {"|", "x|" + v + "\r"},
		} {
			csv := "id,zip\n1,10001\n" + tc.line + "\n2,10002\n"
			for _, size := range []int{1, 2, 3, 7, 16, 1 << 20} {
				may, err := readerMayHoldLeadingZero(strings.NewReader(csv), starts(tc.delim), size)
				require.NoError(t, err)
				require.True(t, may, "%q in blocks of %d", tc.line, size)
			}
		}
	}
	may, err := readerMayHoldLeadingZero(strings.NewReader("02134,x\n"), starts(","), 3)
	require.NoError(t, err)
	require.True(t, may, "the first field of the file")
	plain := []string{
		"order_id,customer_id,order_date,status,amount,updated_at\n1,2,2026-01-05,placed,0.50,2026-01-05 09:00:00\n10,0,2026-11-28,x,-0.5,2026-11-28 00:00:00.05\n",
		"a;b\n0;-01\n",
		"id,phone\n1,tel +44 20\n",
		"",
	}
	for _, csv := range plain {
		for _, size := range []int{1, 2, 5, 1 << 20} {
			may, err := readerMayHoldLeadingZero(strings.NewReader(csv), starts(""), size)
			require.NoError(t, err)
			require.False(t, may, "%q in blocks of %d", csv, size)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.csv.gz")
	require.NoError(t, os.WriteFile(p, []byte("id\n1\n"), 0o644))
	require.True(t, mayHoldLeadingZero([]string{p}, ","), "a compressed file may hold anything")
}

// Only an input with rows past the sniffer's sample (a file of more rows,
// or a second file) is read again for values the sample did not see.
func TestPastSample(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rows int) string {
		p := filepath.Join(dir, name)
		b := []byte("id\n" + strings.Repeat("1\n", rows))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	sample, more := write("sample.csv", sampleRows), write("more.csv", sampleRows+1)
	require.False(t, pastSample([]string{sample}), "a file the sample reads whole")
	require.True(t, pastSample([]string{more}), "one row past the sample")
	require.True(t, pastSample([]string{sample, write("two.csv", 1)}), "a second file")
	require.True(t, pastSample([]string{write("x.csv.gz", 1)}), "a compressed file")
	require.True(t, pastSample([]string{filepath.Join(dir, "missing.csv")}), "a file it cannot read")
}

// An exponent of three digits is found wherever it lies, across block
// edges; the usual numbers, dates and words do not trip it.
func TestMayHoldHugeExponent(t *testing.T) {
	for _, v := range []string{"1e400", "-1.5E+309", "2.e999", "7e-400", "1e0400"} {
		csv := "id,x\n1,2.5\n2," + v + "\n3,0.5\n"
		for _, size := range []int{1, 2, 3, 5, 8, 1 << 20} {
			may, err := readerMayHoldHugeExponent(strings.NewReader(csv), size)
			require.NoError(t, err)
			require.True(t, may, "%q in blocks of %d", v, size)
		}
	}
	for _, csv := range []string{
		"id,x,s\n1,1e10,placed\n2,-2.5E-12,e100\n3,1e30,the 1e\n",
		"status\nrelease 12\n",
		"",
	} {
		// (Small blocks may say "may" where a number's digits reach a
		// block's end; the usual block holds the whole file here.)
		may, err := readerMayHoldHugeExponent(strings.NewReader(csv), 1<<20)
		require.NoError(t, err)
		require.False(t, may, "%q", csv)
	}
}
