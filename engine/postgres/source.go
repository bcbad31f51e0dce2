package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

var _ engine.SourceReader = (*DB)(nil)

// ReadSource runs query as a source's: in a REPEATABLE READ READ ONLY
// transaction (one snapshot for the whole read), on a session opened
// read-only. Rows stream as the server sends them.
func (d *DB) ReadSource(ctx context.Context, query string) (engine.SourceRows, error) {
	tx, err := d.conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return engine.ReadInTx(ctx, tx, query, sourceType, func(v any) any { return v })
}

// sourceTypes are the reader's types of PostgreSQL's types that take no
// argument, as the driver names them.
var sourceTypes = map[string]input.Type{
	"INT2": {Kind: input.Int, Bits: 16}, "INT4": {Kind: input.Int, Bits: 32}, "INT8": input.BigIntType,
	"FLOAT4": {Kind: input.Float, Bits: 32}, "FLOAT8": input.DoubleType,
	"TEXT": input.TextType, "VARCHAR": input.TextType, "BPCHAR": input.TextType, "NAME": input.TextType,
	"UUID": input.TextType, // its canonical text: no engine idem writes shares one UUID type
	"BOOL": input.BoolType, "DATE": input.DateType,
	"TIMESTAMP": input.TimestampType, "TIMESTAMPTZ": input.TimestampTZType,
	"JSON": input.JSONType, "JSONB": input.JSONType,
}

// sourceType maps a result column's type onto the reader's: every value
// of it is one of the reader's type, exactly; other types are refused.
func sourceType(ct *sql.ColumnType) (input.Type, error) {
	name := ct.DatabaseTypeName()
	if t, ok := sourceTypes[name]; ok {
		return t, nil
	}
	if name == "NUMERIC" {
		p, s, ok := ct.DecimalSize()
		switch {
		case !ok || p > 1000 || s > p: // numeric without a typmod: any precision
			return input.Type{Kind: input.Decimal}, nil
		case p > input.MaxPrecision:
			return input.Type{Kind: input.Decimal}, nil
		}
		return input.DecimalType(int(p), int(s)), nil
	}
	return input.Type{}, fmt.Errorf("%w: column %q is %s, which idem reads into no target type faithfully; cast it in source.query (to text, numeric, timestamptz…)",
		engine.ErrSourceType, ct.Name(), typeName(name))
}

// oidNames name the built-in types the driver knows by number only.
var oidNames = map[string]string{"790": "MONEY", "1266": "TIMETZ"}

// typeName is a driver's type name as a user knows it: an array is
// _INT4, an enum or domain its number.
func typeName(name string) string {
	if len(name) > 1 && name[0] == '_' {
		return name[1:] + "[] (an array)"
	}
	if n, ok := oidNames[name]; ok {
		return n
	}
	if name != "" && name[0] >= '0' && name[0] <= '9' {
		return "a type of this database (an enum, a domain or an extension's type, oid " + name + ")"
	}
	return name
}
