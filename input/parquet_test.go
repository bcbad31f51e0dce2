package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"
)

// writeParquet writes one record batch built by fill to a Parquet file.
func writeParquet(t *testing.T, path string, schema *arrow.Schema, fill func(b *array.RecordBuilder)) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
}

func TestParquetTypes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "big", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "tsz", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "tod", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
	}, nil)
	writeParquet(t, path, schema, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int32Builder).AppendValues([]int32{-2147483648, 7}, nil)
		b.Field(1).(*array.Int64Builder).AppendValues([]int64{-9223372036854775808, 9223372036854775807}, nil)
		b.Field(2).(*array.Uint64Builder).AppendValues([]uint64{18446744073709551615, 0}, nil)
		b.Field(3).(*array.Float64Builder).AppendValues([]float64{0.1, 1e300}, nil)
		b.Field(4).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(-1250), decimal128.FromI64(99999999)}, nil)
		big, _ := decimal128.FromString("1234567890123456789012345678.0123456789", 38, 10)
		b.Field(5).(*array.Decimal128Builder).AppendValues([]decimal128.Num{big, decimal128.FromI64(0)}, []bool{true, false})
		b.Field(6).(*array.Date32Builder).AppendValues([]arrow.Date32{arrow.Date32(daysFromCivil(2026, 11, 28)), arrow.Date32(daysFromCivil(1, 1, 1))}, nil)
		b.Field(7).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(daysFromCivil(2026, 11, 28)*microsPerDay + 1), 0}, nil)
		b.Field(8).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp((daysFromCivil(2026, 11, 28)*microsPerDay+1)*1000 + 999), -1}, nil)
		b.Field(9).(*array.StringBuilder).AppendValues([]string{`a"b\c`, ""}, nil)
		b.Field(10).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		lb := b.Field(11).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Float64Builder).AppendValues([]float64{5.7, 1e21}, nil)
		lb.AppendNull()
		sb := b.Field(12).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int64Builder).Append(12)
		sb.FieldBuilder(1).(*array.StringBuilder).Append("x")
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int64Builder).AppendNull()
		sb.FieldBuilder(1).(*array.StringBuilder).Append("<&>")
		b.Field(13).(*array.Time64Builder).AppendValues([]arrow.Time64{arrow.Time64(13*3600e6 + 45*60e6), 0}, nil)
	})
	types, rows, err := readAll(t, Spec{Paths: []string{path}, Format: "parquet"})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"i32": "INTEGER", "i64": "BIGINT", "u64": "DECIMAL(20,0)", "f": "DOUBLE", "d": "DECIMAL(10,2)", "big": "DECIMAL(38,10)",
		"day": "DATE", "ts": "TIMESTAMP", "tsz": "TIMESTAMPTZ", "s": "VARCHAR", "b": "BOOLEAN", "l": "JSON", "st": "JSON", "tod": "VARCHAR"}, types)
	require.Equal(t, []string{
		`-2147483648|-9223372036854775808|18446744073709551615|0.1|-12.50|1234567890123456789012345678.0123456789|2026-11-28|2026-11-28 00:00:00.000001|2026-11-28 00:00:00.000001|a"b\c|true|[5.7,1e+21]|{"z":12,"a":"x"}|13:45:00`,
		`7|9223372036854775807|0|1e+300|999999.99|NULL|0001-01-01|1970-01-01 00:00:00|1969-12-31 23:59:59.999999||false|NULL|{"z":null,"a":"<&>"}|00:00:00`,
	}, rows)

	// Into given types: exactly, or refused.
	spec := Spec{Paths: []string{path}, Format: "parquet", Types: map[string]Type{"big": DoubleType}}
	_, _, err = readAll(t, spec)
	require.ErrorContains(t, err, path+` row 1: column "big": "1234567890123456789012345678.0123456789" cannot be held exactly by a DOUBLE`)
	spec.Types = map[string]Type{"tsz": TimestampType}
	_, _, err = readAll(t, spec)
	require.ErrorContains(t, err, `row 1: column "tsz": "2026-11-28 00:00:00.000001Z" has a UTC offset, which a TIMESTAMP column would drop`)
	spec.Types = map[string]Type{"i64": {Kind: Int, Bits: 32}}
	_, _, err = readAll(t, spec)
	require.ErrorContains(t, err, `row 1: column "i64": "-9223372036854775808" is out of range for a 32-bit integer`)
	spec.Types = map[string]Type{"d": DoubleType, "ts": TimestampTZType, "s": TextType, "i32": BigIntType}
	_, rows, err = readAll(t, spec)
	require.NoError(t, err)
	require.Equal(t, "-2147483648", rows[0][:11])
}

func TestParquetNotWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	writeParquet(t, path, schema, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	})
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, whole[:len(whole)/2], 0o644))
	_, _, err = readAll(t, Spec{Paths: []string{path}, Format: "parquet"})
	require.ErrorContains(t, err, path+" is not a whole Parquet file: it does not end with PAR1")
	require.NoError(t, os.WriteFile(path, []byte("id\n1\n2\n3\n4\n5\n"), 0o644))
	_, _, err = readAll(t, Spec{Paths: []string{path}, Format: "parquet"})
	require.ErrorContains(t, err, path+" is not a Parquet file: it does not start with PAR1")
}

// An 8-bit integer column is SMALLINT, which every engine creates alike
// (PostgreSQL has no one-byte integer); a TINYINT column of the target
// still takes its values, each checked.
func TestParquetInt8IsSmallint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	schema := arrow.NewSchema([]arrow.Field{{Name: "i8", Type: arrow.PrimitiveTypes.Int8}}, nil)
	writeParquet(t, path, schema, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil)
	})
	types, rows, err := readAll(t, Spec{Paths: []string{path}, Format: "parquet"})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"i8": "SMALLINT"}, types)
	require.Equal(t, []string{"-128", "127"}, rows)
	types, rows, err = readAll(t, Spec{Paths: []string{path}, Format: "parquet", Types: map[string]Type{"i8": {Kind: Int, Bits: 8}}})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"i8": "TINYINT"}, types)
	require.Equal(t, []string{"-128", "127"}, rows)
}
