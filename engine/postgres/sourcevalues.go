package postgres

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemdata/idem/input"
)

// A decoder sets v to a column's value from its bytes on the wire (never
// NULL: the rows say that). Text is borrowed, valid until the next row.
type decoder func(raw []byte, v *input.Value) error

// decoderOf gives a column's result format and decoder: pgtype's binary
// decoding for numbers, booleans, dates and times (into a typed value,
// none boxed), and the server's own text for the rest (text, JSON,
// UUID's canonical form, and numeric's every digit as PostgreSQL spells
// it). The values are those database/sql's pgx driver gives, typed: the
// same reader's values and the same fingerprint.
func decoderOf(types *pgtype.Map, oid uint32) (int16, decoder) {
	switch oid {
	case pgtype.Int2OID:
		return binaryOf(types, oid, func(x *int16, v *input.Value) { *v = input.Value{Kind: input.IntValue, Int: int64(*x)} })
	case pgtype.Int4OID:
		return binaryOf(types, oid, func(x *int32, v *input.Value) { *v = input.Value{Kind: input.IntValue, Int: int64(*x)} })
	case pgtype.Int8OID:
		return binaryOf(types, oid, func(x *int64, v *input.Value) { *v = input.Value{Kind: input.IntValue, Int: *x} })
	case pgtype.Float4OID:
		return binaryOf(types, oid, func(x *float32, v *input.Value) { *v = input.Value{Kind: input.FloatValue, Float: float64(*x)} })
	case pgtype.Float8OID:
		return binaryOf(types, oid, func(x *float64, v *input.Value) { *v = input.Value{Kind: input.FloatValue, Float: *x} })
	case pgtype.BoolOID:
		return binaryOf(types, oid, func(x *bool, v *input.Value) { *v = input.Value{Kind: input.BoolValue, Bool: *x} })
	case pgtype.DateOID:
		return binaryOf(types, oid, func(x *pgtype.Date, v *input.Value) { timeValue(v, x.Time, x.InfinityModifier) })
	case pgtype.TimestampOID:
		return binaryOf(types, oid, func(x *pgtype.Timestamp, v *input.Value) { timeValue(v, x.Time, x.InfinityModifier) })
	case pgtype.TimestamptzOID:
		return binaryOf(types, oid, func(x *pgtype.Timestamptz, v *input.Value) { timeValue(v, x.Time, x.InfinityModifier) })
	}
	return pgtype.TextFormatCode, func(raw []byte, v *input.Value) error {
		*v = input.Value{Kind: input.TextValue, Text: raw}
		return nil
	}
}

// binaryOf decodes a column's binary values with pgtype's plan for a T,
// then set makes the value of it.
func binaryOf[T any](types *pgtype.Map, oid uint32, set func(*T, *input.Value)) (int16, decoder) {
	x := new(T)
	plan := types.PlanScan(oid, pgtype.BinaryFormatCode, x)
	return pgtype.BinaryFormatCode, func(raw []byte, v *input.Value) error {
		if err := plan.Scan(raw, x); err != nil {
			return err
		}
		set(x, v)
		return nil
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
