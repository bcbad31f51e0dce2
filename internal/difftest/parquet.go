package difftest

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Parquet columns are typed in the file; the generator writes values at
// each type's edges.

// parquetTypes are the column types the generator writes, by name.
var parquetTypes = map[string]arrow.DataType{
	"int64":          arrow.PrimitiveTypes.Int64,
	"int32":          arrow.PrimitiveTypes.Int32,
	"int8":           arrow.PrimitiveTypes.Int8,
	"uint64":         arrow.PrimitiveTypes.Uint64,
	"float64":        arrow.PrimitiveTypes.Float64,
	"float32":        arrow.PrimitiveTypes.Float32,
	"float16":        arrow.FixedWidthTypes.Float16,
	"decimal(38,10)": &arrow.Decimal128Type{Precision: 38, Scale: 10},
	"decimal(12,2)":  &arrow.Decimal128Type{Precision: 12, Scale: 2},
	"date":           arrow.FixedWidthTypes.Date32,
	"timestamp":      &arrow.TimestampType{Unit: arrow.Microsecond},
	"timestamptz":    &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
	"timestamp_ns":   &arrow.TimestampType{Unit: arrow.Nanosecond},
	"timestamp_ms":   &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
	"time":           arrow.FixedWidthTypes.Time64us,
	"string":         arrow.BinaryTypes.String,
	"bool":           arrow.FixedWidthTypes.Boolean,
	"list":           arrow.ListOf(arrow.PrimitiveTypes.Float64),
	"struct": arrow.StructOf(arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}),
}

// parquetValues are values at each type's edges, as text ("" is NULL).
var parquetValues = map[string][]string{
	"int64":          {"0", "-9223372036854775808", "9223372036854775807", "42", ""},
	"int32":          {"2147483647", "-2147483648", "7", ""},
	"int8":           {"127", "-128", "0"},
	"uint64":         {"18446744073709551615", "0", "9223372036854775808"},
	"float64":        {"1.5", "0.1", "1e308", "5e-324", "-0", "9007199254740993", "1e-310", "0.30000000000000004", "", "NaN", "Inf"},
	"float32":        {"0.1", "3.4028235e38", "1e-45", "16777217", "-2.5"},
	"float16":        {"0.1", "65504", "-1.5"},
	"decimal(38,10)": {"1234567890123456789012345678.0123456789", "-0.0000000001", "0", "1", "99999999999999999999999999.9999999999"},
	"decimal(12,2)":  {"1234567890.12", "-0.01", "0.10", ""},
	"date":           {"2026-01-08", "1971-01-01", "2037-12-31", "2000-02-29", ""},
	"timestamp":      {"2026-01-08 10:00:00", "1971-01-01 00:00:00.000001", "2037-12-31 23:59:59.999999", ""},
	"timestamptz":    {"2026-01-08 10:00:00", "1971-01-01 00:00:01", "2037-12-31 23:59:59.999999"},
	"timestamp_ns":   {"2026-01-08 10:00:00.123456789", "2026-01-08 23:59:59.999999999"},
	"timestamp_ms":   {"2026-01-08 10:00:00.123", "1999-12-31 23:59:59.999"},
	"time":           {"13:45:00", "00:00:00", "23:59:59.999999"},
	"string":         {"a", " ", "", "two\nlines", `say "hi"`, "😀", "nul\x00byte", "bad\xe9utf8", "NULL"},
	"bool":           {"true", "false", ""},
	"list":           {"1.5;2", "", "5.7;12345678901234567890123;-0", "0.1"},
	"struct":         {"z=12;a=x", "z=;a=<&>", ""},
}

// parquetOf is a step loading one Parquet file of the named columns and
// types (parquetTypes' names) and rows of values as text.
func (g *gen) parquetOf(names, types []string, rows [][]string) {
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: parquetTypes[types[i]], Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			appendValue(b.Field(i), types[i], v)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &out, nil, pqarrow.DefaultWriterProps())
	if err == nil {
		err = w.Write(rec)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		panic(fmt.Sprintf("writing Parquet: %v", err))
	}
	// A second file (inexactOrder's) is loaded by the first's job.
	job := g.job("in/x.parquet", false).text()
	if n := len(g.c.Steps); n > 0 {
		job = g.c.Steps[n-1].Job
	}
	g.c.Steps = append(g.c.Steps, Step{Files: map[string][]byte{"in/x.parquet": out.Bytes()}, Job: job, Date: RunDate})
}

// parquet draws a Parquet file: id, day and one to three typed columns.
func (g *gen) parquet() {
	names := []string{"id", "day"}
	types := []string{"int64", pick(g.r, []string{"date", "date", "timestamp", "timestamptz", "string"})}
	var kinds []string
	for k := range parquetValues {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for i := range 1 + g.r.IntN(3) {
		k := pick(g.r, kinds)
		names = append(names, fmt.Sprintf("p%d_%s", i+1, strings.NewReplacer("(", "", ")", "", ",", "_").Replace(k)))
		types = append(types, k)
	}
	var rows [][]string
	for i := range 1 + g.r.IntN(6) {
		day := RunDate
		switch types[1] {
		case "timestamp", "timestamptz":
			day += fmt.Sprintf(" %02d:00:00", g.r.IntN(24))
		}
		row := []string{fmt.Sprint(i + 1), day}
		for _, k := range types[2:] {
			vs := parquetValues[k]
			v := vs[g.r.IntN(len(vs))]
			if g.r.IntN(3) != 0 && k != "string" { // mostly values every engine holds
				v = vs[0]
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	g.parquetOf(names, types, rows)
}

// appendValue appends v (text; "" for NULL) to a builder of type typ.
func appendValue(b array.Builder, typ, v string) {
	if v == "" && typ != "string" {
		b.AppendNull()
		return
	}
	switch typ {
	case "int64", "int32", "int8":
		appendInt(b, typ, v)
	case "uint64":
		n, err := strconv.ParseUint(v, 10, 64)
		must(typ, v, err)
		b.(*array.Uint64Builder).Append(n)
	case "float64", "float32", "float16":
		appendFloat(b, typ, v)
	case "decimal(38,10)", "decimal(12,2)":
		dt := parquetTypes[typ].(*arrow.Decimal128Type)
		n, err := decimal128.FromString(v, dt.Precision, dt.Scale)
		must(typ, v, err)
		b.(*array.Decimal128Builder).Append(n)
	case "date", "timestamp", "timestamptz", "timestamp_ns", "timestamp_ms", "time":
		appendTemporal(b, typ, v)
	case "string":
		b.(*array.StringBuilder).Append(v)
	case "bool":
		b.(*array.BooleanBuilder).Append(v == "true")
	case "list":
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		for _, s := range strings.Split(v, ";") {
			f, err := strconv.ParseFloat(s, 64)
			must(typ, v, err)
			lb.ValueBuilder().(*array.Float64Builder).Append(f)
		}
	case "struct":
		appendStruct(b.(*array.StructBuilder), typ, v)
	default:
		panic("no Parquet type " + typ)
	}
}

// must panics on a value the generator wrote that does not parse as typ.
func must(typ, v string, err error) {
	if err != nil {
		panic(fmt.Sprintf("%s value %q: %v", typ, v, err))
	}
}

func appendInt(b array.Builder, typ, v string) {
	n, err := strconv.ParseInt(v, 10, 64)
	must(typ, v, err)
	switch x := b.(type) {
	case *array.Int64Builder:
		x.Append(n)
	case *array.Int32Builder:
		x.Append(int32(n))
	case *array.Int8Builder:
		x.Append(int8(n))
	}
}

func appendFloat(b array.Builder, typ, v string) {
	f, err := strconv.ParseFloat(v, 64)
	if v == "Inf" {
		f, err = math.Inf(1), nil
	}
	must(typ, v, err)
	switch x := b.(type) {
	case *array.Float64Builder:
		x.Append(f)
	case *array.Float32Builder:
		x.Append(float32(f))
	case *array.Float16Builder:
		x.Append(float16.New(float32(f)))
	}
}

// appendTemporal appends a date, a timestamp of any unit, or a time of day.
func appendTemporal(b array.Builder, typ, v string) {
	switch typ {
	case "date":
		d, err := time.Parse(time.DateOnly, v)
		must(typ, v, err)
		b.(*array.Date32Builder).Append(arrow.Date32FromTime(d))
	case "time":
		t, err := time.Parse("15:04:05.999999", v)
		must(typ, v, err)
		b.(*array.Time64Builder).Append(arrow.Time64(int64(t.Hour())*3600e6 + int64(t.Minute())*60e6 + int64(t.Second())*1e6 + int64(t.Nanosecond()/1000)))
	default:
		t, err := time.Parse("2006-01-02 15:04:05.999999999", v)
		must(typ, v, err)
		unit := parquetTypes[typ].(*arrow.TimestampType).Unit
		ts, err := arrow.TimestampFromTime(t, unit)
		must(typ, v, err)
		b.(*array.TimestampBuilder).Append(ts)
	}
}

// appendStruct appends a struct written "z=N;a=TEXT" (z empty for NULL).
func appendStruct(sb *array.StructBuilder, typ, v string) {
	sb.Append(true)
	z, a, _ := strings.Cut(v, ";")
	z, a = strings.TrimPrefix(z, "z="), strings.TrimPrefix(a, "a=")
	if z == "" {
		sb.FieldBuilder(0).AppendNull()
	} else {
		n, err := strconv.ParseInt(z, 10, 64)
		must(typ, v, err)
		sb.FieldBuilder(0).(*array.Int64Builder).Append(n)
	}
	sb.FieldBuilder(1).(*array.StringBuilder).Append(a)
}
