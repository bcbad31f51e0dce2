//go:build unix

package idem_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/stdsql"
	"github.com/idemdata/idem/runner"
)

// The conformance matrix of database sources: every source engine into
// every target engine, each pair run twice (the second writes nothing),
// one source row changed (only its partition changes), and the values at
// their types' edges kept: 64-bit extremes, 38 digits, NULL beside empty
// text, unicode, the first and last times both engines hold (wall clocks
// and instants), JSON, UUID, booleans and doubles.

// timeSpan is the times an engine holds, as text: wall clocks and instants.
type timeSpan struct{ minWall, maxWall, minInstant, maxInstant string }

// pairEngine is one engine of the matrix.
type pairEngine struct {
	name  string
	times timeSpan
	// types spells each column's type in the engine, for a source.
	types map[string]string
	// instant spells an instant literal (UTC) for an INSERT there.
	instant func(string) string
}

var (
	wideTimes = timeSpan{"0001-01-01 00:00:00", "9999-12-31 23:59:59.999999", "0001-01-01 00:00:00", "9999-12-31 23:59:59.999999"}
	pairsPG   = pairEngine{"postgres", wideTimes, map[string]string{"id": "BIGINT NOT NULL", "day": "DATE NOT NULL", "amount": "NUMERIC(38,10)", "name": "TEXT", "ts": "TIMESTAMP(6)", "tz": "TIMESTAMPTZ", "flag": "BOOLEAN", "f": "DOUBLE PRECISION", "doc": "JSONB", "u": "UUID"}, func(s string) string { return s + "+00" }}
	pairsMy   = pairEngine{"mariadb", timeSpan{"1000-01-01 00:00:00", "9999-12-31 23:59:59.999999", "1970-01-01 00:00:01", "2038-01-19 03:14:07.999999"}, map[string]string{"id": "BIGINT NOT NULL", "day": "DATE NOT NULL", "amount": "DECIMAL(38,10)", "name": "TEXT", "ts": "DATETIME(6)", "tz": "TIMESTAMP(6) NULL", "flag": "BOOLEAN", "f": "DOUBLE", "doc": "JSON", "u": "UUID"}, func(s string) string { return s }}
	pairsDuck = pairEngine{"duckdb", wideTimes, map[string]string{"id": "BIGINT NOT NULL", "day": "DATE NOT NULL", "amount": "DECIMAL(38,10)", "name": "VARCHAR", "ts": "TIMESTAMP", "tz": "TIMESTAMPTZ", "flag": "BOOLEAN", "f": "DOUBLE", "doc": "VARCHAR", "u": "UUID"}, func(s string) string { return s + "+00" }}
	pairsCH   = pairEngine{"clickhouse", timeSpan{"1900-01-01 00:00:00", "2299-12-31 23:59:59.999999", "1900-01-02 00:00:00", "2299-12-30 23:59:59.999999"}, map[string]string{"id": "Int64", "day": "Date32", "amount": "Nullable(Decimal(38,10))", "name": "Nullable(String)", "ts": "Nullable(DateTime64(6))", "tz": "Nullable(DateTime64(6, 'UTC'))", "flag": "Nullable(Bool)", "f": "Nullable(Float64)", "doc": "Nullable(String)", "u": "Nullable(UUID)"}, func(s string) string { return s }}
)

// pairColumns are the matrix's columns, in order.
var pairColumns = []string{"id", "day", "amount", "name", "ts", "tz", "flag", "f", "doc", "u"}

// within is the span both engines hold.
func within(a, b timeSpan) timeSpan {
	later := func(x, y string) string { return max(x, y) } // the texts sort as the times
	earlier := func(x, y string) string { return min(x, y) }
	return timeSpan{later(a.minWall, b.minWall), earlier(a.maxWall, b.maxWall), later(a.minInstant, b.minInstant), earlier(a.maxInstant, b.maxInstant)}
}

// pairRows are the source's rows: two on 2026-11-28 at the edges, one of
// NULLs, and two on 2026-11-29.
func pairRows(e pairEngine, s timeSpan) []string {
	q := func(v string) string { return "'" + v + "'" }
	return []string{
		fmt.Sprintf("(9223372036854775807, '2026-11-28', '9999999999999999999999999999.9999999999', 'Zoë 🎉 日本', %s, %s, true, 1.7976931348623157e308, '{\"b\": [1, 2.50], \"a\": \"ü\"}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')",
			q(s.maxWall), q(e.instant(s.maxInstant))),
		fmt.Sprintf("(-9223372036854775808, '2026-11-28', '-9999999999999999999999999999.9999999999', '', %s, %s, false, -2.2250738585072014e-308, '[]', '00000000-0000-0000-0000-000000000000')",
			q(s.minWall), q(e.instant(s.minInstant))),
		"(3, '2026-11-28', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
		fmt.Sprintf("(4, '2026-11-29', '12.5', 'b', '2026-11-29 10:00:00.123456', %s, true, 0.1, '{}', 'ffffffff-ffff-ffff-ffff-ffffffffffff')", q(e.instant("2026-11-29 10:00:00.123456"))),
		fmt.Sprintf("(5, '2026-11-29', '7', 'c', '2026-11-29 11:00:00', %s, false, 2, '{\"n\": null}', '12345678-1234-1234-1234-123456789abc')", q(e.instant("2026-11-29 11:00:00"))),
	}
}

// pairSource is a source database of the matrix, seeded.
type pairSource struct {
	url, table string
	exec       func(q string)
}

// newPairSource creates e's source database (dropped at the end), in the
// target's chDB folder when both are chDB (one folder per process).
func newPairSource(t *testing.T, e pairEngine, dir, target string, s timeSpan) pairSource {
	t.Helper()
	var defs []string
	for _, c := range pairColumns {
		defs = append(defs, c+" "+e.types[c])
	}
	create := "CREATE TABLE orders (" + strings.Join(defs, ", ") + ")"
	insert := "INSERT INTO orders VALUES " + strings.Join(pairRows(e, s), ",\n")
	var src pairSource
	switch e.name {
	case "postgres", "mariadb":
		var db *sql.DB
		if e.name == "postgres" {
			src.url, db = pgDatabase(t, "src")
		} else {
			src.url, db = mysqlDatabase(t, "src")
		}
		src.table, src.exec = "orders", func(q string) { sqlExec(t, db, q) }
	case "duckdb":
		path := filepath.Join(dir, "src.duckdb")
		src.url, src.table = "duckdb:src.duckdb", "orders"
		src.exec = func(q string) {
			db, err := sql.Open("duckdb", path)
			require.NoError(t, err)
			defer db.Close()
			sqlExec(t, db, q)
		}
	case "clickhouse":
		path := filepath.Join(dir, "src.chdb")
		if strings.HasPrefix(target, "chdb:") {
			path = strings.TrimPrefix(target, "chdb:")
		}
		src.url, src.table = "chdb:"+path, "src.orders"
		src.exec = func(q string) {
			db, err := clickhouse.Open(context.Background(), path, time.Minute)
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Conn().ExecContext(context.Background(), q)
			require.NoError(t, err, q)
		}
		src.exec("CREATE DATABASE IF NOT EXISTS src")
		create = strings.Replace(create+" ENGINE = MergeTree ORDER BY id", "orders", "src.orders", 1)
		insert = strings.Replace(insert, "orders", "src.orders", 1)
	}
	src.exec(create)
	src.exec(insert)
	if e.name == "clickhouse" {
		src.exec = func(exec func(string)) func(string) {
			return func(q string) { exec(strings.Replace(q, "UPDATE orders SET", "ALTER TABLE src.orders UPDATE", 1)) }
		}(src.exec)
	}
	return src
}

// pairTarget makes an empty target of engine name.
func pairTarget(t *testing.T, name, dir string) string {
	t.Helper()
	switch name {
	case "postgres":
		u, _ := pgDatabase(t, "dst")
		return u
	case "mariadb":
		u, _ := mysqlDatabase(t, "dst")
		return u
	case "duckdb":
		return "duckdb:" + filepath.Join(dir, "w.duckdb")
	}
	return "chdb:" + filepath.Join(dir, "w.chdb")
}

func TestSourcePairs(t *testing.T) {
	engines := []pairEngine{pairsPG, pairsMy, pairsDuck, pairsCH}
	for _, from := range engines {
		for _, to := range engines {
			t.Run(from.name+"_to_"+to.name, func(t *testing.T) {
				dir := t.TempDir()
				target := pairTarget(t, to.name, dir)
				s := within(from.times, to.times)
				src := newPairSource(t, from, dir, target, s)
				checkPair(t, from, src, target, dir, s)
			})
		}
	}
}

// checkPair runs the pair's partition job twice, checks every value, then
// changes one source row and checks that only its partition changes.
func checkPair(t *testing.T, from pairEngine, src pairSource, target, dir string, s timeSpan) {
	t.Helper()
	j := dbJob(t, dir, target, fmt.Sprintf("source:\n  url: %s\n  table: %s\nstrategy: partition\npartition:\n  column: day\nkey: id\n", src.url, src.table))
	for _, day := range []string{"2026-11-28", "2026-11-29"} {
		r, err := runDay(t, j, day)
		require.NoError(t, err)
		require.Equal(t, runner.ActionLoaded, r.Action, day)
	}
	r, err := runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	require.Equal(t, runner.ActionSkipped, r.Action, "an unchanged source is read once and nothing written")
	cells := targetCells(t, target, dir)
	require.Len(t, cells, 5)
	checkPairValues(t, from, cells, s)

	src.exec("UPDATE orders SET name = 'changed' WHERE id = 4")
	r, err = runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	require.Equal(t, runner.ActionSkipped, r.Action, "the other partition is unchanged")
	r, err = runDay(t, j, "2026-11-29")
	require.NoError(t, err)
	require.Equal(t, runner.ActionLoaded, r.Action)
	after := targetCells(t, target, dir)
	for _, id := range []string{"9223372036854775807", "-9223372036854775808", "3", "5"} {
		require.Equal(t, cells[id], after[id], "row %s", id)
	}
	require.Equal(t, "changed", after["4"]["name"])
}

// checkPairValues checks each value the target holds against the one the
// source held.
func checkPairValues(t *testing.T, from pairEngine, cells map[string]map[string]string, s timeSpan) {
	t.Helper()
	top, bottom, nulls := cells["9223372036854775807"], cells["-9223372036854775808"], cells["3"]
	require.NotNil(t, top)
	require.NotNil(t, bottom)
	require.Equal(t, "9999999999999999999999999999.9999999999", top["amount"])
	require.Equal(t, "-9999999999999999999999999999.9999999999", bottom["amount"])
	require.Equal(t, "Zoë 🎉 日本", top["name"])
	require.Equal(t, "", bottom["name"], "empty text stays empty text")
	require.Equal(t, "2026-11-28", top["day"])
	for _, c := range pairColumns[2:] {
		require.Equal(t, "NULL", nulls[c], "NULL stays NULL in %s", c)
	}
	require.Equal(t, s.maxWall, wallText(top["ts"]))
	require.Equal(t, s.minWall, wallText(bottom["ts"]))
	require.Equal(t, s.maxInstant, wallText(top["tz"]), "the instant is kept")
	require.Equal(t, s.minInstant, wallText(bottom["tz"]))
	require.Equal(t, "2026-11-29 10:00:00.123456", wallText(cells["4"]["tz"]))
	flags := []string{"true", "false"}
	if from.name == "mariadb" { // MariaDB's BOOLEAN is TINYINT(1): its numbers
		flags = []string{"1", "0"}
	}
	require.Equal(t, flags[0], boolText(top["flag"]))
	require.Equal(t, flags[1], boolText(bottom["flag"]))
	require.Equal(t, math.MaxFloat64, floatOf(t, top["f"]))
	require.Equal(t, -2.2250738585072014e-308, floatOf(t, bottom["f"]))
	require.Equal(t, 0.1, floatOf(t, cells["4"]["f"]))
	require.Contains(t, top["doc"], `"ü"`)
	require.Contains(t, top["doc"], `"b"`)
	require.Equal(t, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", top["u"])
	require.Equal(t, "00000000-0000-0000-0000-000000000000", bottom["u"])
}

// wallText is a time's text without its zone (+00, +00:00, Z, UTC) and
// without a fraction of zeros, as the timeSpan spells times.
func wallText(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "+00:00"), "+00"), "Z"))
	s = strings.TrimSuffix(strings.Replace(s, "T", " ", 1), " UTC")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		frac := strings.TrimRight(s[i:], "0")
		if frac == "." {
			frac = ""
		}
		s = s[:i] + frac
	}
	return s
}

// boolText reads a boolean as engines spell it (MariaDB's BIT(1) as
// its byte).
func boolText(s string) string {
	switch strings.ToLower(s) {
	case "t", "\x01":
		return "true"
	case "f", "\x00":
		return "false"
	}
	return strings.ToLower(s)
}

func floatOf(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.Replace(s, "e308", "e+308", 1), 64)
	require.NoError(t, err, s)
	return f
}

// targetCells reads a target's orders, each value as the engine's text
// (NULL as "NULL"), by row id and column.
func targetCells(t *testing.T, target, dir string) map[string]map[string]string {
	t.Helper()
	ctx := context.Background()
	db, err := idem.OpenReadOnly(ctx, target, dir, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	s := db.SQL()
	var cols []engine.Column
	for _, n := range pairColumns {
		cols = append(cols, engine.Column{Name: n})
	}
	q := s.Inspect.Head(s.Table(engine.Table{Name: "orders"}), cols, "", []string{s.Ident(stdsql.ShowAlias) + "." + s.Ident("id")}, 100)
	rows, err := db.Conn().QueryContext(ctx, q)
	require.NoError(t, err, q)
	defer rows.Close()
	out := map[string]map[string]string{}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		row := map[string]string{}
		for i, v := range vals {
			row[pairColumns[i]] = "NULL"
			if v.Valid {
				row[pairColumns[i]] = v.String
			}
		}
		out[row["id"]] = row
	}
	require.NoError(t, rows.Err())
	return out
}
