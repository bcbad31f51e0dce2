//go:build unix

package idem_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/clickhouse"
)

// Each source engine's types beyond the matrix's: mapped faithfully (the
// value checked in the target), refused naming the column before anything
// is written (exit 2), or a value refused naming its row (exit 1).

// typesSource creates table orders (id, day, then cols: "name TYPE") in a
// source database of engine, with rows (values after id and day), and
// returns its URL and the table's name there.
func typesSource(t *testing.T, engine, dir string, cols []string, rows ...string) (string, string) {
	t.Helper()
	create := "CREATE TABLE orders (id BIGINT, day DATE, " + strings.Join(cols, ", ") + ")"
	var values []string
	for i, r := range rows {
		values = append(values, fmt.Sprintf("(%d, '2026-11-28', %s)", i+1, r))
	}
	insert := "INSERT INTO orders VALUES " + strings.Join(values, ", ")
	switch engine {
	case "postgres":
		u, db := pgDatabase(t, "src")
		sqlExec(t, db, create, insert)
		return u, "orders"
	case "mariadb":
		u, db := mysqlDatabase(t, "src")
		conn, err := db.Conn(context.Background())
		require.NoError(t, err)
		defer conn.Close()
		// A zero date is stored only under a sql_mode without NO_ZERO_DATE.
		for _, q := range []string{"SET SESSION sql_mode = ''", create, insert} {
			_, err := conn.ExecContext(context.Background(), q)
			require.NoError(t, err, q)
		}
		return u, "orders"
	case "duckdb":
		db, err := sql.Open("duckdb", filepath.Join(dir, "src.duckdb"))
		require.NoError(t, err)
		defer db.Close()
		sqlExec(t, db, create, insert)
		return "duckdb:src.duckdb", "orders"
	}
	db, err := clickhouse.Open(context.Background(), filepath.Join(dir, "src.chdb"), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	create = strings.Replace(create, "id BIGINT, day DATE", "id Int64, day Date32", 1)
	for _, q := range []string{"CREATE DATABASE src", strings.Replace(create, "orders", "src.orders", 1) + " ENGINE = MergeTree ORDER BY id", strings.Replace(insert, "orders", "src.orders", 1)} {
		_, err := db.Conn().ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	return "chdb:src.chdb", "src.orders"
}

// runTypes runs a partition job reading srcTable of srcURL into target
// for 2026-11-28, returning the exit code and the output.
func runTypes(t *testing.T, dir, target, srcURL, srcTable string) (int, string) {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("job%d.yaml", srcSeq.Add(1)))
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: "+target+"\n  table: orders\n"+
		fmt.Sprintf("source:\n  url: %s\n  table: %s\nstrategy: partition\npartition:\n  column: day\nkey: id\n", srcURL, srcTable)), 0o644))
	return cliRun("run", path, "--date", "2026-11-28")
}

// typeCase is a source column type and what becomes of its value.
type typeCase struct {
	col, typ, value string
	want            string // the target's text of it
}

// checkMapped loads cases' columns from engine into DuckDB and checks
// each value.
func checkMapped(t *testing.T, engine string, cases []typeCase) {
	t.Helper()
	dir := t.TempDir()
	var cols, vals, names []string
	for _, c := range cases {
		cols, vals, names = append(cols, c.col+" "+c.typ), append(vals, c.value), append(names, c.col)
	}
	u, table := typesSource(t, engine, dir, cols, strings.Join(vals, ", "))
	code, out := runTypes(t, dir, "duckdb:w.duckdb", u, table)
	require.Equal(t, 0, code, out)
	row := headRows(t, "duckdb:"+filepath.Join(dir, "w.duckdb"), dir, []string{"id"}, names...)
	require.Len(t, row, 1)
	got := strings.Split(row[0], "|")
	for i, c := range cases {
		require.Equal(t, c.want, got[i], "%s %s", c.col, c.typ)
	}
}

// checkRefusedTypes reads a table of columns idem refuses: exit 2, each
// column named, nothing created in the target.
func checkRefusedTypes(t *testing.T, engine string, cases []typeCase) {
	t.Helper()
	dir := t.TempDir()
	var cols, vals []string
	for _, c := range cases {
		cols, vals = append(cols, c.col+" "+c.typ), append(vals, c.value)
	}
	u, table := typesSource(t, engine, dir, cols, strings.Join(vals, ", "))
	code, out := runTypes(t, dir, "duckdb:w.duckdb", u, table)
	require.Equal(t, 2, code, out)
	for _, c := range cases {
		require.Contains(t, out, fmt.Sprintf("column %q is %s", c.col, c.want), c.typ)
	}
	_, err := os.Stat(filepath.Join(dir, "w.duckdb"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing was created")
}

// checkRefusedValue reads one column whose value no target holds as it
// is: exit 1, the row and the column named, the value shown.
func checkRefusedValue(t *testing.T, engine, target string, c typeCase) {
	t.Helper()
	dir := t.TempDir()
	if target == "" {
		target = "duckdb:w.duckdb"
	}
	u, table := typesSource(t, engine, dir, []string{c.col + " " + c.typ}, c.value)
	code, out := runTypes(t, dir, target, u, table)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, fmt.Sprintf("source row 1: column %q: %s", c.col, c.want))
}

func TestSourceTypesPostgres(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		u, db := pgDatabase(t, "src")
		sqlExec(t, db, "CREATE TYPE mood AS ENUM ('sad', 'ok')")
		dir := t.TempDir()
		sqlExec(t, db, "CREATE TABLE orders (id BIGINT, day DATE, iv INTERVAL, arr INTEGER[], mood mood, cash MONEY, ip INET, raw BYTEA)",
			`INSERT INTO orders VALUES (1, '2026-11-28', '1 day', '{1,2}', 'ok', 12.5, '10.0.0.1', '\x00ff')`)
		code, out := runTypes(t, dir, "duckdb:w.duckdb", u, "orders")
		require.Equal(t, 2, code, out)
		for _, want := range []string{`column "iv" is INTERVAL`, `column "arr" is INT4[] (an array)`, `column "mood" is a type of this database (an enum`,
			`column "cash" is MONEY`, `column "ip" is INET`, `column "raw" is BYTEA`} {
			require.Contains(t, out, want)
		}
	})
	t.Run("infinity", func(t *testing.T) {
		checkRefusedValue(t, "postgres", "", typeCase{"d", "DATE", "'infinity'", `"infinity" is not a date`})
	})
}

func TestSourceTypesMariaDB(t *testing.T) {
	t.Run("mapped", func(t *testing.T) {
		checkMapped(t, "mariadb", []typeCase{
			{"ub", "BIGINT UNSIGNED", "18446744073709551615", "18446744073709551615"},
			{"ui", "INT UNSIGNED", "4294967295", "4294967295"},
			{"y", "YEAR", "2155", "2155"},
			{"y0", "YEAR", "0", "0"},
			{"e", "ENUM('a','b')", "'b'", "b"},
			{"s", "SET('x','y')", "'x,y'", "x,y"},
			{"ts", "TIMESTAMP(6) NULL", "'2038-01-19 03:14:07.999999'", "2038-01-19 03:14:07.999999+00"},
			{"dt", "DATETIME(6)", "'0001-01-01 00:00:00'", "0001-01-01 00:00:00"},
		})
	})
	t.Run("refused", func(t *testing.T) {
		checkRefusedTypes(t, "mariadb", []typeCase{
			{"b", "BIT(8)", "b'101'", "BIT, whose width"},
			{"b1", "BIT(1)", "b'1'", "BIT, whose width"},
			{"tm", "TIME", "'12:00:00'", "TIME"},
			{"raw", "BLOB", "'x'", "BLOB"},
		})
	})
	// A zero date is no date: refused naming its row and column (exit 1),
	// not read as 0001-01-01 or NULL; a zero month is not the month before.
	for _, c := range []typeCase{
		{"d", "DATE", "'0000-00-00'", `"0000-00-00" is not a date`},
		{"dt", "DATETIME", "'0000-00-00 00:00:00'", `"0000-00-00 00:00:00" is not a`},
		{"d", "DATE", "'2026-00-15'", `"2026-00-15" is not a date`},
		{"ts", "TIMESTAMP NULL", "'0000-00-00 00:00:00'", `"0000-00-00 00:00:00" is not a`},
	} {
		t.Run("zero "+c.typ+" "+c.value, func(t *testing.T) { checkRefusedValue(t, "mariadb", "", c) })
	}
}

func TestSourceTypesDuckDB(t *testing.T) {
	t.Run("mapped", func(t *testing.T) {
		checkMapped(t, "duckdb", []typeCase{
			{"ub", "UBIGINT", "18446744073709551615", "18446744073709551615"},
			{"h", "HUGEINT", "-99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"},
			{"ui", "UINTEGER", "4294967295", "4294967295"},
			{"u", "UUID", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
			{"e", "ENUM('a', 'b')", "'b'", "b"},
		})
	})
	t.Run("refused", func(t *testing.T) {
		checkRefusedTypes(t, "duckdb", []typeCase{
			{"l", "INTEGER[]", "[1, 2]", "INTEGER[]"},
			{"st", "STRUCT(a INTEGER)", "{'a': 1}", "STRUCT"},
			{"m", "MAP(VARCHAR, INTEGER)", "MAP {'a': 1}", "MAP"},
			{"iv", "INTERVAL", "INTERVAL 1 DAY", "INTERVAL"},
			{"raw", "BLOB", "'x'::BLOB", "BLOB"},
			{"j", "JSON", "'{}'", "JSON"},
			{"tm", "TIME", "'12:00:00'", "TIME"},
			{"un", "UNION(n INTEGER, s VARCHAR)", "1::INTEGER", "UNION"},
		})
	})
	t.Run("hugeint past 38 digits", func(t *testing.T) {
		checkRefusedValue(t, "duckdb", "", typeCase{"h", "HUGEINT", "170141183460469231731687303715884105727", `"170141183460469231731687303715884105727"`})
	})
}

func TestSourceTypesClickHouse(t *testing.T) {
	t.Run("mapped", func(t *testing.T) {
		checkMapped(t, "clickhouse", []typeCase{
			{"u64", "UInt64", "18446744073709551615", "18446744073709551615"},
			{"u8", "UInt8", "255", "255"},
			{"i128", "Int128", "-99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"},
			{"e", "Enum8('a' = 1, 'b' = 2)", "'b'", "b"},
			{"lc", "LowCardinality(Nullable(String))", "'x'", "x"},
			{"j", "JSON", `'{"b": [1, 2], "a": "ü"}'`, `{"a":"ü","b":[1,2]}`},
			{"dt", "DateTime", "'2106-02-07 06:28:15'", "2106-02-07 06:28:15"},
			{"d", "Date", "'2149-06-06'", "2149-06-06"},
			{"tk", "DateTime64(9, 'Asia/Tokyo')", "'2026-01-01 09:00:00.123456'", "2026-01-01 00:00:00.123456+00"},
			{"dec", "Decimal(38, 38)", "'0.99999999999999999999999999999999999999'", ".99999999999999999999999999999999999999"}, // DuckDB's text of it
		})
	})
	t.Run("refused", func(t *testing.T) {
		checkRefusedTypes(t, "clickhouse", []typeCase{
			{"arr", "Array(Int32)", "[1, 2]", "Array(Int32)"},
			{"m", "Map(String, Int32)", "{'a': 1}", "Map(String, Int32)"},
			{"tu", "Tuple(Int32, String)", "(1, 'x')", "Tuple(Int32, String)"},
			{"ip", "IPv4", "'10.0.0.1'", "IPv4"},
			{"fs", "FixedString(3)", "'ab'", "FixedString(3)"},
			{"tm", "Time", "'12:00:00'", "Time"},
		})
	})
	t.Run("int128 past 38 digits", func(t *testing.T) {
		checkRefusedValue(t, "clickhouse", "", typeCase{"i", "Int128", "170141183460469231731687303715884105727", `"170141183460469231731687303715884105727"`})
	})
	t.Run("nanoseconds", func(t *testing.T) {
		checkRefusedValue(t, "clickhouse", "", typeCase{"t", "DateTime64(9)", "'2026-01-01 00:00:00.123456789'", `"2026-01-01 00:00:00.123456789" has nanoseconds`})
	})
	t.Run("int256 into PostgreSQL", func(t *testing.T) {
		dir := t.TempDir()
		u, table := typesSource(t, "clickhouse", dir, []string{"big Int256"}, "-57896044618658097711785492504343953926634992332820282019728792003956564819968")
		target, _ := pgDatabase(t, "dst")
		code, out := runTypes(t, dir, target, u, table)
		require.Equal(t, 0, code, out)
		require.Equal(t, []string{"-57896044618658097711785492504343953926634992332820282019728792003956564819968"}, headRows(t, target, dir, []string{"id"}, "big"))
		code, out = runTypes(t, dir, "duckdb:w.duckdb", u, table)
		require.Equal(t, 2, code, out)
		require.Contains(t, out, `column "big" is a decimal without a precision and scale`)
	})
}
