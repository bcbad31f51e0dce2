package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

var _ engine.SourceReader = (*DB)(nil)

// ReadSource runs query as a source's: in a REPEATABLE READ transaction
// started WITH CONSISTENT SNAPSHOT, READ ONLY (one snapshot for the whole
// read), on a session opened read-only. Rows stream as the server sends
// them.
func (d *DB) ReadSource(ctx context.Context, query string) (engine.SourceRows, error) {
	for _, q := range []string{"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"} {
		if _, err := d.conn.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	end := func() error {
		_, err := d.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	rows, err := d.conn.QueryContext(ctx, query)
	if err != nil {
		return nil, errors.Join(err, end())
	}
	src, err := engine.NewSourceRows(rows, end, sourceType, func(v any) any { return v })
	if err != nil {
		rows.Close()
		return nil, errors.Join(err, end())
	}
	return src, nil
}

// sourceTypes are the reader's types of the server's types, as the driver
// names them. An unsigned integer takes the next wider type; an ENUM or SET
// is its text; MariaDB's JSON is LONGTEXT, read as text; a YEAR is its
// number (0 for the year 0000). Dates and times come as the server's text
// (OpenSource): a zero date is refused by the reader, naming the row.
var sourceTypes = map[string]input.Type{
	"TINYINT": {Kind: input.Int, Bits: 8}, "SMALLINT": {Kind: input.Int, Bits: 16},
	"MEDIUMINT": {Kind: input.Int, Bits: 32}, "INT": {Kind: input.Int, Bits: 32}, "BIGINT": input.BigIntType,
	"UNSIGNED TINYINT": {Kind: input.Int, Bits: 16}, "UNSIGNED SMALLINT": {Kind: input.Int, Bits: 32},
	"UNSIGNED MEDIUMINT": {Kind: input.Int, Bits: 32}, "UNSIGNED INT": input.BigIntType,
	"UNSIGNED BIGINT": input.DecimalType(20, 0),
	"FLOAT":           {Kind: input.Float, Bits: 32}, "DOUBLE": input.DoubleType,
	"CHAR": input.TextType, "VARCHAR": input.TextType, "TEXT": input.TextType, "TINYTEXT": input.TextType,
	"MEDIUMTEXT": input.TextType, "LONGTEXT": input.TextType, "ENUM": input.TextType, "SET": input.TextType,
	"YEAR": {Kind: input.Int, Bits: 16},
	"DATE": input.DateType, "DATETIME": input.TimestampType,
	"TIMESTAMP": input.TimestampTZType, // an instant, sent in the session's zone (+00:00)
	"JSON":      input.JSONType,
}

// sourceType maps a result column's type onto the reader's, refusing the
// types no reader type holds faithfully.
func sourceType(ct *sql.ColumnType) (input.Type, error) {
	name := ct.DatabaseTypeName()
	if t, ok := sourceTypes[name]; ok {
		return t, nil
	}
	if name == "DECIMAL" {
		p, s, ok := ct.DecimalSize()
		if ok && p >= 1 && p <= input.MaxPrecision && s >= 0 && s <= p {
			return input.DecimalType(int(p), int(s)), nil
		}
		return input.Type{Kind: input.Decimal}, nil
	}
	if name == "BOOLEAN" { // a BIT(n) column, as the driver's wrapper (boolRows) names every width
		return input.Type{}, fmt.Errorf("%w: column %q is BIT, whose width the driver does not tell (idem writes booleans as BIT(1), but a wider BIT read as a boolean would lose its bits); cast it in source.query (CAST(%s AS UNSIGNED))",
			engine.ErrSourceType, ct.Name(), Dialect{}.Ident(ct.Name()))
	}
	return input.Type{}, fmt.Errorf("%w: column %q is %s, which idem reads into no target type faithfully; cast it in source.query (to CHAR, DECIMAL, DATETIME…)",
		engine.ErrSourceType, ct.Name(), name)
}
