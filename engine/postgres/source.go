package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

var _ engine.SourceReader = (*DB)(nil)

// ReadSource runs query as a source's: in a REPEATABLE READ READ ONLY
// transaction (one snapshot for the whole read), on a session opened
// read-only. Rows stream as the server sends them, read through pgx's
// protocol API rather than database/sql: each value is decoded from the
// wire straight into a typed input.Value, none boxed into an any.
func (d *DB) ReadSource(ctx context.Context, query string) (engine.SourceRows, error) {
	var pc *pgconn.PgConn
	var types *pgtype.Map
	if err := d.conn.Raw(func(dc any) error {
		c := dc.(*stdlib.Conn).Conn()
		pc, types = c.PgConn(), c.TypeMap()
		return nil
	}); err != nil {
		return nil, err
	}
	tx, err := d.conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	// The session is pinned to d.conn for the DB's life and busy with tx
	// until the rows are closed: database/sql uses it for nothing else
	// meanwhile, so its pgconn may be read outside Raw.
	rows, err := startRows(ctx, pc, types, query)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	rows.end = tx.Rollback
	return rows, nil
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

// sourceType maps a result column's type (its name as the driver gives
// it, and its type modifier) onto the reader's: every value of it is one
// of the reader's type, exactly; other types are refused.
func sourceType(col, name string, typmod int32) (input.Type, error) {
	if t, ok := sourceTypes[name]; ok {
		return t, nil
	}
	if name == "NUMERIC" {
		mod := typmod - 4 // as the driver reads a typmod: -1 (none) gives p 65535
		p, s := int64((mod>>16)&0xffff), int64(mod&0xffff)
		if p > 1000 || s > p || p > input.MaxPrecision { // no typmod: any precision
			return input.Type{Kind: input.Decimal}, nil
		}
		return input.DecimalType(int(p), int(s)), nil
	}
	return input.Type{}, fmt.Errorf("%w: column %q is %s, which idem reads into no target type faithfully; cast it in source.query (to text, numeric, timestamptz…)",
		engine.ErrSourceType, col, typeName(name))
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

// driverTypeName is a type's name as database/sql's pgx driver gives it:
// upper case, or the number of a type pgx does not know.
func driverTypeName(types *pgtype.Map, oid uint32) string {
	if t, ok := types.TypeForOID(oid); ok {
		return strings.ToUpper(t.Name)
	}
	return strconv.FormatInt(int64(oid), 10)
}

// startRows describes query (its columns' types, each refused or mapped),
// then runs it asking each column's values in the format decoded below.
func startRows(ctx context.Context, pc *pgconn.PgConn, types *pgtype.Map, query string) (*sourceRows, error) {
	sd, err := pc.Prepare(ctx, "", query, nil)
	if err != nil {
		return nil, err
	}
	r := &sourceRows{pc: pc}
	formats := make([]int16, len(sd.Fields))
	var refused []error
	for i, f := range sd.Fields {
		t, err := sourceType(f.Name, driverTypeName(types, f.DataTypeOID), f.TypeModifier)
		if err != nil {
			refused = append(refused, err)
		}
		r.cols = append(r.cols, input.Column{Name: f.Name, Type: t, Fixed: true})
		var dec decoder
		formats[i], dec = decoderOf(f.DataTypeOID)
		r.decs = append(r.decs, dec)
	}
	if len(refused) > 0 {
		return nil, errors.Join(refused...)
	}
	r.rr = pc.ExecPrepared(ctx, "", nil, nil, formats)
	return r, nil
}

// sourceRows are a source query's rows as pgconn reads them.
type sourceRows struct {
	pc   *pgconn.PgConn
	rr   *pgconn.ResultReader
	cols []input.Column
	decs []decoder
	end  func() error
	vals []input.Value // Next's, boxed from them
	err  error
}

func (s *sourceRows) Columns() []input.Column { return s.cols }

func (s *sourceRows) Typed() bool { return true }

func (s *sourceRows) NextValues(dest []input.Value) bool {
	if s.err != nil || !s.rr.NextRow() {
		return false
	}
	for i, raw := range s.rr.Values() {
		if raw == nil {
			dest[i] = input.Value{}
			continue
		}
		if s.err = s.decs[i](raw, &dest[i]); s.err != nil {
			s.err = fmt.Errorf("column %q: %w", s.cols[i].Name, s.err)
			return false
		}
	}
	return true
}

func (s *sourceRows) Next(dest []any) bool {
	if s.vals == nil {
		s.vals = make([]input.Value, len(s.cols))
	}
	if !s.NextValues(s.vals) {
		return false
	}
	for i, v := range s.vals {
		dest[i] = v.Boxed()
	}
	return true
}

func (s *sourceRows) Err() error {
	if s.err != nil {
		return s.err
	}
	_, err := s.rr.Close() // after the last row: the query's outcome
	if err != nil && s.pc.IsClosed() && lostConnection(err) == nil {
		// The socket closed mid-message (a session terminated while the
		// server sent a row): pgconn says only "unexpected EOF".
		err = fmt.Errorf("%w (%w)", pgconn.ErrConnClosed, err)
	}
	return err
}

func (s *sourceRows) Close() error {
	_, err := s.rr.Close()
	if s.err != nil {
		err = nil // said by Err
	}
	return errors.Join(err, s.end())
}
