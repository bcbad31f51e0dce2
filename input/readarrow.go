package input

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// putColumn appends every value of arr to v in one loop, when arr's type
// maps onto v's without going through text: the same values that path
// gives, without a value's boxing. It returns false, v as it was, when
// the types do not map so, or when a value would be refused: the
// value-by-value path then decides, and words the refusal, as always.
func putColumn(v *Vector, arr arrow.Array, lim *Limits) bool {
	n0 := len(v.Null)
	if putColumnAs(v, arr, lim) {
		return true
	}
	v.truncate(n0)
	return false
}

func putColumnAs(v *Vector, arr arrow.Array, lim *Limits) bool {
	t := v.Type
	if cannotRefuse(arr.DataType(), t) {
		return putIntsOrBools(v, arr)
	}
	switch a := arr.(type) {
	case *array.Float64:
		return t == DoubleType && putFloats(v, a)
	case *array.Date32:
		return t.Kind == Date && putDates(v, a, lim)
	case *array.Timestamp:
		nat, _ := naturalType(a.DataType())
		return nat == t && putTimestamps(v, a, lim)
	case *array.String:
		return t == TextType && putStrings(v, a, a.ValueOffsets())
	case *array.LargeString:
		return t == TextType && putStrings(v, a, a.ValueOffsets())
	case *array.Decimal128:
		d := a.DataType().(*arrow.Decimal128Type)
		return t.Kind == Decimal && !t.IsAnyDecimal() && int(d.Scale) == t.Scale && putDecimals(v, a)
	}
	return false
}

// intBits is how many bits of a signed integer hold every value of an
// Arrow integer type.
var intBits = map[arrow.Type]int{arrow.INT8: 8, arrow.INT16: 16, arrow.INT32: 32, arrow.INT64: 64, arrow.UINT8: 16, arrow.UINT16: 32, arrow.UINT32: 64}

// cannotRefuse reports an Arrow type no value of which a column of t
// refuses: integers into integers as wide, booleans into booleans.
func cannotRefuse(dt arrow.DataType, t Type) bool {
	if dt.ID() == arrow.BOOL {
		return t.Kind == Bool
	}
	bits, ok := intBits[dt.ID()]
	return ok && t.Kind == Int && t.Bits >= bits
}

// putIntsOrBools puts integers or booleans into a column of their kind.
func putIntsOrBools(v *Vector, arr arrow.Array) bool {
	switch a := arr.(type) {
	case *array.Int8:
		return putInts(v, a, a.Int8Values())
	case *array.Int16:
		return putInts(v, a, a.Int16Values())
	case *array.Int32:
		return putInts(v, a, a.Int32Values())
	case *array.Int64:
		return putInts(v, a, a.Int64Values())
	case *array.Uint8:
		return putInts(v, a, a.Uint8Values())
	case *array.Uint16:
		return putInts(v, a, a.Uint16Values())
	case *array.Uint32:
		return putInts(v, a, a.Uint32Values())
	case *array.Boolean:
		return putBools(v, a)
	}
	return false
}

// truncate drops the values past the first n.
func (v *Vector) truncate(n int) {
	v.Null = v.Null[:n]
	switch {
	case v.Int != nil:
		v.Int = v.Int[:n]
	case v.Float != nil:
		v.Float = v.Float[:n]
	case v.Bool != nil:
		v.Bool = v.Bool[:n]
	case v.Big != nil:
		v.Big = v.Big[:n]
	case v.Str != nil:
		v.Str = v.Str[:n]
	}
}

// appendValid appends a value's NULL flag, and a zero value when arr's
// value i is NULL (then false: nothing more to append).
func appendValid(v *Vector, arr arrow.Array, i int) bool {
	if arr.IsNull(i) {
		v.appendNull()
		return false
	}
	v.Null = append(v.Null, false)
	return true
}

func putInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](v *Vector, arr arrow.Array, xs []T) bool {
	for i, x := range xs {
		if appendValid(v, arr, i) {
			v.Int = append(v.Int, int64(x))
		}
	}
	return true
}

func putBools(v *Vector, a *array.Boolean) bool {
	for i := 0; i < a.Len(); i++ {
		if appendValid(v, a, i) {
			v.Bool = append(v.Bool, a.Value(i))
		}
	}
	return true
}

func putFloats(v *Vector, a *array.Float64) bool {
	for i, f := range a.Float64Values() {
		if a.IsNull(i) {
			v.appendNull()
			continue
		}
		if f-f != 0 { // infinity or NaN: refused
			return false
		}
		v.Null = append(v.Null, false)
		v.Float = append(v.Float, f+0) // -0 is 0
	}
	return true
}

func putDates(v *Vector, a *array.Date32, lim *Limits) bool {
	for i, d := range a.Date32Values() {
		if a.IsNull(i) {
			v.appendNull()
			continue
		}
		if lim != nil && lim.check(v.Type, int64(d)) != nil {
			return false
		}
		v.Null = append(v.Null, false)
		v.Int = append(v.Int, int64(d))
	}
	return true
}

// The times the text form spells: years 1 to 9999, in microseconds.
var (
	minMicros = daysFromCivil(1, 1, 1) * microsPerDay
	maxMicros = (daysFromCivil(9999, 12, 31)+1)*microsPerDay - 1
)

func putTimestamps(v *Vector, a *array.Timestamp, lim *Limits) bool {
	unit := a.DataType().(*arrow.TimestampType).Unit
	for i, ts := range a.TimestampValues() {
		if a.IsNull(i) {
			v.appendNull()
			continue
		}
		x := timestampMicros(int64(ts), unit)
		if x < minMicros || x > maxMicros || lim != nil && lim.check(v.Type, x) != nil {
			return false
		}
		v.Null = append(v.Null, false)
		v.Int = append(v.Int, x)
	}
	return true
}

// putStrings copies the array's text once, and each value is a string
// into that copy (never reused, as an arena's chunks).
func putStrings[O int32 | int64](v *Vector, arr interface {
	arrow.Array
	ValueBytes() []byte
}, offs []O) bool {
	data := arr.ValueBytes()
	ascii := plainASCII(data)
	own := append([]byte(nil), data...)
	base := offs[0]
	for i := 0; i < arr.Len(); i++ {
		if !appendValid(v, arr, i) {
			continue
		}
		s := own[offs[i]-base : offs[i+1]-base]
		if !ascii && checkText(s) != nil {
			return false
		}
		v.Str = append(v.Str, unsafe.String(unsafe.SliceData(s), len(s)))
	}
	return true
}

// plainASCII reports text of ASCII bytes without a NUL: each part of it
// is valid text.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c == 0 || c >= 0x80 {
			return false
		}
	}
	return true
}

// putDecimals puts decimals of v's scale: their unscaled values, which
// must have at most v's precision of digits.
func putDecimals(v *Vector, a *array.Decimal128) bool {
	p := int32(v.Type.Precision)
	for i, x := range a.Values() {
		if !appendValid(v, a, i) {
			continue
		}
		if x.Abs().Sign() < 0 || !x.FitsInPrecision(p) { // the least value has no absolute
			return false
		}
		if v.Type.IsBig() {
			v.Big = append(v.Big, x.BigInt())
		} else {
			v.Int = append(v.Int, int64(x.LowBits()))
		}
	}
	return true
}
