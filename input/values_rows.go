package input

import (
	"strconv"
	"time"
)

// ValueKind says which field of a Value holds it.
type ValueKind uint8

// The kinds of a Value: the plain Go values Rows.Next hands over, unboxed.
const (
	NullValue  ValueKind = iota
	IntValue             // Int
	FloatValue           // Float (a REAL's value widened exactly)
	BoolValue            // Bool
	TextValue            // Text: text, JSON, a decimal's exact digits, or a value's own spelling ("infinity")
	TimeValue            // Time
)

// A Value is one value of a source's row as ValueRows hand it over: what
// Rows.Next would box into an any, typed. Text is borrowed from the
// driver's buffer and is valid only until the next row is read; the
// reader and the fingerprint copy what they keep.
type Value struct {
	Kind  ValueKind
	Bool  bool
	Int   int64
	Float float64
	Text  []byte
	Time  time.Time
}

// ValueRows are Rows that can also hand each row over as typed Values,
// none boxed into an any: the reader and the fingerprint take them as
// they would the same row from Next.
type ValueRows interface {
	Rows
	// Typed reports whether NextValues may be used instead of Next (a
	// wrapper's answer is that of the rows it wraps).
	Typed() bool
	// NextValues is Next with typed values: one per column.
	NextValues(dest []Value) bool
}

// IsTyped reports whether rows hand their values over typed (ValueRows).
func IsTyped(rows Rows) bool {
	vr, ok := rows.(ValueRows)
	return ok && vr.Typed()
}

// putTyped appends v, a value of the source's type src, to vec exactly as
// putValue appends the same value boxed. It returns the text it read, for
// messages (in buf: never the borrowed bytes, which buf is reused after).
func putTyped(vec *Vector, v *Value, src Type, buf []byte, ar *arena, lim *Limits) ([]byte, error) {
	t := vec.Type
	switch v.Kind {
	case NullValue:
		vec.appendNull()
		return buf, nil
	case IntValue:
		if t.Kind == Int {
			err := putInt(vec, v.Int)
			if err != nil {
				buf = strconv.AppendInt(buf, v.Int, 10)
			}
			return buf, err
		}
		buf = strconv.AppendInt(buf, v.Int, 10)
	case TimeValue:
		if t.Kind == src.Kind && t.IsTime() && (t.Kind == Date || t.Precision == 6) {
			err := putTime(vec, v.Time, lim)
			if err != nil {
				buf, _ = appendTime(buf, v.Time, src)
			}
			return buf, err
		}
		var err error
		if buf, err = appendTime(buf, v.Time, src); err != nil {
			return buf, err
		}
	case TextValue:
		if err := putText(vec, v.Text, ar, lim); err != nil {
			return append(buf, v.Text...), err
		}
		return buf, nil
	case FloatValue:
		buf = appendFloat(buf, v.Float, src)
	case BoolValue:
		buf = strconv.AppendBool(buf, v.Bool)
	}
	return buf, putText(vec, buf, ar, lim)
}

// Boxed is v as Rows.Next hands it over (its text copied).
func (v Value) Boxed() any {
	switch v.Kind {
	case IntValue:
		return v.Int
	case FloatValue:
		return v.Float
	case BoolValue:
		return v.Bool
	case TextValue:
		return string(v.Text)
	case TimeValue:
		return v.Time
	}
	return nil
}
