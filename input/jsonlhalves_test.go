package input

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// halvesText is n lines whose second half brings a new key, drops and
// nulls others (one given only on the first half's last line), and holds
// the earliest time and the first text.
func halvesText(n int, last string) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i == n/2-1:
			fmt.Fprintf(&b, `{"id":%d,"day":"2026-11-30","v":0.5,"tail":true}`+"\n", i)
		case i < n/2:
			fmt.Fprintf(&b, `{"id":%d,"day":"2026-11-%02d","v":%d.5}`+"\r\n", i, i%28+1, i)
		case i%3 == 0:
			fmt.Fprintf(&b, `{"w":"x%d","id":null,"v":"abc","day":"2025-01-01T10:00:00"}`+"\n\n", i)
		default:
			fmt.Fprintf(&b, `{"id":%d,"v":1e-3,"w":%d}`+"\n", i, i)
		}
	}
	return b.String() + last
}

// A large file scanned in two halves at once gives what one pass over it
// gives: the same columns, types, first values and NULLs located, or the
// same refusal.
func TestJSONLHalvesAsOnePass(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		types map[string]Type
		lim   *Limits
		split bool
	}{
		{"keys, times, text and nulls across the halves", halvesText(40, ""), nil, nil, true},
		{"a given type", halvesText(41, `{"v":2}`+"\n"), map[string]Type{"V": TextType, "id": BigIntType}, nil, true},
		{"the earliest time refused by the target", halvesText(40, ""), nil, &Limits{Engine: "E", HasTimes: true, MinTime: daysFromCivil(2026, 1, 1) * microsPerDay, MaxTime: math.MaxInt64}, true},
		{"a key only the first line gives", `{"only":1}` + "\n" + halvesText(40, ""), nil, nil, true},
		{"a value refused in the second half", halvesText(40, `{"id":"x"}`+"\n"), map[string]Type{"id": BigIntType}, nil, false},
		{"keys differing in case across the halves", halvesText(40, `{"V":1}`+"\n"), nil, nil, false},
		{"a key twice in the second half", halvesText(40, `{"w":1,"w":2}`+"\n"), nil, nil, false},
		{"not JSON in the second half", halvesText(40, "x\n"), nil, nil, false},
	}
	defer func(m int64) { minHalves = m }(minHalves)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := jsonlSpec(t, c.text)
			spec.Types, spec.Limits, spec.Locate = c.types, c.lim, []string{"id", "day", "w", "only", "tail"}
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
				require.Equal(t, one.files[0].rows, halves.files[0].rows)
				require.Equal(t, c.split, halves.files[0].half > 0)
				oneRows, halvesRows := readBothWays(t, spec)
				require.ElementsMatch(t, oneRows, halvesRows, "Read gives the rows one pass gives, in another order")
			}

			in, s := &Input{spec: spec}, newJSONLScan()
			fs, err := stat(spec.Paths[0])
			require.NoError(t, err)
			_, ok, err := in.scanJSONLHalves(context.Background(), s, spec.Paths[0], &fs)
			require.NoError(t, err)
			require.Equal(t, c.split, ok)
		})
	}
}

// A file split in halves after other files joins what they found.
func TestJSONLHalvesAfterOtherFiles(t *testing.T) {
	defer func(m int64) { minHalves = m }(minHalves)
	for _, first := range []string{`{"id":1,"gone":2,"w":null}` + "\n", `{"id":1,"W":2}` + "\n", `{"day":"2024-01-01T00:00:00+01:00"}` + "\n"} {
		spec := Spec{Paths: write(t, "a.jsonl", first, "b.jsonl", halvesText(40, "")), Format: "jsonl", Locate: []string{"id", "gone", "w", "tail"}}
		minHalves = 1 << 62
		one, oneErr := Scan(context.Background(), spec)
		minHalves = 1
		halves, halvesErr := Scan(context.Background(), spec)
		if oneErr != nil {
			require.EqualError(t, halvesErr, oneErr.Error())
			continue
		}
		require.NoError(t, halvesErr)
		require.Equal(t, one.Columns, halves.Columns)
		split := halves.files[1]
		require.Positive(t, split.half)
		split.half, split.halfLines, split.halfRows = 0, 0, 0
		require.Equal(t, one.files, []fileState{halves.files[0], split})
	}
}

// A JSON Lines file changed between the two passes is refused in either
// half, its line numbered in the whole file (changed in place: the
// halves' offsets hold).
func TestJSONLHalvesReadChanged(t *testing.T) {
	defer func(m int64) { minHalves = m }(minHalves)
	minHalves = 1
	text := halvesText(40, "")
	lines := strings.Split(text, "\n")
	for _, c := range []struct {
		name     string
		line     int // 0-based
		from, to string
		want     string
	}{
		{"a key renamed in the first half", 1, `"day"`, `"dax"`, "line 2"},
		{"a key renamed in the second half", len(lines) - 3, `"w"`, `"q"`, fmt.Sprintf("line %d", len(lines)-2)},
		{"a line more in the second half", len(lines) - 1, "", `{}`, "rows from offset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := jsonlSpec(t, text)
			changed := slices.Clone(lines)
			changed[c.line] = c.to
			if c.from != "" {
				changed[c.line] = strings.Replace(lines[c.line], c.from, c.to, 1)
			}
			one := readChanged(t, spec, text, strings.Join(changed, "\n"), 1<<62)
			halves := readChanged(t, spec, text, strings.Join(changed, "\n"), 1)
			requireChangedAlike(t, one, halves, c.want, c.from != "")
		})
	}
}
