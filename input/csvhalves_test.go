package input

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// csvHalvesText is a header and n records, each with a quoted field that
// spans lines and holds doubled quotes, so that the file's middle falls
// inside one; the second half holds the earliest time, the first text and
// empty keys.
func csvHalvesText(n int, last string) string {
	text, _ := csvHalvesRecords(n, last)
	return text
}

// csvHalvesRecords is csvHalvesText and the offsets where its lines
// outside quotes end.
func csvHalvesRecords(n int, last string) (string, map[int64]bool) {
	var b strings.Builder
	ends := map[int64]bool{}
	b.WriteString("\ufeffid;note;day;v\r\n")
	for i := range n {
		ends[int64(b.Len())] = true
		note := fmt.Sprintf("\"line %d;\n\"\"quoted\"\"\n\"", i)
		switch {
		case i < n/2:
			fmt.Fprintf(&b, "%d;%s;2026-11-%02d;%d.5\r\n", i, note, i%28+1, i)
		case i%3 == 0:
			fmt.Fprintf(&b, ";%s;2025-01-01 10:00:00;abc\n", note)
			ends[int64(b.Len())] = true
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "%d;%s;;1e-3\n", i, note)
		}
	}
	ends[int64(b.Len())] = true
	return b.String() + last, ends
}

// The second half starts where a record does, wherever the middle falls.
func TestCSVHalvesSplitAtARecord(t *testing.T) {
	text, ends := csvHalvesRecords(10, "")
	path := write(t, "x.csv", text)[0]
	for at := range int64(len(text)) {
		mid, err := recordAfter(path, at)
		require.NoError(t, err)
		require.True(t, ends[mid], "from %d: %d", at, mid)
		require.GreaterOrEqual(t, mid, at)
	}
}

// A large CSV file scanned in two halves at once gives what one pass over
// it gives: the same types, first values and NULLs located, or the same
// refusal.
func TestCSVHalvesAsOnePass(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		types map[string]Type
		lim   *Limits
		split bool
	}{
		{"times, text and nulls across the halves", csvHalvesText(40, ""), nil, nil, true},
		{"a given type", csvHalvesText(41, "7;x;2026-01-01;2\n"), map[string]Type{"V": TextType, "id": BigIntType}, nil, true},
		{"the earliest time refused by the target", csvHalvesText(40, ""), nil, &Limits{Engine: "E", HasTimes: true, MinTime: daysFromCivil(2026, 1, 1) * microsPerDay, MaxTime: math.MaxInt64}, true},
		{"a value refused in the second half", csvHalvesText(40, "x;y;;\n"), map[string]Type{"id": BigIntType}, nil, false},
		{"a field short in the second half", csvHalvesText(40, "1;2;3\n"), nil, nil, false},
		{"a stray quote in the first half", strings.Replace(csvHalvesText(40, ""), "3;", `3 "x";`, 1), nil, nil, false},
		{"a quote never closed in the second half", csvHalvesText(40, `1;"x;2;3`+"\n"), nil, nil, false},
	}
	defer func(m int64) { minHalves = m }(minHalves)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := csvSpec(t, c.text)
			spec.Types, spec.Limits, spec.Locate = c.types, c.lim, []string{"id", "day"}
			minHalves = 1 << 62
			one, oneErr := Scan(context.Background(), spec)
			minHalves = 1
			halves, halvesErr := Scan(context.Background(), spec)
			if oneErr != nil {
				require.EqualError(t, halvesErr, oneErr.Error())
			} else {
				require.NoError(t, halvesErr)
				require.Equal(t, one.Columns, halves.Columns)
				require.Equal(t, one.Rows, halves.Rows)
				require.Equal(t, one.Fingerprint, halves.Fingerprint)
				split := halves.files[0]
				require.Equal(t, c.split, split.half > 0)
				split.half, split.halfLines, split.halfRows = 0, 0, 0
				require.Equal(t, one.files, []fileState{split})
				oneRows, halvesRows := readBothWays(t, spec)
				require.ElementsMatch(t, oneRows, halvesRows, "Read gives the rows one pass gives, in another order")
			}

			f, cr, _, err := openCSV(spec.Paths[0])
			require.NoError(t, err)
			defer f.Close()
			in := &Input{spec: spec}
			var guesses []*guess
			for _, n := range []string{"id", "note", "day", "v"} {
				in.addColumn(n)
				guesses = append(guesses, &guess{})
			}
			fs, err := stat(spec.Paths[0])
			require.NoError(t, err)
			fs.cols = []int{0, 1, 2, 3}
			_, ok, err := in.scanCSVHalves(context.Background(), spec.Paths[0], cr.delim, guesses, &fs)
			require.NoError(t, err)
			require.Equal(t, c.split, ok)
		})
	}
}

// A file changed between the two passes is refused in either half, its
// line numbered in the whole file (changed in place: the halves' offsets
// hold).
func TestCSVHalvesReadChanged(t *testing.T) {
	defer func(m int64) { minHalves = m }(minHalves)
	minHalves = 1
	text := csvHalvesText(40, "")
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"a field lost in the first half", "0;", "0,", "line 2"},
		{"a field lost in the second half", ";;1e-3", ",;1e-3", "line 64"},
		{"a record more in the second half", "", "5;x;;1\n", "rows from offset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := csvSpec(t, text)
			changed := text + c.to
			if c.from != "" {
				changed = strings.Replace(text, c.from, c.to, 1)
			}
			one := readChanged(t, spec, text, changed, 1<<62)
			halves := readChanged(t, spec, text, changed, 1)
			requireChangedAlike(t, one, halves, c.want, c.from != "")
		})
	}
}

// readChanged scans text (in halves when it is at least min bytes), then
// reads changed in its place, as if unchanged (same size and time), and
// returns the error the reading ends with.
func readChanged(t *testing.T, spec Spec, text, changed string, min int64) error {
	minHalves = min
	require.NoError(t, os.WriteFile(spec.Paths[0], []byte(text), 0o644))
	in, err := Scan(context.Background(), spec)
	require.NoError(t, err)
	require.Equal(t, min == 1, in.files[0].half > 0)
	require.NoError(t, os.WriteFile(spec.Paths[0], []byte(changed), 0o644))
	fs, err := stat(spec.Paths[0])
	require.NoError(t, err)
	in.files[0].size, in.files[0].mtime = fs.size, fs.mtime
	r := in.Read(context.Background())
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			return err
		}
	}
}

// readBothWays reads spec in one pass and in halves, every row as text.
func readBothWays(t *testing.T, spec Spec) (one, halves []string) {
	t.Helper()
	defer func(m int64) { minHalves = m }(minHalves)
	minHalves = 1 << 62
	_, one, err := readAll(t, spec)
	require.NoError(t, err)
	minHalves = 1
	_, halves, err = readAll(t, spec)
	require.NoError(t, err)
	return one, halves
}

// requireChangedAlike checks the halves' error names want and, for a file
// changed in place (same), is one pass's error word for word; a file that
// grew is ErrChanged both ways.
func requireChangedAlike(t *testing.T, one, halves error, want string, same bool) {
	t.Helper()
	require.ErrorContains(t, halves, want)
	if same {
		require.EqualError(t, halves, one.Error())
		return
	}
	require.ErrorIs(t, one, ErrChanged)
	require.ErrorIs(t, halves, ErrChanged)
}
