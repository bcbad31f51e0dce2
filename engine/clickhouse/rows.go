package clickhouse

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/shopspring/decimal"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// Both paths write the reader's values as the table's column types hold
// them, never as text ClickHouse would parse: chDB from RowBinary (each
// value in the column type's own binary form), a server from clickhouse-go's
// native blocks (each value a Go value of the column's type, which
// clickhouse-go encodes without parsing).

// loadColumn is one column of a load: the table's type and the reader's.
type loadColumn struct {
	name string
	sql  string // the table's type, as spelled
	ch   chType
	in   input.Type
}

// loadColumns pairs the table's columns with the reader's batch, column
// by column, and refuses a pair whose values the table's type would not
// hold as they are (the runner types the input after the table, so this
// is a changed table or a bug).
func loadColumns(cols []engine.Column, b *input.Batch) ([]loadColumn, error) {
	if len(b.Cols) != len(cols) {
		return nil, fmt.Errorf("the input has %d columns and the table %d", len(b.Cols), len(cols))
	}
	out := make([]loadColumn, len(cols))
	for i, c := range cols {
		ct, err := parseType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		lc := loadColumn{name: c.Name, sql: c.Type, ch: ct, in: b.Cols[i].Type}
		if !lc.takes() {
			return nil, fmt.Errorf("column %q: the table's type %s does not hold the input's values (%s) as they are", c.Name, c.Type, lc.in)
		}
		out[i] = lc
	}
	return out, nil
}

// takes reports whether every value of the reader's type is one of the
// column type's, exactly.
func (c loadColumn) takes() bool {
	in, ct := c.in, c.ch
	switch ct.kind {
	case chBool:
		return in.Kind == input.Bool
	case chInt:
		return in.Kind == input.Int && in.Bits <= ct.bits
	case chFloat:
		return in.Kind == input.Float && in.Bits <= ct.bits
	case chDecimal:
		return in.Kind == input.Decimal && !in.IsAnyDecimal() && in.Precision-in.Scale <= ct.precision-ct.scale && in.Scale == ct.scale
	case chString:
		return in.Kind == input.Text || in.Kind == input.JSON || in.IsAnyDecimal()
	case chDate32:
		return in.Kind == input.Date
	case chDateTime64:
		want := input.Timestamp
		if ct.zone != "" {
			want = input.TimestampTZ
		}
		return in.Kind == want && in.Precision <= ct.precision
	}
	return false
}

// errNull is a NULL for a column that is not Nullable: ClickHouse would
// store its type's default instead (idem's sessions refuse that).
func (c loadColumn) errNull() error {
	return fmt.Errorf("column %q: the input has an empty value (NULL), which the table's %s cannot hold", c.name, c.sql)
}

// checkNulls refuses a batch with a NULL in a column that is not
// Nullable, before any of its rows is sent.
func checkNulls(lc []loadColumn, b *input.Batch) error {
	for j, c := range lc {
		if c.ch.nullable {
			continue
		}
		for _, null := range b.Cols[j].Null[:b.Len] {
			if null {
				return c.errNull()
			}
		}
	}
	return nil
}

// ticks is a time's microseconds in the DateTime64's unit.
func (c loadColumn) ticks(micros int64) int64 {
	p := c.ch.precision
	for ; p < 6; p++ {
		micros /= 10 // exact: the reader kept no more digits than the column (takes)
	}
	for ; p > 6; p-- {
		micros *= 10
	}
	return micros
}

// appendRowBinary appends row i's value in RowBinary: a Nullable's
// NULL flag, then the value in its type's binary form, little-endian.
func (c loadColumn) appendRowBinary(b []byte, v *input.Vector, i int) ([]byte, error) {
	if v.Null[i] {
		if !c.ch.nullable {
			return b, c.errNull()
		}
		return append(b, 1), nil
	}
	if c.ch.nullable {
		b = append(b, 0)
	}
	switch c.ch.kind {
	case chBool:
		if v.Bool[i] {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case chInt:
		return appendInt(b, v.Int[i], c.ch.bits/8), nil
	case chFloat:
		if c.ch.bits == 32 {
			return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v.Float[i]))), nil
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float[i])), nil
	case chDecimal:
		n := c.ch.bits / 8
		if v.Type.IsBig() {
			return appendBig(b, v.Big[i], n)
		}
		return appendInt(b, v.Int[i], n), nil
	case chString:
		s := v.Str[i]
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...), nil
	case chDate32:
		return appendInt(b, v.Int[i], 4), nil
	case chDateTime64:
		return appendInt(b, c.ticks(v.Int[i]), 8), nil
	}
	return b, fmt.Errorf("column %q: no binary form for %s", c.name, c.sql)
}

// appendInt appends x as a little-endian integer of n bytes (8 bytes and
// more: sign-extended). takes has checked that x fits.
func appendInt(b []byte, x int64, n int) []byte {
	switch n {
	case 1:
		return append(b, byte(x))
	case 2:
		return binary.LittleEndian.AppendUint16(b, uint16(x))
	case 4:
		return binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(x))
	ext := byte(0)
	if x < 0 {
		ext = 0xff
	}
	for range n - 8 {
		b = append(b, ext)
	}
	return b
}

var errWide = errors.New("a decimal wider than its column")

// appendBig appends x as a little-endian two's complement integer of n
// bytes (16 or 32).
func appendBig(b []byte, x *big.Int, n int) ([]byte, error) {
	if x.BitLen() >= n*8 {
		return b, errWide
	}
	var mag [32]byte
	x.FillBytes(mag[32-n:])
	neg := x.Sign() < 0
	carry := uint16(1)
	for j := 31; j >= 32-n; j-- { // least significant byte first
		c := mag[j]
		if neg { // two's complement: invert, add one
			s := uint16(^c) + carry
			c, carry = byte(s), s>>8
		}
		b = append(b, c)
	}
	return b, nil
}

// serverValue is row i's value as clickhouse-go appends it to the
// column: a Go value of the column's type (nil for NULL), which it
// encodes without parsing. Decimals are shopspring decimals at the
// column's scale; times are time.Time, whose instant clickhouse-go
// writes (a wall clock as UTC, the sessions' zone).
func (c loadColumn) serverValue(v *input.Vector, i int) (any, error) {
	if v.Null[i] {
		if !c.ch.nullable {
			return nil, c.errNull()
		}
		return nil, nil
	}
	switch c.ch.kind {
	case chBool:
		return v.Bool[i], nil
	case chInt:
		x := v.Int[i]
		switch c.ch.bits {
		case 8:
			return int8(x), nil
		case 16:
			return int16(x), nil
		case 32:
			return int32(x), nil
		}
		return x, nil
	case chFloat:
		if c.ch.bits == 32 {
			return float32(v.Float[i]), nil
		}
		return v.Float[i], nil
	case chDecimal:
		if v.Type.IsBig() {
			return decimal.NewFromBigInt(v.Big[i], -int32(c.ch.scale)), nil
		}
		return decimal.New(v.Int[i], -int32(c.ch.scale)), nil
	case chString:
		return v.Str[i], nil
	case chDate32:
		return input.DateOf(v.Int[i]), nil
	case chDateTime64:
		return time.UnixMicro(v.Int[i]).UTC(), nil
	}
	return nil, fmt.Errorf("column %q: no value for %s", c.name, c.sql)
}
