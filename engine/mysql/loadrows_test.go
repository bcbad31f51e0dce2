package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/mysql"
	"github.com/idemdata/idem/input"
)

// loadCase is one input file and the types its columns are read as.
type loadCase struct {
	format, body string
	types        map[string]input.Type
}

// The CSV of every type at its edges; id orders the rows. An empty field
// is NULL, "" is empty text.
var loadRowsCSV = loadCase{format: "csv", body: strings.Join([]string{
	`id,i64,i32,i16,i8,d380,d3810,d182,f64,f32,b,txt,vc,j,dt,ts,ts3,tz`,
	`1,-9223372036854775808,-2147483648,-32768,-128,-99999999999999999999999999999999999999,-9999999999999999999999999999.9999999999,-9999999999999999.99,0.1,0.1,true,"say ""hi"", \ back\slash \N \\N NULL",abcdefghij,"{""a"":5.70,""n"":12345678901234567890123}",1000-01-01,1000-01-01 00:00:00,2026-11-28 13:45:00.123,1970-01-01 00:00:01Z`,
	`2,9223372036854775807,2147483647,32767,127,99999999999999999999999999999999999999,9999999999999999999999999999.9999999999,9999999999999999.99,1e300,3.4028235e38,false,"tab	and
newline and crlf` + "\r\n" + `end",ünïcödé ✓🙂,"[1, {""x"": ""y\""z""}, -0.0, 1e2]",9999-12-31,9999-12-31 23:59:59.999999,2026-11-28 13:45:00,2038-01-19 03:14:07.999999Z`,
	`3,0,0,0,0,0,-0.0000000001,-0.01,5e-324,1e-45,TRUE,"",x,"""text""",2026-11-28,2026-11-28 13:45:00.000001,9999-12-31 23:59:59.999,2026-11-28T13:45:00.5+01:00`,
	`4,,,,,,,,-0,-0,,,,,,,,`,
	`5,1,2,3,4,5,6.5,7.25,1.7976931348623157e308,-1.5,false,  trailing spaces  ,"  ",null,2000-02-29,2000-02-29 12:00:00,2000-02-29 12:00:00.1,2000-02-29 23:59:59-05:00`,
	`6,-1,-1,-1,-1,-1,0,0.00,123456789.125,0.5,true,a,b,{},1969-12-31,1969-12-31 23:59:59.999999,1969-12-31 23:59:59.9,1999-12-31 23:59:59.000001Z`,
}, "\n") + "\n", types: map[string]input.Type{
	"i64": input.BigIntType, "i32": {Kind: input.Int, Bits: 32}, "i16": {Kind: input.Int, Bits: 16}, "i8": {Kind: input.Int, Bits: 8},
	"d380": input.DecimalType(38, 0), "d3810": input.DecimalType(38, 10), "d182": input.DecimalType(18, 2),
	"f64": input.DoubleType, "f32": {Kind: input.Float, Bits: 32}, "b": input.BoolType,
	"txt": input.TextType, "vc": {Kind: input.Text, MaxChars: 10}, "j": input.JSONType,
	"dt": input.DateType, "ts": input.TimestampType, "ts3": {Kind: input.Timestamp, Precision: 3}, "tz": input.TimestampTZType,
}}

// JSON Lines: nested values into JSON and text columns, numbers kept as
// written in JSON.
var loadRowsJSONL = loadCase{format: "jsonl", body: `{"id": 1, "j": {"a": 5.70, "n": 12345678901234567890123, "s": "q\"\\\n"}, "t": {"b": [1, 2.50]}, "n": 12.50}
{"id": 2, "j": "text", "t": "line\nbreak\ttab \\ \"", "n": -0.5}
{"id": 3, "j": null, "t": "", "n": null}
{"id": 4, "t": null, "j": [true, false, null]}
`, types: map[string]input.Type{"j": input.JSONType, "t": input.TextType, "n": input.DecimalType(10, 2)}}

// TestLoadRowsRoundTrip loads every reader type at its edges into a
// staging table (CreateStage) and into a new target (CreateTableFrom),
// and reads every value back as the reader's text.
func TestLoadRowsRoundTrip(t *testing.T) {
	for name, c := range map[string]loadCase{"csv": loadRowsCSV, "jsonl": loadRowsJSONL} {
		t.Run(name, func(t *testing.T) {
			url := testDatabase(t)
			ctx := context.Background()
			db, err := mysql.Open(ctx, url, time.Minute)
			require.NoError(t, err)
			defer db.Close()
			in := scan(t, db, c)
			want := readerText(t, in)
			cols := columns(db, in)
			conn := db.Conn()

			var ran []string
			rec := func(s string) { ran = append(ran, s) }
			for _, s := range db.SQL().Stage.CreateStage(engine.StageTable, cols) {
				_, err := conn.ExecContext(ctx, s)
				require.NoError(t, err, s)
			}
			stage := engine.Table{Name: engine.StageTable}
			n := loadRows(t, db, conn, stage, cols, in, rec)
			require.Equal(t, in.Rows, n)
			require.Equal(t, want, tableText(t, conn, engine.StageTable, cols))
			require.Len(t, ran, 2)
			require.Contains(t, ran[0], `LOAD DATA LOCAL INFILE 'Reader::idem_1' INTO TABLE "idem_stage" CHARACTER SET utf8mb4`)
			require.Equal(t, "SHOW WARNINGS LIMIT 1", ran[1])
			if name == "csv" {
				require.Contains(t, ran[0], `"b" = CAST(@v11 AS UNSIGNED)`, "a BIT column takes its digit through a variable")
			}

			// A new target, made from the stage, loaded in a transaction.
			target := engine.Table{Name: "target"}
			for _, s := range db.SQL().Stage.CreateTableFrom(target, engine.StageTable, "") {
				_, err := conn.ExecContext(ctx, s)
				require.NoError(t, err, s)
			}
			tx, err := db.Begin(ctx)
			require.NoError(t, err)
			n = loadRows(t, db, tx, target, cols, in, func(string) {})
			require.Equal(t, in.Rows, n)
			require.NoError(t, tx.Commit())
			require.Equal(t, want, tableText(t, conn, "target", cols))
			_, err = conn.ExecContext(ctx, `DROP TEMPORARY TABLE "idem_stage"`)
			require.NoError(t, err)
		})
	}
}

// A load that a rollback undoes: the rows travel on the run's transaction.
func TestLoadRowsRollsBack(t *testing.T) {
	url := testDatabase(t)
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	in := scan(t, db, loadRowsCSV)
	cols := columns(db, in)
	defs := db.SQL().Stage.CreateStage("t", cols)
	_, err = db.Conn().ExecContext(ctx, strings.Replace(defs[0], "CREATE TEMPORARY TABLE", "CREATE TABLE", 1)+" ENGINE=InnoDB")
	require.NoError(t, err)
	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	require.Equal(t, in.Rows, loadRows(t, db, tx, engine.Table{Name: "t"}, cols, in, func(string) {}))
	require.NoError(t, tx.Rollback())
	var n int
	require.NoError(t, db.Conn().QueryRowContext(ctx, `SELECT count(*) FROM "t"`).Scan(&n))
	require.Zero(t, n)
}

// A value the column cannot hold is an error, never a changed value: with
// LOCAL the server only warns, and the loader fails on the warning.
func TestLoadRowsWarningFails(t *testing.T) {
	url := testDatabase(t)
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	in := scan(t, db, loadCase{format: "csv", body: "id,n,s\n1,300,ok\n2,5,🙂\n", types: map[string]input.Type{"n": input.BigIntType}})
	for _, tc := range []struct {
		name string
		cols []engine.Column
		msg  string
	}{
		{"out_of_range", []engine.Column{{Name: "id", Type: "BIGINT"}, {Name: "n", Type: "TINYINT"}, {Name: "s", Type: "LONGTEXT"}}, "Out of range value"},
		{"charset", []engine.Column{{Name: "id", Type: "BIGINT"}, {Name: "n", Type: "BIGINT"}, {Name: "s", Type: "LONGTEXT CHARACTER SET latin1"}}, "Incorrect string value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range db.SQL().Stage.CreateStage("bad", tc.cols) {
				_, err := db.Conn().ExecContext(ctx, s)
				require.NoError(t, err)
			}
			r := in.Read(ctx)
			defer r.Close()
			_, err := db.LoadRows(ctx, db.Conn(), engine.Table{Name: "bad"}, tc.cols, r, func(string) {})
			require.ErrorContains(t, err, tc.msg)
			_, err = db.Conn().ExecContext(ctx, `DROP TEMPORARY TABLE "bad"`)
			require.NoError(t, err)
		})
	}
}

// An input without rows loads none.
func TestLoadRowsNoRows(t *testing.T) {
	url := testDatabase(t)
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	in := scan(t, db, loadCase{format: "csv", body: "id,b\n", types: map[string]input.Type{"id": input.BigIntType, "b": input.BoolType}})
	cols := columns(db, in)
	for _, s := range db.SQL().Stage.CreateStage("s", cols) {
		_, err := db.Conn().ExecContext(ctx, s)
		require.NoError(t, err)
	}
	require.Zero(t, loadRows(t, db, db.Conn(), engine.Table{Name: "s"}, cols, in, func(string) {}))
}

// An error of the input while its rows stream ends the load with that
// error.
func TestLoadRowsInputError(t *testing.T) {
	url := testDatabase(t)
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	path := filepath.Join(t.TempDir(), "in.csv")
	require.NoError(t, os.WriteFile(path, []byte("id\n1\n2\n"), 0o644))
	in, err := input.Scan(ctx, input.Spec{Paths: []string{path}, Format: "csv", Limits: db.SQL().Types.Limits()})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("id\n1\n2\n3\n"), 0o644)) // changed after the scan
	cols := columns(db, in)
	for _, s := range db.SQL().Stage.CreateStage("s", cols) {
		_, err := db.Conn().ExecContext(ctx, s)
		require.NoError(t, err)
	}
	r := in.Read(ctx)
	defer r.Close()
	_, err = db.LoadRows(ctx, db.Conn(), engine.Table{Name: "s"}, cols, r, func(string) {})
	require.ErrorIs(t, err, input.ErrChanged)
	// The connection is still in step with the server.
	var one int
	require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT 1").Scan(&one))
}

// Each reader type's column, created and read back from the catalog, is
// the same reader type, or one holding the same values.
func TestReaderTypeRoundTrip(t *testing.T) {
	url := testDatabase(t)
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	types := db.SQL().Types
	for _, tc := range []struct {
		t, back input.Type // back: the zero Type when it is t
	}{
		{t: input.TextType},
		{t: input.Type{Kind: input.Text, MaxChars: 10}},
		{t: input.Type{Kind: input.Text, MaxChars: 255}},
		// Wider is LONGTEXT: a VARCHAR that wide could not share a row.
		{t: input.Type{Kind: input.Text, MaxChars: 256}, back: input.TextType},
		{t: input.BoolType},
		{t: input.Type{Kind: input.Int, Bits: 8}},
		{t: input.Type{Kind: input.Int, Bits: 16}},
		{t: input.Type{Kind: input.Int, Bits: 32}},
		{t: input.BigIntType},
		{t: input.DecimalType(1, 0)},
		{t: input.DecimalType(18, 2)},
		{t: input.DecimalType(38, 0)},
		{t: input.DecimalType(38, 10)},
		{t: input.DecimalType(38, 38)},
		{t: input.Type{Kind: input.Decimal}, back: input.DecimalType(65, 30)},
		{t: input.Type{Kind: input.Float, Bits: 32}},
		{t: input.DoubleType},
		{t: input.DateType},
		{t: input.TimestampType},
		{t: input.Type{Kind: input.Timestamp, Precision: 0}},
		{t: input.Type{Kind: input.Timestamp, Precision: 3}},
		{t: input.TimestampTZType},
		{t: input.Type{Kind: input.TimestampTZ, Precision: 0}},
		{t: input.JSONType},
	} {
		want := tc.back
		if want == (input.Type{}) {
			want = tc.t
		}
		typ := types.ColumnType(tc.t)
		_, err := db.Conn().ExecContext(ctx, `CREATE TABLE "rt" ("c" `+typ+`, "we`+"`"+`ird" `+typ+`)`)
		require.NoError(t, err, typ)
		q, args := db.SQL().Catalog.ColumnTypes(engine.Table{Name: "rt"})
		got := catalogTypes(t, db.Conn(), q, args)
		require.Len(t, got, 2)
		for _, c := range got {
			rt, ok := types.ReaderType(c[1])
			require.True(t, ok, "%s: %s read back as %s", tc.t, typ, c[1])
			require.Equal(t, want, rt, "%s: %s read back as %s", tc.t, typ, c[1])
		}
		// The schema named: the same.
		q, args = db.SQL().Catalog.ColumnTypes(engine.Table{Schema: db.Names().DefaultSchema, Name: "rt"})
		require.Equal(t, got, catalogTypes(t, db.Conn(), q, args))
		_, err = db.Conn().ExecContext(ctx, `DROP TABLE "rt"`)
		require.NoError(t, err)
	}
	// MariaDB's JSON is a longtext with a check: a longtext without one is
	// text.
	_, err = db.Conn().ExecContext(ctx, `CREATE TABLE "rt" ("a" LONGTEXT, "b" JSON, "c" LONGTEXT CHECK (json_valid("a")))`)
	require.NoError(t, err)
	q, args := db.SQL().Catalog.ColumnTypes(engine.Table{Name: "rt"})
	require.Equal(t, [][2]string{{"a", "longtext"}, {"b", "json"}, {"c", "longtext"}}, catalogTypes(t, db.Conn(), q, args))
}

func catalogTypes(t *testing.T, conn engine.Querier, q string, args []any) [][2]string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), q, args...)
	require.NoError(t, err, q)
	defer rows.Close()
	var got [][2]string
	for rows.Next() {
		var c [2]string
		require.NoError(t, rows.Scan(&c[0], &c[1]))
		got = append(got, c)
	}
	require.NoError(t, rows.Err())
	return got
}

// scan writes c's file and scans it with the engine's limits.
func scan(t *testing.T, db *mysql.DB, c loadCase) *input.Input {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in."+c.format)
	require.NoError(t, os.WriteFile(path, []byte(c.body), 0o644))
	in, err := input.Scan(context.Background(), input.Spec{Paths: []string{path}, Format: c.format, Types: c.types, Limits: db.SQL().Types.Limits()})
	require.NoError(t, err)
	return in
}

// columns are the input's columns with the engine's types for them.
func columns(db *mysql.DB, in *input.Input) []engine.Column {
	cols := make([]engine.Column, len(in.Columns))
	for i, c := range in.Columns {
		cols[i] = engine.Column{Name: c.Name, Type: db.SQL().Types.ColumnType(c.Type)}
	}
	return cols
}

func loadRows(t *testing.T, db *mysql.DB, q engine.Querier, tbl engine.Table, cols []engine.Column, in *input.Input, rec func(string)) int64 {
	t.Helper()
	r := in.Read(context.Background())
	defer r.Close()
	n, err := db.LoadRows(context.Background(), q, tbl, cols, r, rec)
	require.NoError(t, err)
	return n
}

// readerText is every row of the input as the reader's canonical text,
// NULL as NULL, with the differences a read back shows normalized (see
// normal).
func readerText(t *testing.T, in *input.Input) [][]string {
	t.Helper()
	r := in.Read(context.Background())
	defer r.Close()
	var rows [][]string
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		for i := range b.Len {
			row := make([]string, len(b.Cols))
			for j, v := range b.Cols {
				s, ok := v.Text(i)
				if !ok {
					s = "NULL"
				} else {
					s = normal(v.Type.Kind, v.Type.Bits, s)
				}
				row[j] = s
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// tableText reads every row of table back as text, in id order.
func tableText(t *testing.T, conn engine.Querier, table string, cols []engine.Column) [][]string {
	t.Helper()
	d := mysql.Dialect{}
	sel := make([]string, len(cols))
	for i, c := range cols {
		col := d.Ident(c.Name)
		switch base, _, _ := strings.Cut(c.Type, "("); strings.TrimSpace(base) {
		case "BIT":
			sel[i] = "CASE " + col + " WHEN 1 THEN 'true' WHEN 0 THEN 'false' END"
		case "FLOAT":
			sel[i] = "CAST(" + col + " AS DOUBLE)"
		default:
			sel[i] = "CAST(" + col + " AS CHAR)"
		}
	}
	rows, err := conn.QueryContext(context.Background(), "SELECT "+strings.Join(sel, ", ")+" FROM "+d.Ident(table)+` ORDER BY "id"`)
	require.NoError(t, err)
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if !v.Valid {
				continue
			}
			row[i] = v.String
			switch base, _, _ := strings.Cut(cols[i].Type, "("); strings.TrimSpace(base) {
			case "FLOAT":
				f, err := strconv.ParseFloat(v.String, 64)
				require.NoError(t, err)
				require.Equal(t, f, float64(float32(f)), "a FLOAT reads back as a float32's value")
				row[i] = normal(input.Float, 32, v.String)
			case "DOUBLE":
				row[i] = normal(input.Float, 64, v.String)
			case "DATETIME", "TIMESTAMP":
				row[i] = normal(input.Timestamp, 0, v.String)
			}
		}
		out = append(out, row)
	}
	require.NoError(t, rows.Err())
	return out
}

// normal spells a value's text the one way both sides compare: a float
// in its shortest form (MariaDB prints 1e300, the reader 1e+300), a
// timestamp without its fraction's trailing zeros (MariaDB prints as many
// digits as the column keeps, the reader six or none).
func normal(k input.Kind, bits int, s string) string {
	switch k {
	case input.Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) {
			return "bad float " + s
		}
		return strconv.FormatFloat(f, 'g', -1, bits)
	case input.Timestamp, input.TimestampTZ:
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
	}
	return s
}

// BenchmarkLoadRows1M reads the 1M-row orders file (IDEM_BENCH_CSV) and
// loads it into a new InnoDB table: the reader's two passes and LoadRows;
// as the floor, the bare LOAD DATA LOCAL INFILE of the file's bytes into a
// table of the same shape.
//
//	IDEM_BENCH_CSV=orders-1000000.csv go test ./engine/mysql -run '^$' -bench LoadRows1M -benchtime 3x
func BenchmarkLoadRows1M(b *testing.B) {
	path := os.Getenv("IDEM_BENCH_CSV")
	if path == "" {
		b.Skip("IDEM_BENCH_CSV names no file")
	}
	url, admin := benchDatabase(b)
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(b, err)
	defer db.Close()
	types := map[string]input.Type{"amount": input.DecimalType(12, 2)}
	spec := input.Spec{Paths: []string{path}, Format: "csv", Types: types, Limits: db.SQL().Types.Limits()}
	in, err := input.Scan(ctx, spec)
	require.NoError(b, err)
	cols := columns(db, in)
	create := strings.Replace(db.SQL().Stage.CreateStage("bench_orders", cols)[0], "CREATE TEMPORARY TABLE", "CREATE TABLE", 1) + " ENGINE=InnoDB"
	fresh := func(b *testing.B) {
		b.StopTimer()
		for _, q := range []string{"DROP TABLE IF EXISTS bench_orders", create} {
			_, err := admin.Exec(q)
			require.NoError(b, err)
		}
		b.StartTimer()
	}
	b.Run("reader_and_load_rows", func(b *testing.B) {
		for b.Loop() {
			fresh(b)
			in, err := input.Scan(ctx, spec)
			require.NoError(b, err)
			r := in.Read(ctx)
			n, err := db.LoadRows(ctx, db.Conn(), engine.Table{Name: "bench_orders"}, cols, r, func(string) {})
			r.Close()
			require.NoError(b, err)
			require.Equal(b, in.Rows, n)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/load")
		b.ReportMetric(float64(in.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("load_rows_only", func(b *testing.B) {
		for b.Loop() {
			fresh(b)
			r := in.Read(ctx)
			n, err := db.LoadRows(ctx, db.Conn(), engine.Table{Name: "bench_orders"}, cols, r, func(string) {})
			r.Close()
			require.NoError(b, err)
			require.Equal(b, in.Rows, n)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/load")
	})
	b.Run("bare_load_data_local", func(b *testing.B) {
		gomysql.RegisterLocalFile(path)
		for b.Loop() {
			fresh(b)
			res, err := admin.Exec(`LOAD DATA LOCAL INFILE '` + path + `' INTO TABLE bench_orders
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' IGNORE 1 LINES`)
			require.NoError(b, err)
			n, err := res.RowsAffected()
			require.NoError(b, err)
			require.Equal(b, in.Rows, n)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/load")
	})
	_, err = admin.Exec("DROP DATABASE idem_bench")
	require.NoError(b, err)
}
