package clickhouse

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones' rules as Go knows them, whatever the machine has

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse/internal/chdb"
	"github.com/idemdata/idem/input"
)

// openChDB opens a folder of its own for a test, or skips without the
// library, saying how to get it (fails instead when IDEM_TEST_REQUIRE
// names clickhouse).
func openChDB(t *testing.T) *DB {
	t.Helper()
	if err := chdb.Load(); err != nil {
		msg := err.Error() + " (scripts/fetch-chdb.sh fetches it)"
		if slices.Contains(strings.Split(os.Getenv("IDEM_TEST_REQUIRE"), ","), "clickhouse") {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "t.chdb"), time.Minute)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

// edgeCSV holds a value of every reader type at its edges, each column's
// type given in edgeTypes: row 1 the least values, row 2 the greatest
// (times up to maxTime and maxInstant), row 3 ordinary ones, row 4 NULLs,
// row 5 text's empty string and a float's -0.
func edgeCSV(maxTime, maxInstant string) string {
	return "id,i8,i16,i32,i64,d38,d38s,d18,d9,f64,f32,b,s,s5,j,dt,ts,ts3,tz\n" +
		`1,-128,-32768,-2147483648,-9223372036854775808,-99999999999999999999999999999999999999,-9999999999999999999999999999.9999999999,-9999999999999999.99,-9999999.99,0.1,0.1,true,"a ""q"" \ b	tab` + "\n" + `nl é😀 \\N",abcde,"{""a"":5.70,""b"":12345678901234567890123,""c"":[1,""x""]}",1900-01-01,1900-01-01 00:00:00,1900-01-01 00:00:00.001,1900-01-02 00:00:00Z` + "\n" +
		`2,127,32767,2147483647,9223372036854775807,99999999999999999999999999999999999999,9999999999999999999999999999.9999999999,9999999999999999.99,9999999.99,1e300,3.4028235e38,false,'x',é,[],2299-12-31,` + maxTime + `,1999-12-31 23:59:59.999,` + maxInstant + "\n" +
		`3,0,0,0,0,1,0.0000000001,0.50,-0.01,5e-324,-1.5,true,\,x,"""s""",2026-11-28,2026-11-28 13:45:01.123456,2026-11-28 13:45:01.5,2026-11-28 13:45:01.123456+02:00` + "\n" +
		"4,,,,,,,,,,,,,,,,,,\n" +
		`5,,,,,,,,,-0,,,"",,,,,,` + "\n"
}

var edgeTypes = map[string]input.Type{
	"id": input.BigIntType, "i8": {Kind: input.Int, Bits: 8}, "i16": {Kind: input.Int, Bits: 16},
	"i32": {Kind: input.Int, Bits: 32}, "i64": input.BigIntType,
	"d38": input.DecimalType(38, 0), "d38s": input.DecimalType(38, 10), "d18": input.DecimalType(18, 2), "d9": input.DecimalType(9, 2),
	"f64": input.DoubleType, "f32": {Kind: input.Float, Bits: 32}, "b": input.BoolType,
	"s": input.TextType, "s5": {Kind: input.Text, MaxChars: 5}, "j": input.JSONType,
	"dt": input.DateType, "ts": input.TimestampType, "ts3": {Kind: input.Timestamp, Precision: 3}, "tz": input.TimestampTZType,
}

// scan writes content to a CSV file and scans it.
func scan(t *testing.T, content string, types map[string]input.Type, lim *input.Limits) *input.Input {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.csv")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	in, err := input.Scan(t.Context(), input.Spec{Paths: []string{path}, Format: "csv", Types: types, Limits: lim})
	require.NoError(t, err)
	return in
}

// newColumns are the input's columns as a new table's (ColumnType).
func newColumns(in *input.Input) []engine.Column {
	cols := make([]engine.Column, len(in.Columns))
	for i, c := range in.Columns {
		cols[i] = engine.Column{Name: c.Name, Type: Dialect{}.ColumnType(c.Type)}
	}
	return cols
}

// want is every value of the input as the reader's canonical text (nil
// for NULL), row by row.
func want(t *testing.T, in *input.Input) [][]*string {
	t.Helper()
	rd := in.Read(t.Context())
	defer rd.Close()
	var out [][]*string
	for {
		b, err := rd.Next()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			return out
		}
		for i := range b.Len {
			row := make([]*string, len(b.Cols))
			for j, v := range b.Cols {
				if s, ok := v.Text(i); ok {
					row[j] = &s
				}
			}
			out = append(out, row)
		}
	}
}

// readBack reads every column of t as text, in the order of its first
// column: instants in UTC, decimals with every digit of their scale.
func readBack(t *testing.T, q engine.Querier, tbl engine.Table, cols []engine.Column) [][]*string {
	t.Helper()
	d := Dialect{}
	exprs := make([]string, len(cols))
	for i, c := range cols {
		e := "toString(" + d.Ident(c.Name) + ")"
		ct, err := parseType(c.Type)
		switch {
		case err == nil && ct.kind == chDateTime64 && ct.zone != "":
			e = "toString(" + d.Ident(c.Name) + ", 'UTC')"
		case err == nil && ct.kind == chDecimal && ct.scale > 0: // toString drops a fraction's trailing zeros
			e = fmt.Sprintf("toDecimalString(%s, %d)", d.Ident(c.Name), ct.scale)
		}
		exprs[i] = e
	}
	rows, err := q.QueryContext(t.Context(), "SELECT "+strings.Join(exprs, ", ")+" FROM "+d.Table(tbl)+" ORDER BY "+d.Ident(cols[0].Name))
	require.NoError(t, err)
	defer rows.Close()
	var out [][]*string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v.Valid {
				s := v.String
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	require.NoError(t, rows.Err())
	return out
}

// canonical is ClickHouse's text of a value in the reader's form:
// ClickHouse writes every digit of a DateTime64's precision, and a
// float's exponent without its sign.
func canonical(s string, typ input.Type) string {
	switch typ.Kind {
	case input.Timestamp, input.TimestampTZ:
		whole, frac, ok := strings.Cut(s, ".")
		if !ok {
			return s
		}
		frac = (frac + "000000")[:6]
		if strings.Trim(frac, "0") == "" {
			return whole
		}
		return whole + "." + frac
	case input.Float:
		if i := strings.IndexByte(s, 'e'); i >= 0 && s[i+1] != '-' {
			return s[:i+1] + "+" + s[i+1:]
		}
	}
	return s
}

// compare requires the table's text to be the reader's, value by value.
func compare(t *testing.T, in *input.Input, want, got [][]*string) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		for j, c := range in.Columns {
			w, g := want[i][j], got[i][j]
			if w == nil || g == nil {
				require.Equal(t, w == nil, g == nil, "row %d column %s: NULL", i+1, c.Name)
				continue
			}
			require.Equal(t, *w, canonical(*g, c.Type), "row %d column %s (%s)", i+1, c.Name, c.Type)
		}
	}
}

func exec(t *testing.T, q engine.Querier, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		_, err := q.ExecContext(t.Context(), s)
		require.NoError(t, err, s)
	}
}

// load runs LoadRows and returns what it recorded.
func load(t *testing.T, db *DB, tbl engine.Table, cols []engine.Column, in *input.Input) []string {
	t.Helper()
	rd := in.Read(t.Context())
	defer rd.Close()
	var ran []string
	n, err := db.LoadRows(t.Context(), db.Conn(), tbl, cols, rd, func(s string) { ran = append(ran, s) })
	require.NoError(t, err)
	require.Equal(t, in.Rows, n)
	return ran
}

// Every reader type's values, at their edges, read back from ClickHouse
// as the reader's text: into the staging table and into a new MergeTree
// target made from it.
func TestLoadRowsRoundTrip(t *testing.T) {
	db := openChDB(t)
	in := scan(t, edgeCSV("2299-12-31 23:59:59.999999", "2299-12-30 23:59:59.999999+00:00"), edgeTypes, Dialect{}.Limits())
	cols := newColumns(in)
	d := Dialect{}
	stage := engine.Table{Name: engine.StageTable}
	exec(t, db.Conn(), d.CreateStage(engine.StageTable, cols)...)
	ran := load(t, db, stage, cols, in)
	require.Len(t, ran, 1)
	require.Contains(t, ran[0], "FROM file("+spoolPlaceholder+", 'RowBinary', ")
	require.NotContains(t, ran[0], os.TempDir(), "no spool path in what plans show")
	w := want(t, in)
	require.Equal(t, "5.70", strings.Split(strings.Split(*w[0][14], `"a":`)[1], ",")[0], "JSON keeps its numbers as written")
	compare(t, in, w, readBack(t, db.Conn(), stage, cols))

	target := engine.Table{Name: "t_target"}
	exec(t, db.Conn(), d.CreateTableFrom(target, engine.StageTable, "")...)
	defer exec(t, db.Conn(), "DROP TABLE IF EXISTS "+d.Table(target))
	load(t, db, target, cols, in)
	compare(t, in, w, readBack(t, db.Conn(), target, cols))

	// A second load appends.
	load(t, db, stage, cols, in)
	var n int64
	require.NoError(t, db.Conn().QueryRowContext(t.Context(), "SELECT count() FROM "+d.Ident(engine.StageTable)).Scan(&n))
	require.Equal(t, 2*in.Rows, n)
	exec(t, db.Conn(), sqlText.Temp.DropTemp(engine.StageTable))
	assertNoSpool(t)
}

// assertNoSpool requires that no spool folder of this process is left.
func assertNoSpool(t *testing.T) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(os.TempDir(), "idem-chload-*"))
	require.NoError(t, err)
	for _, dir := range left {
		pid, _ := os.ReadFile(filepath.Join(dir, "pid"))
		require.NotEqual(t, fmt.Sprint(os.Getpid()), string(pid), "spool folder %s is left", dir)
	}
}

// The types of existing targets: each read with its ReaderType, loaded,
// and read back as the reader's text; a NULL for a column that is not
// Nullable fails the load, naming the column, and leaves nothing behind.
func TestLoadRowsExistingTypes(t *testing.T) {
	db := openChDB(t)
	d := Dialect{}
	target := engine.Table{Name: "t_existing"}
	exec(t, db.Conn(), `CREATE TABLE "t_existing" (id Int32, s LowCardinality(Nullable(String)), w Nullable(Decimal256(10)),
		paris Nullable(DateTime64(3, 'Europe/Paris')), ns Nullable(DateTime64(8)), d9 Decimal(9, 2), f Nullable(Float32),
		d128 Nullable(Decimal128(4)), s0 DateTime64(0, 'UTC'), wide Nullable(Decimal(50, 5)), i8 Nullable(Int8), dt Date32)
		ENGINE = MergeTree ORDER BY id`)
	defer exec(t, db.Conn(), "DROP TABLE IF EXISTS "+d.Table(target))
	cols := columnTypes(t, db.Conn(), target)
	types := map[string]input.Type{}
	for _, c := range cols {
		rt, ok := d.ReaderType(c.Type)
		require.True(t, ok, c.Type)
		types[c.Name] = rt
	}
	require.Equal(t, input.DecimalType(38, 10), types["w"])
	require.Equal(t, input.Type{Kind: input.TimestampTZ, Precision: 3}, types["paris"])
	require.Equal(t, input.TimestampType, types["ns"])
	csv := "id,s,w,paris,ns,d9,f,d128,s0,wide,i8,dt\n" +
		"1,a,-9999999999999999999999999999.9999999999,2026-03-29 02:30:00.125+01:00,2299-12-31 23:59:59.999999,-9999999.99,0.1,-1234567890123456789012345678901234.5678,1900-01-02 00:00:00Z,-123456789012345678901234567890123.12345,-128,1900-01-01\n" +
		"2,,1,,1900-01-01 00:00:00,0.01,,,2026-11-28 10:00:00-05:00,,,2299-12-31\n"
	in := scan(t, csv, types, d.Limits())
	load(t, db, target, cols, in)
	compare(t, in, want(t, in), readBack(t, db.Conn(), target, cols))

	bad := scan(t, "id,s,w,paris,ns,d9,f,d128,s0,wide,i8,dt\n3,,,,,,,,2026-11-28 10:00:00Z,,,2026-01-01\n", types, d.Limits())
	rd := bad.Read(t.Context())
	defer rd.Close()
	_, err := db.LoadRows(t.Context(), db.Conn(), target, cols, rd, nil)
	require.ErrorContains(t, err, `column "d9": the input has an empty value (NULL), which the table's Decimal(9, 2) cannot hold`)
	var n int64
	require.NoError(t, db.Conn().QueryRowContext(t.Context(), "SELECT count() FROM "+d.Table(target)).Scan(&n))
	require.Equal(t, int64(2), n, "the failed load wrote nothing")
	assertNoSpool(t)
}

// columnTypes runs Catalog.ColumnTypes.
func columnTypes(t *testing.T, q engine.Querier, tbl engine.Table) []engine.Column {
	t.Helper()
	query, args := Dialect{}.ColumnTypes(tbl)
	rows, err := q.QueryContext(t.Context(), query, args...)
	require.NoError(t, err)
	defer rows.Close()
	var cols []engine.Column
	for rows.Next() {
		var c engine.Column
		require.NoError(t, rows.Scan(&c.Name, &c.Type))
		cols = append(cols, c)
	}
	require.NoError(t, rows.Err())
	return cols
}

// readerTypes are the types the reader gives columns.
var readerTypes = []input.Type{
	input.TextType, {Kind: input.Text, MaxChars: 20}, input.BoolType,
	{Kind: input.Int, Bits: 8}, {Kind: input.Int, Bits: 16}, {Kind: input.Int, Bits: 32}, input.BigIntType,
	input.DecimalType(9, 2), input.DecimalType(18, 0), input.DecimalType(38, 10), input.DecimalType(38, 38), input.DecimalType(0, 0),
	{Kind: input.Float, Bits: 32}, input.DoubleType, input.DateType,
	input.TimestampType, {Kind: input.Timestamp, Precision: 0}, {Kind: input.Timestamp, Precision: 3},
	input.TimestampTZType, {Kind: input.TimestampTZ, Precision: 1}, input.JSONType,
}

// A new column of ColumnType(t), as the catalog spells it, has ReaderType
// t, or a type holding the same values (text of any length for a bounded
// text, a JSON text or a decimal of any precision, ClickHouse having no
// such types).
func TestColumnTypeRoundTrip(t *testing.T) {
	db := openChDB(t)
	d := Dialect{}
	defs := make([]string, len(readerTypes))
	for i, rt := range readerTypes {
		defs[i] = fmt.Sprintf("c%d %s", i, d.ColumnType(rt))
	}
	tbl := engine.Table{Schema: "default", Name: "t_types"}
	exec(t, db.Conn(), "CREATE TABLE "+d.Table(tbl)+" ("+strings.Join(defs, ", ")+") ENGINE = Memory")
	defer exec(t, db.Conn(), "DROP TABLE "+d.Table(tbl))
	cols := columnTypes(t, db.Conn(), tbl)
	require.Len(t, cols, len(readerTypes))
	for i, c := range cols {
		require.Equal(t, fmt.Sprintf("c%d", i), c.Name)
		got, ok := d.ReaderType(c.Type)
		require.True(t, ok, c.Type)
		w := readerTypes[i]
		if w.Kind == input.Text || w.Kind == input.JSON || w.IsAnyDecimal() {
			w = input.TextType
		}
		require.Equal(t, w, got, "%s: %s", readerTypes[i], c.Type)
	}
}

// ReaderType reads ClickHouse's spellings, and refuses the types idem
// cannot write exactly.
func TestReaderType(t *testing.T) {
	d := Dialect{}
	for typ, w := range map[string]input.Type{
		"Bool": input.BoolType, "Nullable(Int8)": {Kind: input.Int, Bits: 8}, "Int16": {Kind: input.Int, Bits: 16},
		"Int32": {Kind: input.Int, Bits: 32}, "Nullable(Int64)": input.BigIntType,
		"Float32": {Kind: input.Float, Bits: 32}, "Nullable(Float64)": input.DoubleType,
		"String": input.TextType, "LowCardinality(String)": input.TextType, "LowCardinality(Nullable(String))": input.TextType,
		"Decimal(9, 2)": input.DecimalType(9, 2), "Nullable(Decimal(38, 10))": input.DecimalType(38, 10),
		"Decimal32(3)": input.DecimalType(9, 3), "Decimal64(0)": input.DecimalType(18, 0), "Decimal128(4)": input.DecimalType(38, 4),
		"Decimal256(10)": input.DecimalType(38, 10), "Decimal(76, 38)": input.DecimalType(38, 38), "Decimal(50,5)": input.DecimalType(38, 5),
		"Date32": input.DateType, "Nullable(Date32)": input.DateType,
		"DateTime64(6)": input.TimestampType, "DateTime64(3)": {Kind: input.Timestamp, Precision: 3},
		"DateTime64(0)": {Kind: input.Timestamp, Precision: 0}, "DateTime64(8)": input.TimestampType,
		"DateTime64(6, 'UTC')": input.TimestampTZType, "Nullable(DateTime64(3, 'Europe/Paris'))": {Kind: input.TimestampTZ, Precision: 3},
		"DateTime64(6,'America/New_York')": input.TimestampTZType,
	} {
		got, ok := d.ReaderType(typ)
		require.True(t, ok, typ)
		require.Equal(t, w, got, typ)
	}
	for _, typ := range []string{
		"UInt8", "UInt64", "Nullable(UInt32)", "Int128", "Int256", "UInt256", "BFloat16",
		"Date", "Nullable(Date)", "DateTime", "DateTime('UTC')", "DateTime64(9)", "DateTime64(9, 'UTC')",
		"FixedString(3)", "Nullable(FixedString(16))", "Enum8('a' = 1)", "UUID", "IPv4", "IPv6",
		"Array(Int64)", "Map(String, Int64)", "Tuple(a Int64)", "JSON", "Object('json')", "Nullable(Nothing)",
		"Decimal(76, 40)", "Decimal", "Int64(3)", "Dynamic", "Variant(Int64, String)", "Time64(3)",
	} {
		_, ok := d.ReaderType(typ)
		require.False(t, ok, typ)
	}
}

// Instants stay a day inside DateTime64's range: ClickHouse's date tables
// end at 1900-01-01 and 2299-12-31 in a column's zone, so 1900-01-01
// 00:00 UTC would show as a wrong time in New York. At the limits, every
// zone shows the instant's local time, as Go's rules have it.
func TestInstantLimitsInZones(t *testing.T) {
	db := openChDB(t)
	d := Dialect{}
	lim := d.Limits()
	zones := []string{"UTC", "America/New_York", "Pacific/Kiritimati", "Etc/GMT-14", "Etc/GMT+12", "Asia/Tokyo", "Europe/Paris", "America/Los_Angeles"}
	defs := []string{"id Int64"}
	types := map[string]input.Type{"id": input.BigIntType}
	header, lo, hi := []string{"id"}, []string{"1"}, []string{"2"}
	for i, z := range zones {
		name := fmt.Sprintf("z%d", i)
		defs = append(defs, fmt.Sprintf("%s Nullable(DateTime64(6, %s))", name, d.String(z)))
		types[name] = input.TimestampTZType
		header = append(header, name)
		lo = append(lo, string(input.AppendTimestamp(nil, lim.MinInstant))+"Z")
		hi = append(hi, string(input.AppendTimestamp(nil, lim.MaxInstant))+"Z")
	}
	tbl := engine.Table{Name: "t_zones"}
	exec(t, db.Conn(), "CREATE TABLE "+d.Table(tbl)+" ("+strings.Join(defs, ", ")+") ENGINE = Memory")
	defer exec(t, db.Conn(), "DROP TABLE "+d.Table(tbl))
	in := scan(t, strings.Join(header, ",")+"\n"+strings.Join(lo, ",")+"\n"+strings.Join(hi, ",")+"\n", types, lim)
	cols := columnTypes(t, db.Conn(), tbl)
	load(t, db, tbl, cols, in)
	compare(t, in, want(t, in), readBack(t, db.Conn(), tbl, cols))
	for i, z := range zones {
		loc, err := time.LoadLocation(z)
		require.NoError(t, err)
		rows, err := db.Conn().QueryContext(t.Context(), fmt.Sprintf("SELECT toString(z%d) FROM %s ORDER BY id", i, d.Table(tbl)))
		require.NoError(t, err)
		var got []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			got = append(got, s)
		}
		require.NoError(t, rows.Close())
		const layout = "2006-01-02 15:04:05.000000"
		require.Equal(t, []string{input.TimeOf(lim.MinInstant).In(loc).Format(layout), input.TimeOf(lim.MaxInstant).In(loc).Format(layout)}, got, z)
	}
	// A microsecond beyond is refused by the reader, naming the limits.
	_, err := input.Scan(t.Context(), input.Spec{Paths: []string{writeFile(t, "z0\n1900-01-01 23:59:59.999999Z\n")}, Format: "csv",
		Types: map[string]input.Type{"z0": input.TimestampTZType}, Limits: lim})
	require.ErrorContains(t, err, "is outside the instants ClickHouse holds (1900-01-02 00:00:00 to 2299-12-30 23:59:59.999999 UTC)")
}

func writeFile(t *testing.T, content string) string {
	path := filepath.Join(t.TempDir(), "in.csv")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// The limits are the documented ranges of Date32 and DateTime64, and the
// reader refuses a value beyond them.
func TestLimits(t *testing.T) {
	l := Dialect{}.Limits()
	require.Equal(t, "1900-01-01", input.FormatDate(l.MinDate))
	require.Equal(t, "2299-12-31", input.FormatDate(l.MaxDate))
	require.Equal(t, "1900-01-01 00:00:00", string(input.AppendTimestamp(nil, l.MinTime)))
	require.Equal(t, "2299-12-31 23:59:59.999999", string(input.AppendTimestamp(nil, l.MaxTime)))
	s := serverTypes{}.Limits()
	require.Equal(t, "2262-04-11 23:47:16.854775", string(input.AppendTimestamp(nil, s.MaxTime)))
	require.Equal(t, "2262-04-11 23:47:16.854775", string(input.AppendTimestamp(nil, s.MaxInstant)))
	require.Equal(t, l.MinInstant, s.MinInstant)
	require.IsType(t, serverTypes{}, serverSQL.Types)
	for _, c := range []struct{ typ, value, msg string }{
		{"DATE", "1899-12-31", "is outside the dates ClickHouse holds"},
		{"DATE", "2300-01-01", "is outside the dates ClickHouse holds"},
		{"TIMESTAMP", "1899-12-31 23:59:59.999999", "is outside the timestamps ClickHouse holds"},
		{"TIMESTAMP", "2300-01-01 00:00:00", "is outside the timestamps ClickHouse holds"},
	} {
		typ, err := input.ParseType(c.typ)
		require.NoError(t, err)
		_, err = input.Scan(t.Context(), input.Spec{Paths: []string{writeFile(t, "v\n"+c.value+"\n")}, Format: "csv",
			Types: map[string]input.Type{"v": typ}, Limits: l})
		require.ErrorContains(t, err, c.msg, c.value)
	}
}

// The spool file is removed when the load fails too, and the load's
// context stops it.
func TestLoadRowsFailureLeavesNoSpool(t *testing.T) {
	db := openChDB(t)
	in := scan(t, "a\n1\n", nil, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rd := in.Read(t.Context())
	defer rd.Close()
	_, err := db.LoadRows(ctx, db.Conn(), engine.Table{Name: "nowhere"}, []engine.Column{{Name: "a", Type: "Nullable(Int64)"}}, rd, nil)
	require.ErrorIs(t, err, context.Canceled)
	rd2 := in.Read(t.Context())
	defer rd2.Close()
	_, err = db.LoadRows(t.Context(), db.Conn(), engine.Table{Name: "nowhere"}, []engine.Column{{Name: "a", Type: "Nullable(Int64)"}}, rd2, nil)
	require.ErrorContains(t, err, "nowhere")
	assertNoSpool(t)
}

// An input of several spool files arrives whole, each file inserted while
// the next is written; an insert may write more partitions than
// ClickHouse lets one INSERT write by default.
func TestLoadRowsManySpoolFiles(t *testing.T) {
	db := openChDB(t)
	d := Dialect{}
	for _, c := range []struct {
		rows, days int
		engine     string
	}{
		{2*spoolRows + 5, 150, "ENGINE = Memory"},
		{101, 101, mergeTree(`"day"`)}, // ClickHouse's default: at most 100
	} {
		var b strings.Builder
		b.WriteString("id,day\n")
		for i := range c.rows {
			fmt.Fprintf(&b, "%d,%s\n", i, input.FormatDate(int64(i%c.days)))
		}
		in := scan(t, b.String(), nil, d.Limits())
		cols := newColumns(in)
		tbl := engine.Table{Name: "t_many"}
		exec(t, db.Conn(), "CREATE TABLE "+d.Table(tbl)+" (id Nullable(Int64), day Nullable(Date32)) "+c.engine)
		ran := load(t, db, tbl, cols, in)
		require.Len(t, ran, 1, "the statement is recorded once")
		var n, sum, days int64
		require.NoError(t, db.Conn().QueryRowContext(t.Context(), "SELECT count(), sum(id), uniqExact(day) FROM "+d.Table(tbl)).Scan(&n, &sum, &days))
		require.Equal(t, int64(c.rows), n)
		require.Equal(t, int64(c.rows)*int64(c.rows-1)/2, sum)
		require.Equal(t, int64(c.days), days)
		exec(t, db.Conn(), "DROP TABLE "+d.Table(tbl))
	}
	assertNoSpool(t)
}
