package clickhouse

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// A source column's ClickHouse type maps onto the reader's type that holds
// every value of it, or is refused naming the column.
func TestSourceType(t *testing.T) {
	for typ, want := range map[string]input.Type{
		"Int8": {Kind: input.Int, Bits: 8}, "Nullable(Int64)": input.BigIntType,
		"UInt8": {Kind: input.Int, Bits: 16}, "UInt16": {Kind: input.Int, Bits: 32}, "UInt32": input.BigIntType,
		"UInt64": input.DecimalType(20, 0), "Int128": input.DecimalType(38, 0), "UInt128": input.DecimalType(38, 0),
		"Int256": {Kind: input.Decimal}, "Decimal(76, 50)": {Kind: input.Decimal}, "Decimal(38, 10)": input.DecimalType(38, 10),
		"Nullable(Decimal(9, 2))": input.DecimalType(9, 2), "Float32": {Kind: input.Float, Bits: 32}, "Bool": input.BoolType,
		"LowCardinality(Nullable(String))": input.TextType, "UUID": input.TextType, "Enum8('a' = 1, 'b' = 2)": input.TextType,
		"Date": input.DateType, "Date32": input.DateType, "DateTime": {Kind: input.Timestamp},
		"DateTime('Europe/Paris')": {Kind: input.TimestampTZ}, "DateTime64(3)": {Kind: input.Timestamp, Precision: 3},
		"Nullable(DateTime64(9, 'UTC'))": input.TimestampTZType, "JSON": input.JSONType,
	} {
		got, err := sourceTypeOf("c", typ)
		require.NoError(t, err, typ)
		require.Equal(t, want, got, typ)
	}
	for _, typ := range []string{"Array(Int32)", "Map(String, Int32)", "Tuple(Int32, String)", "Nested(a Int32)", "IPv4", "IPv6",
		"FixedString(3)", "Time", "Time64(3)", "IntervalDay", "Nullable(Nothing)", "Variant(Int32, String)", "Dynamic", "DateTime64(10)"} {
		_, err := sourceTypeOf("c", typ)
		require.ErrorIs(t, err, engine.ErrSourceType, typ)
		require.ErrorContains(t, err, `column "c" is `, typ)
	}
	_, err := serverSourceTypeOf("doc", "JSON")
	require.ErrorContains(t, err, `column "doc" is JSON, which a ClickHouse server sends in a form idem does not read`)
}

// The source's query is read as a subquery: a trailing semicolon and a
// closing comment keep it whole.
func TestSourceSelect(t *testing.T) {
	require.Equal(t, "SELECT * FROM (\nSELECT 1 -- one\n)", sourceSelect("SELECT 1 -- one"))
	require.Equal(t, "SELECT * FROM (\nSELECT 1\n)", sourceSelect("SELECT 1;\n "))
}

// A server source sends the query as a subquery, without arguments, and
// reads its values as chDB's driver does: a Decimal its exact text, an
// UInt64 past int64 its digits, a zoned time its instant.
func TestServerReadSource(t *testing.T) {
	f := &fakeCH{result: map[string][][]any{}, types: map[string][]string{}}
	s := openFake(t, f)
	q := sourceSelect("SELECT * FROM orders")
	at := time.Date(2026, 11, 28, 13, 0, 0, 0, time.FixedZone("", 9*3600))
	f.result[q] = [][]any{{int64(1), decimal.RequireFromString("-12345678901234567890.1234567890"), uint64(18446744073709551615), at, nil}}
	f.types[q] = []string{"Int64", "Decimal(38, 10)", "UInt64", "DateTime64(6, 'Asia/Tokyo')", "Nullable(String)"}
	rows, err := s.ReadSource(t.Context(), "SELECT * FROM orders")
	require.NoError(t, err)
	defer rows.Close()
	var kinds []input.Kind
	for _, c := range rows.Columns() {
		kinds = append(kinds, c.Type.Kind)
	}
	require.Equal(t, []input.Kind{input.Int, input.Decimal, input.Decimal, input.TimestampTZ, input.Text}, kinds)
	dest := make([]any, 5)
	require.True(t, rows.Next(dest))
	require.Equal(t, []any{int64(1), "-12345678901234567890.123456789", "18446744073709551615", at, nil}, dest)
	require.False(t, rows.Next(dest))
	require.NoError(t, rows.Err())
	require.Equal(t, q, f.stmts[len(f.stmts)-1])
	require.Zero(t, f.args)

	f.types[q] = []string{"Int64", "Array(Int32)", "UInt64", "JSON", "String"}
	_, err = s.ReadSource(t.Context(), "SELECT * FROM orders")
	require.ErrorIs(t, err, engine.ErrSourceType)
	require.ErrorContains(t, err, `column "c1" is Array(Int32)`)
	require.ErrorContains(t, err, `column "c3" is JSON`)
}
