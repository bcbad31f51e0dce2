package postgres

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemdata/idem/input"
)

// A decoder sets v to a column's value from its bytes on the wire (never
// NULL: the rows say that). Text is borrowed, valid until the next row.
type decoder func(raw []byte, v *input.Value) error

// decoderOf gives a column's result format and decoder: binary for
// numbers, booleans, dates and times (decoded here, straight into a typed
// value; numeric into its every digit as PostgreSQL spells it, which the
// server's own text would cost it more to write), and the server's own
// text for the rest (text, JSON, UUID's canonical form). The values are
// those database/sql's pgx driver gives, typed: the same reader's values
// and the same fingerprint.
func decoderOf(oid uint32) (int16, decoder) {
	switch oid {
	case pgtype.Int2OID:
		return binaryOf("int2", 2, func(raw []byte, v *input.Value) { *v = intValue(int64(int16(binary.BigEndian.Uint16(raw)))) })
	case pgtype.Int4OID:
		return binaryOf("int4", 4, func(raw []byte, v *input.Value) { *v = intValue(int64(int32(binary.BigEndian.Uint32(raw)))) })
	case pgtype.Int8OID:
		return binaryOf("int8", 8, func(raw []byte, v *input.Value) { *v = intValue(int64(binary.BigEndian.Uint64(raw))) })
	case pgtype.Float4OID:
		return binaryOf("float4", 4, func(raw []byte, v *input.Value) {
			*v = input.Value{Kind: input.FloatValue, Float: float64(math.Float32frombits(binary.BigEndian.Uint32(raw)))}
		})
	case pgtype.Float8OID:
		return binaryOf("float8", 8, func(raw []byte, v *input.Value) {
			*v = input.Value{Kind: input.FloatValue, Float: math.Float64frombits(binary.BigEndian.Uint64(raw))}
		})
	case pgtype.BoolOID:
		return binaryOf("bool", 1, func(raw []byte, v *input.Value) { *v = input.Value{Kind: input.BoolValue, Bool: raw[0] == 1} })
	case pgtype.DateOID:
		return binaryOf("date", 4, decodeDate)
	case pgtype.TimestampOID:
		return binaryOf("timestamp", 8, func(raw []byte, v *input.Value) { decodeMicros(raw, v, time.UTC) })
	case pgtype.TimestamptzOID:
		return binaryOf("timestamptz", 8, func(raw []byte, v *input.Value) { decodeMicros(raw, v, time.Local) })
	case pgtype.NumericOID:
		var buf []byte // this column's text, valid until the next row
		return pgtype.BinaryFormatCode, func(raw []byte, v *input.Value) (err error) {
			buf, err = appendNumeric(buf[:0], raw)
			*v = input.Value{Kind: input.TextValue, Text: buf}
			return err
		}
	}
	return pgtype.TextFormatCode, func(raw []byte, v *input.Value) error {
		*v = input.Value{Kind: input.TextValue, Text: raw}
		return nil
	}
}

// binaryOf decodes a column's binary values of size bytes with set.
func binaryOf(typ string, size int, set func([]byte, *input.Value)) (int16, decoder) {
	return pgtype.BinaryFormatCode, func(raw []byte, v *input.Value) error {
		if len(raw) != size {
			return fmt.Errorf("%s: %d bytes on the wire, want %d", typ, len(raw), size)
		}
		set(raw, v)
		return nil
	}
}

func intValue(x int64) input.Value { return input.Value{Kind: input.IntValue, Int: x} }

// PostgreSQL's dates and timestamps count from 2000-01-01: days (int32)
// and microseconds (int64), the largest and the least being ±infinity.
const (
	y2kDays = 10957 // 1970-01-01 to 2000-01-01
	y2kSecs = y2kDays * 86400
)

// decodeDate sets a date, at midnight UTC as pgtype decodes it.
func decodeDate(raw []byte, v *input.Value) {
	switch d := int32(binary.BigEndian.Uint32(raw)); d {
	case math.MaxInt32:
		timeValue(v, time.Time{}, pgtype.Infinity)
	case math.MinInt32:
		timeValue(v, time.Time{}, pgtype.NegativeInfinity)
	default:
		timeValue(v, time.Unix((int64(d)+y2kDays)*86400, 0).UTC(), pgtype.Finite)
	}
}

// decodeMicros sets a timestamp (in UTC: its wall clock) or an instant
// (in loc, as pgtype gives it), split into seconds and microseconds so
// that the greatest PostgreSQL holds does not overflow.
func decodeMicros(raw []byte, v *input.Value, loc *time.Location) {
	switch us := int64(binary.BigEndian.Uint64(raw)); us {
	case math.MaxInt64:
		timeValue(v, time.Time{}, pgtype.Infinity)
	case math.MinInt64:
		timeValue(v, time.Time{}, pgtype.NegativeInfinity)
	default:
		timeValue(v, time.Unix(y2kSecs+us/1_000_000, us%1_000_000*1000).In(loc), pgtype.Finite)
	}
}

// timeValue sets a date or time, or infinity as the driver spells it (a
// text the reader refuses, naming the row).
func timeValue(v *input.Value, t time.Time, inf pgtype.InfinityModifier) {
	if inf != pgtype.Finite {
		*v = input.Value{Kind: input.TextValue, Text: []byte(inf.String())}
		return
	}
	*v = input.Value{Kind: input.TimeValue, Time: t}
}

// numeric's binary form: a header of four 16-bit fields (the number of
// digits, the weight of the first, the sign, the display scale), then the
// digits, base 10000, most significant first.
const (
	numericPos  = 0x0000
	numericNeg  = 0x4000
	numericNaN  = 0xC000
	numericPInf = 0xD000
	numericNInf = 0xF000
)

// appendNumeric appends a numeric's binary value as PostgreSQL's
// numeric_out spells it: every digit of the integer part (0 when there is
// none), then exactly the display scale's digits after the point; NaN and
// the infinities as their names (which the reader refuses, naming the row).
func appendNumeric(b, raw []byte) ([]byte, error) {
	if len(raw) < 8 {
		return b, fmt.Errorf("numeric: %d bytes on the wire, want at least 8", len(raw))
	}
	n := int(binary.BigEndian.Uint16(raw))
	weight := int(int16(binary.BigEndian.Uint16(raw[2:])))
	sign := binary.BigEndian.Uint16(raw[4:])
	dscale := int(int16(binary.BigEndian.Uint16(raw[6:])))
	if len(raw) != 8+2*n || dscale < 0 {
		return b, fmt.Errorf("numeric: %d bytes on the wire for %d digits", len(raw), n)
	}
	switch sign {
	case numericNaN:
		return append(b, "NaN"...), nil
	case numericPInf:
		return append(b, "Infinity"...), nil
	case numericNInf:
		return append(b, "-Infinity"...), nil
	case numericNeg:
		b = append(b, '-')
	case numericPos:
	default:
		return b, fmt.Errorf("numeric: sign %#04x", sign)
	}
	digit := func(i int) int { // the i-th base-10000 digit, 0 past the last
		if i < 0 || i >= n {
			return 0
		}
		return int(binary.BigEndian.Uint16(raw[8+2*i:]))
	}
	if weight < 0 {
		b = append(b, '0')
	} else {
		b = strconv.AppendInt(b, int64(digit(0)), 10)
		for i := 1; i <= weight; i++ {
			b = appendPadded(b, digit(i), 4)
		}
	}
	if dscale == 0 {
		return b, nil
	}
	b = append(b, '.')
	for i, left := weight+1, dscale; left > 0; i, left = i+1, left-4 {
		b = appendPadded(b, digit(i)/pow10[4-min(left, 4)], min(left, 4))
	}
	return b, nil
}

var pow10 = [5]int{1, 10, 100, 1000, 10000}

// appendPadded appends d as exactly width decimal digits.
func appendPadded(b []byte, d, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		b = append(b, byte('0'+d/pow10[i]%10))
	}
	return b
}
