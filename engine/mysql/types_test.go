package mysql

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/input"
)

// Existing columns as the catalog spells them (MariaDB with display
// widths, MySQL 8 without), and the reader's type their values are read
// as.
func TestReaderTypeOfExistingColumns(t *testing.T) {
	for typ, want := range map[string]input.Type{
		"tinyint(1)":             {Kind: input.Int, Bits: 8}, // MySQL's BOOLEAN holds -128 to 127
		"tinyint(4)":             {Kind: input.Int, Bits: 8},
		"tinyint(3) unsigned":    {Kind: input.Int, Bits: 16},
		"smallint(5) unsigned":   {Kind: input.Int, Bits: 32},
		"mediumint(9)":           {Kind: input.Int, Bits: 32},
		"mediumint(8) unsigned":  {Kind: input.Int, Bits: 32},
		"int(11)":                {Kind: input.Int, Bits: 32},
		"int":                    {Kind: input.Int, Bits: 32},
		"int(10) unsigned":       input.BigIntType,
		"int unsigned":           input.BigIntType,
		"bigint(20)":             input.BigIntType,
		"bigint(20) unsigned":    input.DecimalType(20, 0),
		"bit(1)":                 input.BoolType,
		"decimal(12,2)":          input.DecimalType(12, 2),
		"decimal(12, 2)":         input.DecimalType(12, 2),
		"decimal(65,30)":         input.DecimalType(65, 30),
		"float":                  {Kind: input.Float, Bits: 32},
		"double":                 input.DoubleType,
		"varchar(40)":            {Kind: input.Text, MaxChars: 40},
		"tinytext":               {Kind: input.Text, MaxChars: 63},
		"text":                   {Kind: input.Text, MaxChars: 16383},
		"mediumtext":             {Kind: input.Text, MaxChars: 4194303},
		"longtext":               input.TextType,
		"json":                   input.JSONType,
		"date":                   input.DateType,
		"datetime":               {Kind: input.Timestamp, Precision: 0},
		"datetime(3)":            {Kind: input.Timestamp, Precision: 3},
		"datetime(6)":            input.TimestampType,
		"timestamp":              {Kind: input.TimestampTZ, Precision: 0},
		"timestamp(6)":           input.TimestampTZType,
		"TIMESTAMP(6) NULL":      input.TimestampTZType,
		"BIGINT":                 input.BigIntType,
		"DECIMAL(38,10)":         input.DecimalType(38, 10),
		"VARCHAR(255)":           {Kind: input.Text, MaxChars: 255},
		"LONGTEXT":               input.TextType,
		"BIT(1)":                 input.BoolType,
		"DATETIME(6)":            input.TimestampType,
		"  int(11)   unsigned  ": input.BigIntType,
	} {
		got, ok := Dialect{}.ReaderType(typ)
		require.True(t, ok, typ)
		require.Equal(t, want, got, typ)
	}
}

// Types idem cannot write exactly, or the reader has no values for.
func TestReaderTypeRefuses(t *testing.T) {
	for _, typ := range []string{
		"char(10)",       // pads, and strips trailing spaces when read
		"float(7,3)",     // rounds to 3 digits
		"double(10,2)",   // rounds to 2 digits
		"float unsigned", // deprecated, and no reader type
		"decimal(10,2) unsigned",
		"int(10) unsigned zerofill", // prints padded digits
		"bit(8)",
		"enum('a','b')", "set('a','b')",
		"blob", "longblob", "binary(16)", "varbinary(10)",
		"year(4)", "year", "time", "time(6)",
		"geometry", "point", "uuid", "inet6", "inet4",
		"longtext character set latin1",
		"datetime(7)", "varchar", "varchar(0)", "decimal(x,2)", "",
	} {
		_, ok := Dialect{}.ReaderType(typ)
		require.False(t, ok, typ)
	}
	// MySQL's JSON stores numbers as doubles: 5.70 reads back as 5.7.
	_, ok := Dialect{MySQL: true}.ReaderType("json")
	require.False(t, ok)
	require.Equal(t, "LONGTEXT", Dialect{MySQL: true}.ColumnType(input.JSONType))
}

// The ranges the reader refuses values outside, at their edges.
func TestLimits(t *testing.T) {
	l := Dialect{}.Limits()
	require.Equal(t, "1000-01-01", input.FormatDate(l.MinDate))
	require.Equal(t, "9999-12-31", input.FormatDate(l.MaxDate))
	require.Equal(t, "1000-01-01 00:00:00", string(input.AppendTimestamp(nil, l.MinTime)))
	require.Equal(t, "9999-12-31 23:59:59.999999", string(input.AppendTimestamp(nil, l.MaxTime)))
	require.Equal(t, "1970-01-01 00:00:01", string(input.AppendTimestamp(nil, l.MinInstant)))
	require.Equal(t, "2038-01-19 03:14:07.999999", string(input.AppendTimestamp(nil, l.MaxInstant)))
	require.True(t, l.HasDates && l.HasTimes && l.HasInstants)
	require.Equal(t, "MariaDB", l.Engine)
}

// The reader refuses a value just outside them, naming the engine.
func TestLimitsRefuse(t *testing.T) {
	for _, tc := range []struct{ typ, value string }{
		{"DATE", "0999-12-31"},
		{"TIMESTAMP", "0999-12-31 23:59:59.999999"},
		{"TIMESTAMPTZ", "1970-01-01 00:00:00.999999Z"},
		{"TIMESTAMPTZ", "2038-01-19 03:14:08Z"},
	} {
		path := filepath.Join(t.TempDir(), "in.csv")
		require.NoError(t, os.WriteFile(path, []byte("v\n"+tc.value+"\n"), 0o644))
		typ, err := input.ParseType(tc.typ)
		require.NoError(t, err)
		_, err = input.Scan(context.Background(), input.Spec{Paths: []string{path}, Format: "csv",
			Types: map[string]input.Type{"v": typ}, Limits: Dialect{}.Limits()})
		require.ErrorContains(t, err, "MariaDB holds", tc.value)
	}
}
