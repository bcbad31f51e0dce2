package duckdb

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

var _ engine.SourceReader = (*DB)(nil)

// ReadSource runs query as a source's: the file was opened with
// access_mode READ_ONLY (no statement can write it), and the query runs in
// one transaction, whose snapshot holds for the whole read. Rows stream a
// chunk at a time.
func (d *DB) ReadSource(ctx context.Context, query string) (engine.SourceRows, error) {
	tx, err := d.conn.BeginTx(ctx, nil) // the driver takes no READ ONLY option; the file is
	if err != nil {
		return nil, err
	}
	return engine.ReadInTx(ctx, tx, query, sourceType, plainValue)
}

// sourceTypes are the reader's types of DuckDB's types that ReaderType
// does not know: unsigned integers take the next wider type, a UUID and
// an ENUM are their text (the driver reads an ENUM's label).
var sourceTypes = map[string]input.Type{
	"UTINYINT": {Kind: input.Int, Bits: 16}, "USMALLINT": {Kind: input.Int, Bits: 32},
	"UINTEGER": input.BigIntType, "UBIGINT": input.DecimalType(20, 0),
	"UUID": input.TextType, "ENUM": input.TextType,
}

// sourceType maps a result column's type onto the reader's, refusing the
// types no reader type holds faithfully.
func sourceType(ct *sql.ColumnType) (input.Type, error) {
	name := strings.ToUpper(ct.DatabaseTypeName())
	if t, ok := sourceTypes[name]; ok {
		return t, nil
	}
	hint := "cast it in source.query (to VARCHAR, DECIMAL, TIMESTAMPTZ…)"
	if name == "JSON" { // the driver unmarshals it, numbers into float64
		hint = "cast it to VARCHAR in source.query, and declare it JSON under columns:"
	} else if t, ok := (Dialect{}).ReaderType(name); ok {
		return t, nil
	}
	return input.Type{}, fmt.Errorf("%w: column %q is %s, which idem reads into no target type faithfully; %s",
		engine.ErrSourceType, ct.Name(), name, hint)
}

// plainValue turns the driver's value types into input.Rows' plain ones.
func plainValue(v any) any {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case duck.Decimal:
		return input.FormatDecimal(x.Value, int(x.Scale))
	case []byte: // only a UUID: BLOB is refused by sourceType
		if len(x) == 16 {
			h := hex.EncodeToString(x)
			return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		}
	}
	return v
}
