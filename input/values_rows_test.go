package input_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/input"
)

// valueRows are fakeRows handed over typed: each value as ValueRows give
// it, its text in a buffer overwritten by the next row (as a driver's).
type valueRows struct {
	fakeRows
	buf []byte
}

func (r *valueRows) Typed() bool { return true }

func (r *valueRows) NextValues(dest []input.Value) bool {
	if r.i == len(r.rows) {
		return false
	}
	r.buf = r.buf[:0]
	for i, v := range r.rows[r.i] {
		switch x := v.(type) {
		case nil:
			dest[i] = input.Value{}
		case int64:
			dest[i] = input.Value{Kind: input.IntValue, Int: x}
		case float64:
			dest[i] = input.Value{Kind: input.FloatValue, Float: x}
		case bool:
			dest[i] = input.Value{Kind: input.BoolValue, Bool: x}
		case time.Time:
			dest[i] = input.Value{Kind: input.TimeValue, Time: x}
		case string:
			start := len(r.buf)
			r.buf = append(r.buf, x...)
			dest[i] = input.Value{Kind: input.TextValue, Text: r.buf[start:len(r.buf):len(r.buf)]}
		}
	}
	r.i++
	return true
}

// Rows handed over typed give the reader's values, refusals and the
// fingerprint of the same rows boxed; their borrowed text is copied.
func TestReadRowsTyped(t *testing.T) {
	types := make([]input.Type, len(hashCols))
	for i, c := range hashCols {
		types[i] = c.Type
	}
	rows := hashSample()
	for i := range 2*input.BatchRows + 3 {
		rows = append(rows, []any{int64(i), "row é " + string(rune('a'+i%26)), "1.00", nil, float64(i) / 4, i%2 == 0})
	}
	for _, rows := range [][][]any{rows, {{int64(1), "x", "1.005", nil, nil, nil}}} {
		boxed := input.HashRows(&fakeRows{cols: hashCols, rows: rows})
		typed := input.HashRows(&valueRows{fakeRows: fakeRows{cols: hashCols, rows: rows}})
		require.True(t, input.IsTyped(typed))
		want, wantErr := readAll(t, boxed, types)
		got, gotErr := readAll(t, typed, types)
		require.Equal(t, len(rows) == 1, gotErr != nil, "1.005 is refused, naming its row")
		require.Equal(t, wantErr, gotErr)
		require.Equal(t, want, got)
		require.Equal(t, boxed.Hash.Fingerprint(), typed.Hash.Fingerprint())
	}
}
