package duckdb

import (
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The byte scan that spares Resolve's pass through DuckDB finds each kind
// of value it looks for in the right column only, wherever the row lies,
// and gives up (every column may hold anything) on a file it cannot follow.
func TestColumnsMayHold(t *testing.T) {
	t.Parallel()
	checks := map[string]fieldCheck{"id": checkWhole | checkLeadingZero, "day": checkDate, "amount": checkLeadingZero}
	none := map[string]bool{"id": false, "day": false, "amount": false}
	all := map[string]bool{"id": true, "day": true, "amount": true}
	only := func(c string) map[string]bool {
		m := map[string]bool{"id": false, "day": false, "amount": false}
		m[c] = true
		return m
	}
	head := "id,day,amount,note\n"
	plain := strings.Repeat("7,2026-11-28,1.50,plain text: 5.7 and 2026-11-28 10:00\n", 3)
	for _, tc := range []struct {
		name, text string
		want       map[string]bool
	}{
		{"plain", head + plain, none},
		{"a fraction in an integer column, last", head + plain + "5.7,2026-11-28,1,x\n", only("id")},
		{"an exponent, first", head + "1e5,2026-11-28,1,x\n" + plain, only("id")},
		{"a time of day in a date column", head + plain + "7,2026-11-28 10:00:00,1,x\n", only("day")},
		{"an offset in a date column", head + plain + "7,1:00Z,1,x\n", only("day")},
		{"a date with a trailing tab", head + plain + "7,2026-11-28\t,1,x\n", only("day")},
		{"spaces around a date", head + plain + "7,  2026-11-28  ,1,x\n", none},
		{"a leading zero", head + plain + "7,2026-11-28,01.5,x\n", only("amount")},
		{"a plus sign after a tab", head + plain + "7,2026-11-28,\t+1,x\n", only("amount")},
		{"a zero, a negative zero, a fraction", head + plain + "-0,2026-11-28,0,x\n7,2026-11-28,0.5,x\n7,2026-11-28,-01,x\n", none},
		{"empty values", head + plain + ",,,\n\n", none},
		{"a sign and blanks in an integer", head + plain + " -7 ,2026-11-28,1,x\n", none},
		{"a plus sign in an integer", head + plain + "+7,2026-11-28,1,x\n", only("id")},
		{"a quoted value in a checked column", head + plain + `"7",2026-11-28,1,x` + "\n", only("id")},
		{"quoted values elsewhere, over lines", head + `7,2026-11-28,1,"a, ""5.7""` + "\n" + `1e5, 02"` + "\n" + plain, none},
		{"a quoted value then a checked one", head + `7,2026-11-28,1,"a` + "\n" + `b"` + "\n8,2026-11-28 10:00,1,x\n", only("day")},
		{"CRLF", strings.ReplaceAll(head+plain, "\n", "\r\n"), none},
		{"CRLF, a fraction last", strings.ReplaceAll(head+plain+"5.5,2026-11-28,1,x", "\n", "\r\n"), only("id")},
		{"no final line end", head + plain + "5.5,2026-11-28,1,x", only("id")},
		{"a byte order mark", "\ufeff" + head + plain, none},
		{"columns in another order", "note,amount,day,id\n" + "x,1,2026-11-28,7\nx,1,2026-11-28,7.5\n", only("id")},
		{"a lone carriage return", head + "7,2026-11-28,1,x\r7.5,2026-11-28,1,x\n", all},
		{"a column missing", "id,amount,note\n7,1,x\n", all},
		{"a column named twice", "id,day,amount,id\n7,2026-11-28,1,7\n", all},
		{"an unterminated quote", head + `7,2026-11-28,1,"x` + "\n" + plain, all},
		{"text after a closing quote", head + `7,2026-11-28,1,"x"y` + "\n", all},
		{"a quote inside a value", head + `7,2026-11-28,1,x"y` + "\n", all},
		{"an empty file", "", all},
		{"a line over a MiB", head + "7,2026-11-28,1," + strings.Repeat("x", 2<<20) + "\n", all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.csv")
			require.NoError(t, os.WriteFile(p, []byte(tc.text), 0o644))
			require.Equal(t, tc.want, columnsMayHold([]string{p}, ",", checks))
		})
	}

	t.Run("another delimiter", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "x.csv")
		require.NoError(t, os.WriteFile(p, []byte("id;day;amount\n7;2026-11-28;1,5\n7,5;2026-11-28;1\n"), 0o644))
		require.Equal(t, only("id"), columnsMayHold([]string{p}, ";", checks))
		require.Equal(t, all, columnsMayHold([]string{p}, "", checks), "a sniffed dialect")
		require.Equal(t, all, columnsMayHold([]string{p}, ";;", checks), "a delimiter of two bytes")
	})
	t.Run("the second file", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
		require.NoError(t, os.WriteFile(a, []byte(head+plain), 0o644))
		require.NoError(t, os.WriteFile(b, []byte(head+plain+"7,2026-11-28T10:00,1,x\n"), 0o644))
		require.Equal(t, only("day"), columnsMayHold([]string{a, b}, ",", checks))
	})
	t.Run("files naming other columns", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
		require.NoError(t, os.WriteFile(a, []byte(head+plain), 0o644))
		require.NoError(t, os.WriteFile(b, []byte("id,day,amount,other\n"+plain), 0o644))
		require.Equal(t, all, columnsMayHold([]string{a, b}, ",", checks), "DuckDB's read refuses them")
	})
	t.Run("a compressed file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "x.csv.gz")
		require.NoError(t, os.WriteFile(p, []byte(head+plain), 0o644))
		require.Equal(t, all, columnsMayHold([]string{p}, ",", checks))
	})
}

// Against a reference reading of the same files by encoding/csv, on files
// of random quoting, delimiters and line breaks: a column the reference
// finds a value in is never ruled out.
func TestColumnsMayHoldMissesNothing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"7", "0", "01", "+5", "5.7", "1e5", "2026-11-28", "2026-11-28 10:00", " ", "a", ",", "\"", "\n", "\r\n", "-"}
	checks := map[string]fieldCheck{"a": checkWhole, "b": checkDate, "c": checkLeadingZero}
	dir := t.TempDir()
	compared, found, files := 0, 0, 3000
	if testing.Short() {
		files = 600
	}
	for n := range files {
		var b strings.Builder
		b.WriteString("a,b,c\n")
		for range 1 + rng.IntN(4) {
			for f := range 3 {
				if f > 0 {
					b.WriteString(",")
				}
				v := ""
				for range rng.IntN(3) {
					v += pieces[rng.IntN(len(pieces))]
				}
				if strings.ContainsAny(v, ",\"\r\n") || rng.IntN(4) == 0 {
					v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
				}
				b.WriteString(v)
			}
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		}
		text := b.String()
		r := csv.NewReader(strings.NewReader(text))
		recs, err := r.ReadAll()
		if err != nil {
			continue // not CSV to encoding/csv either
		}
		want := map[string]bool{}
		for _, rec := range recs[1:] {
			for i, name := range []string{"a", "b", "c"} {
				if i < len(rec) && fieldMayHold([]byte(rec[i]), checks[name]) {
					want[name] = true
				}
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("%d.csv", n))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		got := columnsMayHold([]string{p}, ",", checks)
		for name := range want {
			require.True(t, got[name], "column %s of %q", name, text)
		}
		compared++
		found += len(want)
	}
	// Not vacuous: most files are CSV, and many hold what is looked for.
	require.Greater(t, compared, files/3)
	require.Greater(t, found, files/6)
}
