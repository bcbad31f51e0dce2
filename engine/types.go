package engine

import (
	"fmt"
	"strings"
)

// Family groups column types whose values convert into one another without
// loss or reinterpretation, as far as schema-drift checks care.
type Family int

// Type families.
const (
	FamilyOther Family = iota
	FamilyText
	FamilyBool
	FamilyInteger
	FamilyDecimal
	FamilyFloat
	FamilyDate
	FamilyTimestamp // with or without zone: sessions are pinned to UTC
)

// FamilyOf classifies a type name as DuckDB or PostgreSQL (through
// database/sql) spell it.
func FamilyOf(sqlType string) Family {
	t := strings.ToUpper(strings.TrimSpace(unwrap(sqlType)))
	base, _, _ := strings.Cut(t, "(")
	base = strings.TrimSpace(base)
	if f, ok := clickHouseFamilies[base]; ok {
		return f
	}
	switch base {
	case "VARCHAR", "TEXT", "BPCHAR", "CHAR", "CHARACTER", "CHARACTER VARYING", "STRING", "NAME", "CITEXT":
		return FamilyText
	case "BOOLEAN", "BOOL":
		return FamilyBool
	case "TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
		"UBIGINT", "UHUGEINT", "INT2", "INT4", "INT8", "SERIAL", "BIGSERIAL":
		return FamilyInteger
	case "DECIMAL", "NUMERIC":
		return FamilyDecimal
	case "FLOAT", "DOUBLE", "REAL", "FLOAT4", "FLOAT8", "DOUBLE PRECISION":
		return FamilyFloat
	case "DATE":
		return FamilyDate
	}
	if strings.HasPrefix(base, "TIMESTAMP") || base == "DATETIME" {
		return FamilyTimestamp
	}
	return FamilyOther
}

// unwrap strips ClickHouse's Nullable(…) and LowCardinality(…), which
// change how a value is stored, not what it is.
func unwrap(typ string) string {
	t := strings.TrimSpace(typ)
	for _, w := range []string{"Nullable(", "LowCardinality("} {
		if strings.HasPrefix(t, w) && strings.HasSuffix(t, ")") {
			return unwrap(t[len(w) : len(t)-1])
		}
	}
	return t
}

// clickHouseFamilies are ClickHouse's type names (upper-cased) that the
// names above do not cover.
var clickHouseFamilies = map[string]Family{
	"INT8": FamilyInteger, "INT16": FamilyInteger, "INT32": FamilyInteger, "INT64": FamilyInteger,
	"INT128": FamilyInteger, "INT256": FamilyInteger, "UINT8": FamilyInteger, "UINT16": FamilyInteger,
	"UINT32": FamilyInteger, "UINT64": FamilyInteger, "UINT128": FamilyInteger, "UINT256": FamilyInteger,
	"FLOAT32": FamilyFloat, "FLOAT64": FamilyFloat, "FIXEDSTRING": FamilyText,
	"DATE32": FamilyDate, "DATETIME64": FamilyTimestamp,
	"DECIMAL32": FamilyDecimal, "DECIMAL64": FamilyDecimal, "DECIMAL128": FamilyDecimal, "DECIMAL256": FamilyDecimal,
}

// widens lists, for each family, the families whose values it takes
// without loss: an integer column takes no decimals (they would be
// rounded), a date takes no timestamps (the time would be cut off).
var widens = map[Family][]Family{
	FamilyDecimal:   {FamilyInteger},
	FamilyFloat:     {FamilyInteger, FamilyDecimal},
	FamilyTimestamp: {FamilyDate},
	FamilyText:      {FamilyInteger, FamilyDecimal, FamilyBool, FamilyDate, FamilyTimestamp},
}

// TypeChange describes a staged column whose type the target's column
// cannot take without loss; "" when it can. Types of a family idem does not
// classify are left to the database's own cast.
func TypeChange(column, staged, target string) string {
	s, t := FamilyOf(staged), FamilyOf(target)
	if s == t || s == FamilyOther || t == FamilyOther {
		return ""
	}
	for _, ok := range widens[t] {
		if ok == s {
			return ""
		}
	}
	return fmt.Sprintf("column %q is %s in the target but %s in the input", column, target, staged)
}
