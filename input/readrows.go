package input

import (
	"context"
	"math/big"
	"strconv"
	"time"
)

// Rows is a query's result as a source database's engine hands it over:
// each column typed by the source's type (the engine's mapping, which
// refuses a type without a faithful reader type), each value a plain Go
// value. The reader decides every value from there, as it does a file's.
type Rows interface {
	// Columns are the result's columns, each with the reader's type for
	// the source column's values.
	Columns() []Column
	// Next sets dest (one per column) to the next row's values: nil for
	// NULL, int64, uint64, float64, float32, bool, string, []byte,
	// time.Time, *big.Int, or a decimal as its exact text (a string). It
	// returns false after the last row or on an error (Err).
	Next(dest []any) bool
	// Err is why Next returned false early (nil at the end of the rows).
	Err() error
}

// SourceName is how the reader's messages name a source database's rows
// ("source row 12: column "amount": …").
const SourceName = "source"

// CheckSourceName refuses a source column's name that engines cannot keep
// alike (too long for PostgreSQL, a NUL, a trailing blank…), as a file's
// header name is refused.
func CheckSourceName(name string) error { return checkName(SourceName, 0, name) }

// ReadRows reads a source database's rows into typed batches, as Read does
// a file's: each value becomes a value of types[i] (the target column's
// type, or the source's own), exactly, or the read fails naming the row and
// the column. Rows are read as they arrive, a batch at a time: memory holds
// at most two batches, whatever the number of rows.
func ReadRows(ctx context.Context, rows Rows, types []Type, lim *Limits) *Reader {
	newBatch := func() *Batch {
		b := &Batch{Cols: make([]*Vector, len(types)), ar: &arena{}}
		for i, t := range types {
			b.Cols[i] = newVector(t, BatchRows)
		}
		return b
	}
	return startReader(ctx, newBatch, func(ctx context.Context, out *sink) error {
		return readRows(ctx, rows, types, lim, out)
	})
}

func readRows(ctx context.Context, rows Rows, types []Type, lim *Limits, out *sink) error {
	cols := rows.Columns()
	next, putRow := rowPutter(rows, cols, lim)
	b, ar := out.batch()
	for line := 1; next(); line++ {
		if i, buf, err := putRow(b, ar); err != nil {
			err = at(err, SourceName, line, cols[i].Name, buf)
			if e, ok := err.(*Error); ok {
				e.Unit = "row"
			}
			return err
		}
		b.Len++
		if b.Len == BatchRows {
			if err := out.send(b); err != nil {
				return err
			}
			b, ar = out.batch()
		}
		if line%BatchRows == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if b.Len > 0 {
		return out.send(b)
	}
	return nil
}

// rowPutter reads rows' next row (next) and appends its values to a batch
// (putRow, which returns the column and text of a value refused): typed
// when the rows can hand them over so (ValueRows), else boxed.
func rowPutter(rows Rows, cols []Column, lim *Limits) (next func() bool, putRow func(*Batch, *arena) (int, []byte, error)) {
	var buf []byte
	var err error
	if IsTyped(rows) {
		vr, dest := rows.(ValueRows), make([]Value, len(cols))
		return func() bool { return vr.NextValues(dest) }, func(b *Batch, ar *arena) (int, []byte, error) {
			for i := range dest {
				if buf, err = putTyped(b.Cols[i], &dest[i], cols[i].Type, buf[:0], ar, lim); err != nil {
					return i, buf, err
				}
			}
			return 0, nil, nil
		}
	}
	dest := make([]any, len(cols))
	return func() bool { return rows.Next(dest) }, func(b *Batch, ar *arena) (int, []byte, error) {
		for i, v := range dest {
			if buf, err = putValue(b.Cols[i], v, cols[i].Type, buf[:0], ar, lim); err != nil {
				return i, buf, err
			}
		}
		return 0, nil, nil
	}
}

// putValue appends v, a value of the source's type src, to vector v as
// the reader reads its text: the rules that decide a file's values decide
// a database's. It returns the text it read, for messages.
func putValue(vec *Vector, v any, src Type, buf []byte, ar *arena, lim *Limits) ([]byte, error) {
	if v == nil {
		vec.appendNull()
		return buf, nil
	}
	if ok, err := putDirect(vec, v, src, lim); ok || err != nil {
		if err != nil {
			buf, _ = appendValueText(buf, v, src)
		}
		return buf, err
	}
	buf, err := appendValueText(buf, v, src)
	if err != nil {
		return buf, err
	}
	return buf, putText(vec, buf, ar, lim)
}

// putText appends the value a source's value reads as, given its text b
// (which put copies what it keeps of).
func putText(vec *Vector, b []byte, ar *arena, lim *Limits) error {
	if len(b) == 0 && vec.Type.Kind != Text {
		return reasonf("is empty text, which a %s column holds only as NULL", vec.Type)
	}
	return put(vec, field{quoted: true, b: b}, ar, lim)
}

// putDirect appends the values whose reading by text would give the same
// value and the same refusals without the text: an integer into an
// integer column, a time into a column of its own kind (ok false: read
// it by its text).
func putDirect(vec *Vector, v any, src Type, lim *Limits) (ok bool, err error) {
	t := vec.Type
	switch x := v.(type) {
	case int64:
		if t.Kind != Int {
			return false, nil
		}
		return true, putInt(vec, x)
	case time.Time:
		if t.Kind != src.Kind || !t.IsTime() || t.Kind != Date && t.Precision != 6 {
			return false, nil
		}
		return true, putTime(vec, x, lim)
	}
	return false, nil
}

// putInt appends an integer to an integer column, refusing one out of its
// range.
func putInt(vec *Vector, x int64) error {
	if t := vec.Type; t.Bits < 64 && (x < -1<<(t.Bits-1) || x > 1<<(t.Bits-1)-1) {
		return reasonf("is out of range for a %d-bit integer (%d to %d)", t.Bits, int64(-1)<<(t.Bits-1), int64(1)<<(t.Bits-1)-1)
	}
	vec.Null, vec.Int = append(vec.Null, false), append(vec.Int, x)
	return nil
}

// putTime appends a date, a wall-clock timestamp or an instant (in UTC)
// as days or microseconds since 1970-01-01, as the reader's text would.
func putTime(vec *Vector, x time.Time, lim *Limits) error {
	if vec.Type.Kind == TimestampTZ {
		x = x.UTC()
	}
	// Its wall clock read as UTC: the seconds plus its zone's offset, one
	// look-up where Year, Month… would each work the calendar out again.
	_, off := x.Zone()
	sec := x.Unix() + int64(off)
	if sec < minMicros/microsPerSecond || sec > maxMicros/microsPerSecond {
		return reasonf("is outside the years 1 to 9999 that every engine holds")
	}
	ns := x.Nanosecond()
	if ns%1000 != 0 {
		return reasonf("has nanoseconds, which no engine idem writes keeps (it would round them)")
	}
	n := sec*microsPerSecond + int64(ns/1000)
	if vec.Type.Kind == Date {
		if n%microsPerDay != 0 {
			return reasonf("is not a date: a DATE column would drop its time of day")
		}
		n /= microsPerDay
	}
	if err := lim.check(vec.Type, n); err != nil {
		return err
	}
	vec.Null, vec.Int = append(vec.Null, false), append(vec.Int, n)
	return nil
}

// appendValueText appends the text the reader reads v as: numbers in
// plain digits, times in the form of the source column's kind (an instant
// with its UTC offset, so that its zone is kept).
func appendValueText(b []byte, v any, src Type) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return append(b, x...), nil
	case []byte:
		return append(b, x...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return appendFloat(b, x, src), nil
	case float32:
		return strconv.AppendFloat(b, float64(x), 'g', -1, 32), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case *big.Int:
		return x.Append(b, 10), nil
	case time.Time:
		return appendTime(b, x, src)
	}
	return b, reasonf("is a %T, a value the reader does not know", v)
}

// appendFloat appends x's shortest text; a REAL the driver widened, its
// shortest text as a REAL.
func appendFloat(b []byte, x float64, src Type) []byte {
	if src.Kind == Float && src.Bits == 32 && float64(float32(x)) == x {
		return strconv.AppendFloat(b, x, 'g', -1, 32)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// appendTime writes a date, a wall-clock timestamp or an instant as the
// reader's text for it; years outside 1 to 9999 are refused, not moved.
func appendTime(b []byte, t time.Time, src Type) ([]byte, error) {
	if src.Kind == TimestampTZ {
		t = t.UTC()
	}
	if y := t.Year(); y < 1 || y > 9999 {
		return appendRefusedTime(b, t, src), reasonf("is outside the years 1 to 9999 that every engine holds")
	}
	if t.Nanosecond()%1000 != 0 {
		return appendRefusedTime(b, t, src), reasonf("has nanoseconds, which no engine idem writes keeps (it would round them)")
	}
	switch src.Kind {
	case Date:
		return t.AppendFormat(b, "2006-01-02"), nil
	case TimestampTZ:
		return append(t.AppendFormat(b, "2006-01-02 15:04:05.999999"), "+00:00"...), nil
	}
	return t.AppendFormat(b, "2006-01-02 15:04:05.999999"), nil
}

// appendRefusedTime writes a time the reader refuses, for its message, as
// the source spells it: every digit of its second, an instant's offset.
func appendRefusedTime(b []byte, t time.Time, src Type) []byte {
	b = t.AppendFormat(b, "2006-01-02 15:04:05.999999999")
	if src.Kind == TimestampTZ {
		b = append(b, "+00:00"...)
	}
	return b
}
