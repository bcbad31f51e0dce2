package duckdb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
	"github.com/idemdata/idem/input"
)

// ColumnType is DuckDB's type for a column of reader type t.
func (Dialect) ColumnType(t input.Type) string {
	switch t.Kind {
	case input.Bool:
		return "BOOLEAN"
	case input.Int:
		switch t.Bits {
		case 8:
			return "TINYINT"
		case 16:
			return "SMALLINT"
		case 32:
			return "INTEGER"
		}
		return "BIGINT"
	case input.Decimal:
		if t.Precision == 0 { // any precision: DuckDB's widest exact decimal
			return "DECIMAL(38,10)"
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case input.Float:
		if t.Bits == 32 {
			return "FLOAT"
		}
		return "DOUBLE"
	case input.Date:
		return "DATE"
	case input.Timestamp:
		return "TIMESTAMP"
	case input.TimestampTZ:
		return "TIMESTAMPTZ"
	case input.JSON:
		return "JSON"
	}
	return "VARCHAR"
}

// ReaderType reads DuckDB's full type names (duckdb_columns' data_type).
func (Dialect) ReaderType(sqlType string) (input.Type, bool) {
	t := strings.ToUpper(strings.TrimSpace(sqlType))
	switch t {
	case "BOOLEAN":
		return input.BoolType, true
	case "TINYINT":
		return input.Type{Kind: input.Int, Bits: 8}, true
	case "SMALLINT":
		return input.Type{Kind: input.Int, Bits: 16}, true
	case "INTEGER":
		return input.Type{Kind: input.Int, Bits: 32}, true
	case "BIGINT":
		return input.BigIntType, true
	case "HUGEINT": // what earlier versions made of integers past BIGINT
		return input.DecimalType(input.MaxPrecision, 0), true
	case "FLOAT":
		return input.Type{Kind: input.Float, Bits: 32}, true
	case "DOUBLE":
		return input.DoubleType, true
	case "VARCHAR":
		return input.TextType, true
	case "DATE":
		return input.DateType, true
	case "TIMESTAMP", "TIMESTAMP_NS":
		return input.TimestampType, true
	case "TIMESTAMP_MS":
		return input.Type{Kind: input.Timestamp, Precision: 3}, true
	case "TIMESTAMP_S":
		return input.Type{Kind: input.Timestamp, Precision: 0}, true
	case "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ":
		return input.TimestampTZType, true
	case "JSON":
		return input.JSONType, true
	}
	if args, ok := strings.CutPrefix(t, "DECIMAL("); ok {
		p, s, found := strings.Cut(strings.TrimSuffix(args, ")"), ",")
		pn, err1 := strconv.Atoi(strings.TrimSpace(p))
		sn, err2 := strconv.Atoi(strings.TrimSpace(s))
		if found && err1 == nil && err2 == nil {
			return input.DecimalType(pn, sn), true
		}
	}
	return input.Type{}, false
}

// Limits: DuckDB's dates and timestamps hold every year the reader takes.
func (Dialect) Limits() *input.Limits { return nil }

// ColumnTypes lists a table's columns with their full types.
func (d Dialect) ColumnTypes(t engine.Table) (string, []any) {
	schema := t.Schema
	if schema == "" {
		schema = "main"
	}
	return "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 ORDER BY column_index",
		[]any{schema, t.Name}
}

// MarkJSON: a JSON column is of type JSON.
func (Dialect) MarkJSON(engine.Table, []string) []string { return nil }

// CreateStage creates the staging table the reader's rows are loaded into.
func (d Dialect) CreateStage(stage string, cols []engine.Column) []string {
	return stdsql.Standard{D: d}.CreateStage(stage, cols)
}
