package input

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// arrowOf builds an array of dt from values, nil for NULL.
func arrowOf(t *testing.T, dt arrow.DataType, values ...any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	for _, x := range values {
		if x == nil {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.Decimal128Builder:
			bb.Append(x.(decimal128.Num))
		default:
			require.NoError(t, b.AppendValueFromString(fmt.Sprint(x)))
		}
	}
	return b.NewArray()
}

// A column put in one loop holds what the value-by-value path gives, which
// takes it whole; a column of other types, or holding a value that path
// may refuse, is left to that path as it was (good: taken in one loop).
func TestPutColumnAsValueByValue(t *testing.T) {
	lim := &Limits{Engine: "E", HasDates: true, MinDate: daysFromCivil(1900, 1, 1), MaxDate: daysFromCivil(2299, 12, 31),
		HasTimes: true, MinTime: daysFromCivil(1900, 1, 1) * microsPerDay, MaxTime: daysFromCivil(2300, 1, 1)*microsPerDay - 1}
	ts := &arrow.TimestampType{Unit: arrow.Nanosecond}
	tsz := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	dec := &arrow.Decimal128Type{Precision: 12, Scale: 2}
	big38, _ := decimal128.FromString("-99999999999999999999999999999999999.999", 38, 3)
	cases := []struct {
		arr  arrow.Array
		t    Type
		good bool
	}{
		{arrowOf(t, arrow.PrimitiveTypes.Int8, -128, nil, 127), Type{Kind: Int, Bits: 16}, true},
		{arrowOf(t, arrow.PrimitiveTypes.Int8, -128, 127), Type{Kind: Int, Bits: 8}, true},
		{arrowOf(t, arrow.PrimitiveTypes.Uint8, 255, nil), Type{Kind: Int, Bits: 16}, true},
		{arrowOf(t, arrow.PrimitiveTypes.Uint8, 255, nil), Type{Kind: Int, Bits: 8}, false},
		{arrowOf(t, arrow.PrimitiveTypes.Int32, math.MinInt32, 0, nil), BigIntType, true},
		{arrowOf(t, arrow.PrimitiveTypes.Int64, int64(math.MinInt64), nil, 5), BigIntType, true},
		{arrowOf(t, arrow.PrimitiveTypes.Int64, 5), Type{Kind: Int, Bits: 32}, false},
		{arrowOf(t, arrow.PrimitiveTypes.Uint32, uint32(math.MaxUint32), nil), BigIntType, true},
		{arrowOf(t, arrow.FixedWidthTypes.Boolean, true, nil, false), BoolType, true},
		{arrowOf(t, arrow.PrimitiveTypes.Float64, "-0", nil, 0.1, 1e300), DoubleType, true},
		{arrowOf(t, arrow.PrimitiveTypes.Float64, 1, "NaN"), DoubleType, false},
		{arrowOf(t, arrow.PrimitiveTypes.Float64, "+Inf"), DoubleType, false},
		{arrowOf(t, arrow.FixedWidthTypes.Date32, "2026-11-28", nil, "1900-01-01"), DateType, true},
		{arrowOf(t, arrow.FixedWidthTypes.Date32, "2026-11-28", "1899-12-31"), DateType, false},
		{arrowOf(t, ts, "2026-11-28T13:45:00.123456789", nil, "1900-01-01T00:00:00"), TimestampType, true},
		{arrowOf(t, ts, "1899-12-31T23:59:59.999999999"), TimestampType, false},
		{arrowOf(t, tsz, "2026-11-28T13:45:00.123Z", nil), TimestampTZType, true},
		{arrowOf(t, tsz, "2026-11-28T13:45:00.123Z"), TimestampType, false},
		{arrowOf(t, arrow.BinaryTypes.String, "a", "", nil, "é€", "x"), TextType, true},
		{arrowOf(t, arrow.BinaryTypes.LargeString, "a", nil, "é"), TextType, true},
		{arrowOf(t, arrow.BinaryTypes.String, "a", "b\x00"), TextType, false},
		{arrowOf(t, arrow.BinaryTypes.String, "\xc3", "\xa9"), TextType, false},
		{arrowOf(t, arrow.BinaryTypes.String, "abc"), Type{Kind: Text, MaxChars: 2}, false},
		{arrowOf(t, dec, decimal128.FromI64(-1250), nil, decimal128.FromI64(999999999999)), DecimalType(12, 2), true},
		{arrowOf(t, dec, decimal128.FromI64(-1250), nil), DecimalType(38, 2), true},
		{arrowOf(t, dec, decimal128.FromI64(1250)), DecimalType(12, 3), false},
		{arrowOf(t, dec, decimal128.FromI64(1000000000000)), DecimalType(12, 2), false},
		{arrowOf(t, &arrow.Decimal128Type{Precision: 38, Scale: 3}, big38, nil), DecimalType(38, 3), true},
		{arrowOf(t, &arrow.Decimal128Type{Precision: 38, Scale: 0}, decimal128.New(math.MinInt64, 0)), DecimalType(38, 0), false},
	}
	for i, c := range cases {
		for _, arr := range []arrow.Array{c.arr, array.NewSlice(c.arr, 1, int64(c.arr.Len()))} {
			name := fmt.Sprintf("%d %s %s offset %d", i, arr.DataType(), c.t, arr.Data().Offset())
			fast, slow := newVector(c.t, 0), newVector(c.t, 0)
			ok := putColumn(fast, arr, lim)
			err := putValues(slow, arr, &arena{}, lim)
			if !ok {
				require.False(t, c.good && arr == c.arr, name)
				require.Empty(t, fast.Null, name)
				continue
			}
			require.True(t, c.good || arr != c.arr, name)
			require.NoError(t, err, name)
			require.Equal(t, vectorTexts(slow), vectorTexts(fast), name)
		}
	}
}

// vectorTexts is every value of v as text, NULL as NULL.
func vectorTexts(v *Vector) []string {
	var out []string
	for i := range v.Null {
		if s, ok := v.Text(i); ok {
			out = append(out, s)
		} else {
			out = append(out, "NULL")
		}
	}
	return out
}
