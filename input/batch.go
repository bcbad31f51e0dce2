package input

import (
	"math/big"
	"unsafe"
)

// BatchRows is how many rows a Batch holds at most: one batch is in
// memory at a time (and one being read beside it).
const BatchRows = 65536

// Batch is rows of the input, a column at a time, every value typed.
type Batch struct {
	Len  int
	Cols []*Vector
	ar   *arena // the batch's text
}

// reset empties b to be filled again: its text is overwritten.
func (b *Batch) reset() {
	b.Len = 0
	for _, v := range b.Cols {
		v.truncate(0)
	}
	b.ar.reset()
}

// Vector is one column's values in a batch. Which slice holds them
// follows the column's Type.Kind:
//
//	Int                   Int (the value)
//	Decimal, Precision≤18 Int (the unscaled value: 12.50 in DECIMAL(9,2) is 1250)
//	Decimal, Precision>18 Big (the unscaled value)
//	Decimal, Precision 0  Str (plain digits, a point where the value has a fraction)
//	Float                 Float
//	Bool                  Bool
//	Date                  Int (days since 1970-01-01)
//	Timestamp             Int (microseconds since 1970-01-01 00:00, the wall clock)
//	TimestampTZ           Int (microseconds since 1970-01-01 00:00 UTC)
//	Text, JSON            Str (JSON as its canonical text)
//
// Null[i] is true for a NULL (the other slices then hold a zero value).
type Vector struct {
	Type  Type
	Null  []bool
	Int   []int64
	Float []float64
	Bool  []bool
	Big   []*big.Int
	Str   []string
}

// IsBig reports whether a Decimal's values are in Big.
func (t Type) IsBig() bool { return t.Kind == Decimal && t.Precision > 18 }

// IsAnyDecimal reports a Decimal of any precision and scale (Precision 0),
// whose values are in Str, each as its canonical text.
func (t Type) IsAnyDecimal() bool { return t.Kind == Decimal && t.Precision == 0 }

func newVector(t Type, n int) *Vector {
	v := &Vector{Type: t, Null: make([]bool, 0, n)}
	switch t.Kind {
	case Int, Date, Timestamp, TimestampTZ:
		v.Int = make([]int64, 0, n)
	case Decimal:
		if t.IsAnyDecimal() {
			v.Str = make([]string, 0, n)
		} else if t.IsBig() {
			v.Big = make([]*big.Int, 0, n)
		} else {
			v.Int = make([]int64, 0, n)
		}
	case Float:
		v.Float = make([]float64, 0, n)
	case Bool:
		v.Bool = make([]bool, 0, n)
	default:
		v.Str = make([]string, 0, n)
	}
	return v
}

// appendNull appends a NULL.
func (v *Vector) appendNull() {
	v.Null = append(v.Null, true)
	switch {
	case v.Int != nil:
		v.Int = append(v.Int, 0)
	case v.Float != nil:
		v.Float = append(v.Float, 0)
	case v.Bool != nil:
		v.Bool = append(v.Bool, false)
	case v.Big != nil:
		v.Big = append(v.Big, nil)
	default:
		v.Str = append(v.Str, "")
	}
}

// Text is the canonical text of row i's value, as a text sink sends it
// (ok false for NULL): integers and decimals in plain digits, floats in
// their shortest form, true and false, dates YYYY-MM-DD, timestamps
// YYYY-MM-DD HH:MM:SS[.ffffff] (TimestampTZ in UTC), text and JSON as
// they are.
func (v *Vector) Text(i int) (string, bool) {
	if v.Null[i] {
		return "", false
	}
	return string(v.AppendText(nil, i)), true
}

// AppendText appends Text's form of row i's value (nothing for NULL).
func (v *Vector) AppendText(b []byte, i int) []byte {
	if v.Null[i] {
		return b
	}
	switch v.Type.Kind {
	case Int:
		return appendInt(b, v.Int[i])
	case Decimal:
		if v.Type.IsAnyDecimal() {
			return append(b, v.Str[i]...)
		}
		if v.Type.IsBig() {
			return append(b, FormatDecimal(v.Big[i], v.Type.Scale)...)
		}
		return append(b, FormatDecimal64(v.Int[i], v.Type.Scale)...)
	case Float:
		return append(b, FormatFloat(v.Float[i], v.Type.Bits)...)
	case Bool:
		if v.Bool[i] {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Date:
		return AppendDate(b, v.Int[i])
	case Timestamp, TimestampTZ:
		return AppendTimestamp(b, v.Int[i])
	}
	return append(b, v.Str[i]...)
}

func appendInt(b []byte, x int64) []byte {
	var tmp [20]byte
	i := len(tmp)
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	for u >= 10 {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	tmp[i] = byte('0' + u)
	if x < 0 {
		b = append(b, '-')
	}
	return append(b, tmp[i:]...)
}

// arena holds a batch's text: strings point into its chunks, valid until
// the batch is released and refilled, which writes the chunks again.
type arena struct {
	chunk  []byte   // the chunk being filled
	chunks [][]byte // every chunk; used of them are in use
	used   int
}

// reset makes every chunk free to be written again.
func (a *arena) reset() { a.chunk, a.used = nil, 0 }

// next is an empty chunk: the next one held, else a new one.
func (a *arena) next() []byte {
	if a.used == len(a.chunks) {
		a.chunks = append(a.chunks, make([]byte, 0, 256<<10))
	}
	a.used++
	return a.chunks[a.used-1][:0]
}

func (a *arena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > 64<<10 {
		return string(b)
	}
	if cap(a.chunk)-len(a.chunk) < len(b) {
		a.chunk = a.next()
	}
	start := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	s := a.chunk[start:]
	return unsafe.String(unsafe.SliceData(s), len(s))
}
