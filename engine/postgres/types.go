package postgres

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
	"github.com/idemdata/idem/input"
)

// maxNumericPrecision is the most digits numeric(p,s) takes.
const maxNumericPrecision = 1000

// ColumnType is the type of a new column for the reader's type t: the
// types new targets had before the reader (TEXT for text, JSONB for JSON),
// and SMALLINT for a TINYINT, which PostgreSQL lacks.
func (Dialect) ColumnType(t input.Type) string {
	switch t.Kind {
	case input.Text:
		if t.MaxChars > 0 {
			return fmt.Sprintf("VARCHAR(%d)", t.MaxChars)
		}
		return "TEXT"
	case input.Bool:
		return "BOOLEAN"
	case input.Int:
		switch t.Bits {
		case 8, 16:
			return "SMALLINT"
		case 32:
			return "INTEGER"
		}
		return "BIGINT"
	case input.Decimal:
		if t.Precision == 0 {
			return "NUMERIC"
		}
		return fmt.Sprintf("NUMERIC(%d,%d)", t.Precision, t.Scale)
	case input.Float:
		if t.Bits == 32 {
			return "REAL"
		}
		return "DOUBLE PRECISION"
	case input.Date:
		return "DATE"
	case input.Timestamp:
		if t.Precision < 6 {
			return fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
		}
		return "TIMESTAMP"
	case input.TimestampTZ:
		if t.Precision < 6 {
			return fmt.Sprintf("TIMESTAMPTZ(%d)", t.Precision)
		}
		return "TIMESTAMPTZ"
	case input.JSON:
		// json, not jsonb: it keeps the reader's text, which every engine
		// stores and compares (jsonb reorders keys and orders values its
		// own way, so rows tying on their version kept another row here).
		return "JSON"
	}
	return "TEXT"
}

// ReaderType is the reader's type for a column of sqlType, as format_type
// spells it (ColumnType's spellings are taken too). Refused: types that
// change what is written (character(n) pads it), and types the reader has
// no values of (uuid, inet, arrays, enums, time, interval, bytea, domains).
func (Dialect) ReaderType(sqlType string) (input.Type, bool) {
	c, ok := parseColumnType(sqlType)
	return c.Type, ok
}

// Limits: PostgreSQL's dates and timestamps cover years 1 to 9999.
func (Dialect) Limits() *input.Limits { return nil }

// columnType is a column's type as LoadRows writes it: the reader's type
// whose values it holds, and whether it is json (text) or jsonb (a
// version byte and the text).
type columnType struct {
	input.Type
	jsonText bool
}

// typeRE splits a type's spelling into its name, its arguments and what
// follows them: timestamp(3) with time zone, numeric(12,2), character
// varying(10).
var typeRE = regexp.MustCompile(`^([a-z][a-z ]*?)(?: ?\( ?([0-9]+) ?(?:, ?(-?[0-9]+) ?)?\)( [a-z ]+)?)?$`)

func parseColumnType(sqlType string) (columnType, bool) {
	s := strings.Join(strings.Fields(strings.ToLower(sqlType)), " ")
	m := typeRE.FindStringSubmatch(s)
	if m == nil {
		return columnType{}, false
	}
	name := m[1] + m[4]
	nargs := 0
	var a, b int
	if m[2] != "" {
		nargs++
		a, _ = strconv.Atoi(m[2])
	}
	if m[3] != "" {
		nargs++
		b, _ = strconv.Atoi(m[3])
	}
	if t, ok := plainColumnTypes[name]; ok {
		return t, nargs == 0
	}
	switch name {
	case "character varying", "varchar":
		switch {
		case nargs == 0:
			return columnType{Type: input.TextType}, true
		case nargs == 1 && a > 0:
			return columnType{Type: input.Type{Kind: input.Text, MaxChars: a}}, true
		}
	case "numeric", "decimal":
		return numericColumnType(nargs, a, b)
	case "timestamp", "timestamp without time zone", "timestamptz", "timestamp with time zone":
		return timestampColumnType(name, nargs, a)
	}
	return columnType{}, false
}

// plainColumnTypes are the types that take no arguments.
var plainColumnTypes = map[string]columnType{
	"smallint":         {Type: input.Type{Kind: input.Int, Bits: 16}},
	"int2":             {Type: input.Type{Kind: input.Int, Bits: 16}},
	"integer":          {Type: input.Type{Kind: input.Int, Bits: 32}},
	"int":              {Type: input.Type{Kind: input.Int, Bits: 32}},
	"int4":             {Type: input.Type{Kind: input.Int, Bits: 32}},
	"bigint":           {Type: input.BigIntType},
	"int8":             {Type: input.BigIntType},
	"real":             {Type: input.Type{Kind: input.Float, Bits: 32}},
	"float4":           {Type: input.Type{Kind: input.Float, Bits: 32}},
	"double precision": {Type: input.DoubleType},
	"float8":           {Type: input.DoubleType},
	"boolean":          {Type: input.BoolType},
	"bool":             {Type: input.BoolType},
	"date":             {Type: input.DateType},
	"text":             {Type: input.TextType},
	"jsonb":            {Type: input.JSONType},
	// json keeps its text as written: the reader's canonical text.
	"json": {Type: input.JSONType, jsonText: true},
}

// numericColumnType is numeric(a,b) with nargs arguments: any number
// without them.
func numericColumnType(nargs, a, b int) (columnType, bool) {
	switch {
	case nargs == 0:
		return columnType{Type: input.Type{Kind: input.Decimal}}, true
	case nargs == 1:
		b = 0
	}
	// A negative scale or one above the precision (allowed since
	// PostgreSQL 15) rounds what the reader would write.
	if a >= 1 && a <= maxNumericPrecision && b >= 0 && b <= a {
		return columnType{Type: input.DecimalType(a, b)}, true
	}
	return columnType{}, false
}

// timestampColumnType is the timestamp type name with nargs arguments, a
// being its precision (6 without one).
func timestampColumnType(name string, nargs, a int) (columnType, bool) {
	k := input.Timestamp
	if name == "timestamptz" || name == "timestamp with time zone" {
		k = input.TimestampTZ
	}
	switch {
	case nargs == 0:
		return columnType{Type: input.Type{Kind: k, Precision: 6}}, true
	case nargs == 1 && a <= 6:
		return columnType{Type: input.Type{Kind: k, Precision: a}}, true
	}
	return columnType{}, false
}

// CreateStage creates the temporary table the reader's rows are copied
// into.
func (d Dialect) CreateStage(stage string, cols []engine.Column) []string {
	return stdsql.Standard{D: d}.CreateStage(stage, cols)
}

// ColumnTypes reads each column's full type from the catalog (format_type:
// numeric(12,2), where database/sql says NUMERIC), in column order; an
// unqualified table is looked up in the connection's current schema, as
// TableExists does, never a temporary table of the same name.
func (d Dialect) ColumnTypes(t engine.Table) (string, []any) {
	schema, args := "current_schema()", []any{t.Name}
	if t.Schema != "" {
		schema, args = "$2", []any{t.Name, t.Schema}
	}
	return `SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute AS a
JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
WHERE c.relname = $1 AND n.nspname = ` + schema + ` AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`, args
}

// MarkJSON: a JSON column is of type json.
func (Dialect) MarkJSON(engine.Table, []string) []string { return nil }
