package input_test

import (
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/input"
)

var hashCols = []input.Column{
	{Name: "id", Type: input.BigIntType},
	{Name: "name", Type: input.TextType},
	{Name: "amount", Type: input.Type{Kind: input.Decimal, Precision: 12, Scale: 2}},
	{Name: "at", Type: input.Type{Kind: input.TimestampTZ, Precision: 6}},
	{Name: "f", Type: input.DoubleType},
	{Name: "ok", Type: input.BoolType},
}

func hashRows(t *testing.T, cols []input.Column, rows [][]any) string {
	t.Helper()
	h := input.HashRows(&fakeRows{cols: cols, rows: rows})
	dest := make([]any, len(cols))
	n := 0
	for h.Next(dest) {
		n++
	}
	require.NoError(t, h.Err())
	require.EqualValues(t, n, h.Hash.Rows())
	return h.Hash.Fingerprint()
}

func hashSample() [][]any {
	at := time.Date(2026, 11, 28, 10, 0, 0, 123456000, time.UTC)
	return [][]any{
		{int64(1), "a", "12.50", at, 0.1, true},
		{int64(2), "", nil, nil, nil, nil},
		{int64(3), nil, "-7.00", at.Add(time.Hour), -2.0, false},
		{int64(3), nil, "-7.00", at.Add(time.Hour), -2.0, false}, // a repeated row counts twice
	}
}

// The fingerprint of a source's rows depends on the rows, not on their
// order; a changed value, NULL for empty text, a dropped repeat or another
// column name changes it.
func TestRowsFingerprint(t *testing.T) {
	base := hashRows(t, hashCols, hashSample())
	require.Len(t, base, 32)
	rev := hashSample()
	slices.Reverse(rev)
	require.Equal(t, base, hashRows(t, hashCols, rev), "the same rows in another order")

	for name, change := range map[string]func([][]any) [][]any{
		"one value":        func(r [][]any) [][]any { r[0][2] = "12.51"; return r },
		"NULL, not empty":  func(r [][]any) [][]any { r[1][1] = nil; return r },
		"empty, not NULL":  func(r [][]any) [][]any { r[2][1] = ""; return r },
		"one repeat fewer": func(r [][]any) [][]any { return r[:3] },
		"a time":           func(r [][]any) [][]any { r[0][3] = r[0][3].(time.Time).Add(time.Microsecond); return r },
		"a boolean":        func(r [][]any) [][]any { r[0][5] = false; return r },
		"two values swapped between rows": func(r [][]any) [][]any {
			r[0][1], r[2][1] = r[2][1], r[0][1]
			return r
		},
	} {
		require.NotEqual(t, base, hashRows(t, hashCols, change(hashSample())), name)
	}
	renamed := slices.Clone(hashCols)
	renamed[1].Name = "label"
	require.NotEqual(t, base, hashRows(t, renamed, hashSample()), "another column name")
}

// A value is hashed by what it is, not by the Go type a driver gave it:
// an integer as int64, uint64 or *big.Int, text as a string or bytes, an
// instant in any zone, a REAL as float32 or widened to float64.
func TestRowsFingerprintCanonical(t *testing.T) {
	cols := []input.Column{{Name: "n", Type: input.Type{Kind: input.Decimal, Precision: 20}}, {Name: "s", Type: input.TextType},
		{Name: "at", Type: input.Type{Kind: input.TimestampTZ, Precision: 6}}, {Name: "r", Type: input.Type{Kind: input.Float, Bits: 32}}}
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	paris := time.FixedZone("CET", 3600)
	a := hashRows(t, cols, [][]any{{int64(7), "x", at, float32(1.5)}})
	require.Equal(t, a, hashRows(t, cols, [][]any{{uint64(7), []byte("x"), at.In(paris), 1.5}}))
	require.Equal(t, a, hashRows(t, cols, [][]any{{big.NewInt(7), "x", at, float32(1.5)}}))
	require.NotEqual(t, a, hashRows(t, cols, [][]any{{int64(-7), "x", at, float32(1.5)}}))

	// A wall-clock timestamp is its wall clock, whatever zone it came in.
	wall := []input.Column{{Name: "w", Type: input.Type{Kind: input.Timestamp, Precision: 6}}}
	require.NotEqual(t, hashRows(t, wall, [][]any{{at}}), hashRows(t, wall, [][]any{{at.In(paris)}}))
	require.Equal(t, hashRows(t, wall, [][]any{{at}}), hashRows(t, wall, [][]any{{time.Date(2026, 11, 28, 10, 0, 0, 0, paris)}}))
}

// Reading rows through the reader in batches does not change their
// fingerprint: it is taken row by row as they are read, a batch's size
// aside.
func TestRowsFingerprintThroughReader(t *testing.T) {
	var rows [][]any
	for i := range int64(3*input.BatchRows + 5) {
		rows = append(rows, []any{i, "x", nil, nil, nil, nil})
	}
	want := hashRows(t, hashCols, rows)
	h := input.HashRows(&fakeRows{cols: hashCols, rows: rows})
	types := make([]input.Type, len(hashCols))
	for i, c := range hashCols {
		types[i] = c.Type
	}
	out, err := readAll(t, h, types)
	require.NoError(t, err)
	require.Len(t, out, len(rows))
	require.Equal(t, want, h.Hash.Fingerprint())
	slices.Reverse(rows)
	require.Equal(t, want, hashRows(t, hashCols, rows))
}

func BenchmarkRowsHash(b *testing.B) {
	h := input.NewRowsHash(hashCols)
	row := hashSample()[0]
	for b.Loop() {
		h.Add(row)
	}
}
