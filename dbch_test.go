//go:build unix

package idem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/clickhouse"
)

// ClickHouse as a source: read-only by ClickHouse's own rules, and chDB's
// one folder per process.

// chCount counts src.orders in the chDB folder at path.
func chCount(t *testing.T, path string) int {
	t.Helper()
	db, err := clickhouse.Open(context.Background(), path, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.Conn().QueryRowContext(context.Background(), "SELECT count() FROM src.orders").Scan(&n))
	return n
}

// queryJob writes a job reading query from srcURL into target.
func queryJob(t *testing.T, dir, target, srcURL, query string) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("job%d.yaml", srcSeq.Add(1)))
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: "+target+"\n  table: orders\n"+
		fmt.Sprintf("source:\n  url: %s\n  query: %q\nstrategy: partition\npartition:\n  column: day\nkey: id\nlint:\n  allow: [query-without-window]\n", srcURL, query)), 0o644))
	return path
}

// A write through a ClickHouse source is refused by ClickHouse (only a
// SELECT parses as the source's subquery), and the query runs with
// readonly = 1: in a session the source opened, and in the session of a
// chDB target in the same folder.
func TestSourceClickHouseWriteRefused(t *testing.T) {
	dir := t.TempDir()
	srcURL, _ := typesSource(t, "clickhouse", dir, []string{"n Int64"}, "1")
	srcPath := filepath.Join(dir, "src.chdb")
	for _, c := range []struct{ name, target, source string }{
		{"own session", "duckdb:w.duckdb", srcURL},
		{"the target's session", "chdb:src.chdb", srcURL},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, q := range []string{
				"INSERT INTO src.orders (id, day, n) VALUES (99, '2026-11-28', 9)",
				"CREATE TABLE src.made (id Int64, day Date32) ENGINE = Memory",
				"ALTER TABLE src.orders DELETE WHERE 1",
			} {
				code, out := cliRun("run", queryJob(t, dir, c.target, c.source, q), "--date", "2026-11-28")
				require.NotEqual(t, 0, code, out)
				require.Contains(t, out, "Syntax error", q)
				require.Equal(t, 1, chCount(t, srcPath), "the source is unchanged")
			}
			path := queryJob(t, dir, c.target, c.source, "SELECT 1 AS id, {{ date }} AS day, getSetting('readonly') AS ro")
			code, out := cliRun("run", path, "--date", "2026-11-28")
			require.Equal(t, 0, code, out)
			target := c.target
			if target == "duckdb:w.duckdb" {
				target = "duckdb:" + filepath.Join(dir, "w.duckdb")
			} else {
				target = "chdb:" + srcPath
			}
			require.Equal(t, []string{"1"}, headRows(t, target, dir, []string{"id"}, "ro"), "the query ran with readonly = 1")
		})
	}
}

// A chdb: source in another folder than a chdb: target is refused at once
// (chDB opens one folder per process), naming both, not waited for.
func TestSourceClickHouseOtherFolderRefused(t *testing.T) {
	dir := t.TempDir()
	srcURL, table := typesSource(t, "clickhouse", dir, []string{"n Int64"}, "1")
	began := time.Now()
	code, out := runTypes(t, dir, "chdb:w.chdb", srcURL, table)
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "chDB opens one folder per process")
	require.Contains(t, out, filepath.Join(dir, "w.chdb"))
	require.Less(t, time.Since(began), 50*time.Second, "refused, not waited for (the lock timeout is a minute)")
}

// lint and run read a ClickHouse source's query by ClickHouse's lexicon:
// its clock and random functions are refused.
func TestSourceClickHouseClockRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ fn, query string }{
		{"now", "SELECT id, day FROM src.orders WHERE day >= {{ start }} AND day < {{ end }} AND ts < now()"},
		{"today", "SELECT id, day FROM src.orders WHERE day >= {{ start }} AND day < {{ end }} AND day < today"},
		{"rand", "SELECT id, day, rand() AS r FROM src.orders WHERE day >= {{ start }} AND day < {{ end }}"},
		{"now64", "SELECT id, day FROM `src`.`orders` WHERE day >= {{ start }} AND day < {{ end }} AND ts < now64(3)"},
	} {
		for _, url := range []string{"chdb:missing.chdb", "clickhouse://default@127.0.0.1:1/db"} {
			path := queryJob(t, dir, "duckdb:w.duckdb", url, c.query)
			code, out := cliRun("lint", path)
			require.Equal(t, 2, code, out)
			require.Contains(t, out, c.fn, url)
			code, out = cliRun("run", path, "--date", "2026-11-28")
			require.Equal(t, 2, code, out)
			require.Contains(t, out, c.fn, url)
		}
	}
}

// A chDB source that holds its session alone streams its rows a block at
// a time: every row of several blocks arrives, and an error ClickHouse
// raises after the first blocks fails the run with nothing written.
func TestSourceClickHouseStreams(t *testing.T) {
	dir := t.TempDir()
	srcURL, _ := typesSource(t, "clickhouse", dir, []string{"n Int64"}, "1")
	target := "duckdb:" + filepath.Join(dir, "w.duckdb")
	path := queryJob(t, dir, "duckdb:w.duckdb", srcURL, "SELECT number AS id, {{ date }} AS day, toString(number) AS s FROM numbers(300000)")
	code, out := cliRun("run", path, "--date", "2026-11-28")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "300000 rows in")
	require.Equal(t, []string{"0|0", "1|1"}, headRows(t, target, dir, []string{"id"}, "id", "s")[:2])

	path = queryJob(t, dir, "duckdb:w.duckdb", srcURL, "SELECT number AS id, {{ date }} AS day, throwIf(number = 250000, 'a row ClickHouse refuses') AS s FROM numbers(300000)")
	code, out = cliRun("run", path, "--date", "2026-11-28")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "a row ClickHouse refuses")
	require.Len(t, headRows(t, target, dir, []string{"id"}, "id"), 100, "the old partition stays (show's first 100 rows)")
	require.Equal(t, 1, chCount(t, filepath.Join(dir, "src.chdb")), "the session is given back")

	path = queryJob(t, dir, "duckdb:w.duckdb", srcURL, "SELECT id, day, toString(n) AS s FROM src.orders WHERE id > 5")
	code, out = cliRun("run", path, "--date", "2026-11-28")
	require.NotEqual(t, 0, code, out)
	require.Contains(t, out, "no rows")
}
