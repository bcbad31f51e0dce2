package postgres

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemdata/idem/input"
)

// A decoder sets v to a column's value from its bytes on the wire (never
// NULL: the rows say that). Text is borrowed, valid until the next row.
type decoder func(raw []byte, v *input.Value) error

// decoderOf gives a column's result format and decoder: binary for
// numbers, booleans, dates and times (decoded here, straight into a typed
// value), and the server's own text for the rest (text, JSON, UUID's
// canonical form, and numeric's every digit as PostgreSQL spells it). The
// values are those database/sql's pgx driver gives, typed: the same
// reader's values and the same fingerprint.
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
