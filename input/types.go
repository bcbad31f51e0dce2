package input

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is what a value is, whatever engine stores it.
type Kind uint8

// Kinds of values. Each has one set of spellings it accepts (see Parse).
const (
	Text        Kind = iota + 1 // UTF-8 text without NUL bytes
	Bool                        // true or false
	Int                         // a signed integer of Type.Bits
	Decimal                     // an exact decimal of Type.Precision and Type.Scale (Precision 0: any, as written)
	Float                       // a binary floating point number of Type.Bits
	Date                        // a calendar date
	Timestamp                   // a date and time of day, without zone
	TimestampTZ                 // an instant
	JSON                        // a JSON value, kept as its canonical text
)

// MaxPrecision is the most digits a Decimal holds on every engine.
const MaxPrecision = 38

// MaxNameBytes is the longest column or table name every engine keeps as
// written: PostgreSQL cuts longer ones at 63 bytes without an error.
const MaxNameBytes = 63

// Type is a column's type as the reader decides it: the same on every
// engine, which maps it to a type of its own (engine.Types).
type Type struct {
	Kind Kind
	// Bits of an Int (8, 16, 32, 64) or a Float (32, 64).
	Bits int
	// Precision and Scale of a Decimal; Precision 0 is a decimal of any
	// precision and scale (PostgreSQL's NUMERIC), each value kept as
	// written. For a Timestamp or TimestampTZ, Precision is how many digits
	// of a second's fraction the column keeps (6: microseconds).
	Precision, Scale int
	// MaxChars bounds a Text (0: unbounded), for a target column that
	// holds at most that many characters.
	MaxChars int
}

// The types the reader infers.
var (
	TextType        = Type{Kind: Text}
	BoolType        = Type{Kind: Bool}
	BigIntType      = Type{Kind: Int, Bits: 64}
	DoubleType      = Type{Kind: Float, Bits: 64}
	DateType        = Type{Kind: Date}
	TimestampType   = Type{Kind: Timestamp, Precision: 6}
	TimestampTZType = Type{Kind: TimestampTZ, Precision: 6}
	JSONType        = Type{Kind: JSON}
)

// DecimalType is DECIMAL(p, s).
func DecimalType(p, s int) Type { return Type{Kind: Decimal, Precision: p, Scale: s} }

// String spells t as a job's columns: takes it.
func (t Type) String() string {
	switch t.Kind {
	case Text:
		if t.MaxChars > 0 {
			return fmt.Sprintf("VARCHAR(%d)", t.MaxChars)
		}
		return "VARCHAR"
	case Bool:
		return "BOOLEAN"
	case Int:
		switch t.Bits {
		case 8:
			return "TINYINT"
		case 16:
			return "SMALLINT"
		case 32:
			return "INTEGER"
		}
		return "BIGINT"
	case Decimal:
		if t.Precision == 0 {
			return "NUMERIC"
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case Float:
		if t.Bits == 32 {
			return "REAL"
		}
		return "DOUBLE"
	case Date:
		return "DATE"
	case Timestamp:
		if t.Precision != 6 {
			return fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
		}
		return "TIMESTAMP"
	case TimestampTZ:
		if t.Precision != 6 {
			return fmt.Sprintf("TIMESTAMPTZ(%d)", t.Precision)
		}
		return "TIMESTAMPTZ"
	case JSON:
		return "JSON"
	}
	return "unknown"
}

// IsTime reports whether t is a date or a timestamp.
func (t Type) IsTime() bool {
	return t.Kind == Date || t.Kind == Timestamp || t.Kind == TimestampTZ
}

// typeNames are the spellings ParseType takes for each type without
// arguments.
var typeNames = map[string]Type{
	"VARCHAR": TextType, "TEXT": TextType, "STRING": TextType,
	"BOOLEAN": BoolType, "BOOL": BoolType,
	"SMALLINT": {Kind: Int, Bits: 16}, "INT2": {Kind: Int, Bits: 16},
	"INTEGER": {Kind: Int, Bits: 32}, "INT": {Kind: Int, Bits: 32}, "INT4": {Kind: Int, Bits: 32},
	"BIGINT": BigIntType, "INT8": BigIntType,
	"REAL": {Kind: Float, Bits: 32}, "FLOAT4": {Kind: Float, Bits: 32},
	"DOUBLE": DoubleType, "DOUBLE PRECISION": DoubleType, "FLOAT8": DoubleType,
	"DATE":      DateType,
	"TIMESTAMP": TimestampType, "TIMESTAMP WITHOUT TIME ZONE": TimestampType, "DATETIME": TimestampType,
	"TIMESTAMPTZ": TimestampTZType, "TIMESTAMP WITH TIME ZONE": TimestampTZType,
	"JSON": JSONType, "JSONB": JSONType,
}

// TypeNames lists the spellings of columns: types, for messages.
const TypeNames = "VARCHAR (TEXT), BOOLEAN, SMALLINT, INTEGER, BIGINT, DECIMAL(p,s) (NUMERIC(p,s)), REAL, DOUBLE, DATE, TIMESTAMP, TIMESTAMPTZ, JSON"

// ParseType reads a type as a job's columns: gives it. Only the types
// every engine holds alike are known; a DECIMAL or NUMERIC without its
// precision and scale is refused, since engines give it different ones.
func ParseType(s string) (Type, error) {
	u := strings.Join(strings.Fields(strings.ToUpper(s)), " ")
	if t, ok := typeNames[u]; ok {
		return t, nil
	}
	name, args, hasArgs := strings.Cut(u, "(")
	name = strings.TrimSpace(name)
	if hasArgs && strings.HasSuffix(args, ")") {
		args = strings.TrimSuffix(args, ")")
		switch name {
		case "DECIMAL", "NUMERIC":
			p, sc, ok := decimalArgs(args)
			if !ok {
				return Type{}, fmt.Errorf("%q: %s takes a precision and a scale, like DECIMAL(18,4)", s, name)
			}
			if p < 1 || p > MaxPrecision || sc < 0 || sc > p {
				return Type{}, fmt.Errorf("%q: the precision must be 1 to %d and the scale 0 to the precision", s, MaxPrecision)
			}
			return DecimalType(p, sc), nil
		case "VARCHAR", "CHARACTER VARYING":
			n, err := strconv.Atoi(strings.TrimSpace(args))
			if err != nil || n < 1 {
				return Type{}, fmt.Errorf("%q: VARCHAR takes a length, like VARCHAR(100)", s)
			}
			return Type{Kind: Text, MaxChars: n}, nil
		}
	}
	switch name {
	case "FLOAT":
		return Type{}, fmt.Errorf("%q has 32 bits on some engines and 64 on others: write REAL or DOUBLE", s)
	case "DECIMAL", "NUMERIC":
		return Type{}, fmt.Errorf("%q needs a precision and a scale, like DECIMAL(18,4): without them engines keep different numbers of digits", s)
	}
	return Type{}, fmt.Errorf("%q is not a type idem reads; the types are %s", s, TypeNames)
}

func decimalArgs(args string) (p, s int, ok bool) {
	a, b, found := strings.Cut(args, ",")
	var err1, err2 error
	p, err1 = strconv.Atoi(strings.TrimSpace(a))
	if !found {
		return 0, 0, false
	}
	s, err2 = strconv.Atoi(strings.TrimSpace(b))
	return p, s, err1 == nil && err2 == nil
}
