package input_test

import (
	"context"
	"errors"
	"io"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/input"
)

// fakeRows is a source's result held in memory.
type fakeRows struct {
	cols []input.Column
	rows [][]any
	i    int
	err  error
}

func (f *fakeRows) Columns() []input.Column { return f.cols }
func (f *fakeRows) Err() error              { return f.err }
func (f *fakeRows) Next(dest []any) bool {
	if f.i == len(f.rows) {
		return false
	}
	copy(dest, f.rows[f.i])
	f.i++
	return true
}

// readAll reads rows into types and returns each row's values as text.
func readAll(t *testing.T, rows input.Rows, types []input.Type) ([][]string, error) {
	t.Helper()
	r := input.ReadRows(context.Background(), rows, types, nil)
	defer r.Close()
	var out [][]string
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		for i := 0; i < b.Len; i++ {
			var row []string
			for _, v := range b.Cols {
				s, ok := v.Text(i)
				if !ok {
					s = "NULL"
				}
				row = append(row, s)
			}
			out = append(out, row)
		}
	}
}

func TestReadRowsKeepsEveryValue(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	cols := []input.Column{
		{Name: "i", Type: input.BigIntType}, {Name: "u", Type: input.DecimalType(20, 0)},
		{Name: "d", Type: input.DecimalType(38, 10)}, {Name: "n", Type: input.Type{Kind: input.Decimal}},
		{Name: "f", Type: input.DoubleType}, {Name: "b", Type: input.BoolType}, {Name: "s", Type: input.TextType},
		{Name: "day", Type: input.DateType}, {Name: "ts", Type: input.TimestampType}, {Name: "tz", Type: input.TimestampTZType},
		{Name: "j", Type: input.JSONType},
	}
	types := make([]input.Type, len(cols))
	for i, c := range cols {
		types[i] = c.Type
	}
	huge, _ := new(big.Int).SetString("18446744073709551615", 10)
	rows := &fakeRows{cols: cols, rows: [][]any{
		{int64(-9223372036854775808), huge, "9999999999999999999999999999.9999999999", "123456789012345678901234567890.123456789",
			1.7976931348623157e308, true, "Zoë 🎉", time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC),
			time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC), time.Date(2026, 11, 28, 1, 30, 0, 0, berlin), []byte(`{"a": [1, 2.50]}`)},
		{nil, nil, nil, nil, nil, nil, "", nil, nil, nil, nil},
	}}
	got, err := readAll(t, rows, types)
	require.NoError(t, err)
	require.Equal(t, [][]string{
		{"-9223372036854775808", "18446744073709551615", "9999999999999999999999999999.9999999999", "123456789012345678901234567890.123456789",
			"1.7976931348623157e+308", "true", "Zoë 🎉", "2026-11-28", "9999-12-31 23:59:59.999999", "2026-11-28 00:30:00", `{"a":[1,2.50]}`},
		{"NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "", "NULL", "NULL", "NULL", "NULL"},
	}, got, "the instant is kept (00:30 UTC), empty text is not NULL")
}

// A time is read by its wall clock (an instant's in UTC) at the edges of
// the years every engine holds, whatever its zone.
func TestReadRowsTimesAtTheEdges(t *testing.T) {
	east, west := time.FixedZone("", 5*3600+1800), time.FixedZone("", -8*3600)
	for _, c := range []struct {
		typ  input.Type
		v    time.Time
		want string // its text, or (not starting with a digit) the refusal
	}{
		{input.TimestampType, time.Date(1, 1, 1, 0, 0, 0, 0, east), "0001-01-01 00:00:00"},
		{input.TimestampType, time.Date(9999, 12, 31, 23, 59, 59, 999999000, west), "9999-12-31 23:59:59.999999"},
		{input.TimestampType, time.Date(2026, 3, 29, 2, 30, 0, 123000, west), "2026-03-29 02:30:00.000123"},
		{input.TimestampTZType, time.Date(1, 1, 1, 5, 30, 0, 0, east), "0001-01-01 00:00:00"},
		{input.TimestampTZType, time.Date(9999, 12, 31, 16, 0, 0, 0, west), "years 1 to 9999"},
		{input.TimestampType, time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC), "years 1 to 9999"},
		{input.TimestampType, time.Date(10000, 1, 1, 0, 0, 0, 0, west), "years 1 to 9999"},
		{input.DateType, time.Date(2026, 11, 28, 0, 0, 0, 0, east), "2026-11-28"},
		{input.DateType, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "0001-01-01"},
		{input.DateType, time.Date(2026, 11, 28, 0, 0, 0, 1000, time.UTC), "not a date"},
		{input.TimestampType, time.Date(2026, 11, 28, 0, 0, 0, 999, east), "nanoseconds"},
	} {
		rows := &fakeRows{cols: []input.Column{{Name: "c", Type: c.typ}}, rows: [][]any{{c.v}}}
		got, err := readAll(t, rows, []input.Type{c.typ})
		if c.want[0] > '9' {
			require.ErrorContains(t, err, c.want, "%v", c.v)
			continue
		}
		require.NoError(t, err, "%v", c.v)
		require.Equal(t, [][]string{{c.want}}, got, "%v", c.v)
	}
}

func TestReadRowsRefusesRatherThanNarrow(t *testing.T) {
	for _, c := range []struct {
		name string
		src  input.Type
		dst  input.Type
		v    any
		msg  string
	}{
		{"int into smaller", input.BigIntType, input.Type{Kind: input.Int, Bits: 32}, int64(1) << 40, `source row 1: column "c": "1099511627776" `},
		{"decimal digits", input.Type{Kind: input.Decimal}, input.DecimalType(9, 2), "1.005", `"1.005"`},
		{"nanoseconds", input.TimestampType, input.TimestampType, time.Date(2026, 1, 1, 0, 0, 0, 1, time.UTC), "nanoseconds"},
		{"year 10000", input.TimestampTZType, input.TimestampTZType, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "years 1 to 9999"},
		{"instant into wall clock", input.TimestampTZType, input.TimestampType, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "UTC offset"},
		{"empty text into a number", input.TextType, input.BigIntType, "", "empty text"},
		{"NaN", input.DoubleType, input.DoubleType, "NaN", "infinity and NaN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := &fakeRows{cols: []input.Column{{Name: "c", Type: c.src}}, rows: [][]any{{c.v}}}
			_, err := readAll(t, rows, []input.Type{c.dst})
			require.ErrorContains(t, err, c.msg)
			var ie *input.Error
			require.ErrorAs(t, err, &ie)
			require.Equal(t, "row", ie.Unit)
		})
	}
}

// A source's error ends the read with it.
func TestReadRowsSourceError(t *testing.T) {
	boom := errors.New("connection lost")
	rows := &fakeRows{cols: []input.Column{{Name: "c", Type: input.BigIntType}}, rows: [][]any{{int64(1)}}, err: boom}
	_, err := readAll(t, rows, []input.Type{input.BigIntType})
	require.ErrorIs(t, err, boom)
}
