//go:build unix

package idem_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/engine/mysql"
	"github.com/idemdata/idem/engine/stdsql"
	"github.com/idemdata/idem/internal/cli"
	"github.com/idemdata/idem/internal/hostile"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// Database sources (source.url): each case reads a source database of one
// engine into a target of another (every pair: dbpairs_test.go), in databases the test creates
// (idem_dbsrc_*) and drops. Not idem_t_*: the MySQL engine's suite drops
// every idem_t_ database when it starts, another process's too.

var srcSeq atomic.Int64

// srcName names a database of this test process.
func srcName(what string) string {
	return fmt.Sprintf("idem_dbsrc_%s_%d_%d", what, os.Getpid(), srcSeq.Add(1))
}

// dropStale drops the databases of this test that a test process which
// no longer runs left behind (one that crashed before its cleanup).
func dropStale(t *testing.T, db *sql.DB, list, drop string) {
	t.Helper()
	rows, err := db.Query(list)
	require.NoError(t, err)
	var stale []string
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		parts := strings.Split(name, "_") // idem, dbsrc, what, pid, n
		if len(parts) != 5 || parts[1] != "dbsrc" {
			continue
		}
		pid, err := strconv.Atoi(parts[3])
		if err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
			stale = append(stale, name)
		}
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for _, name := range stale {
		_, err := db.Exec(fmt.Sprintf(drop, name))
		require.NoError(t, err)
	}
}

// pgDatabase creates an empty PostgreSQL database, dropped when the test
// ends, and returns its URL and a connection to it.
func pgDatabase(t *testing.T, what string) (string, *sql.DB) {
	t.Helper()
	dsn := enginetest.Postgres.DSN(t)
	admin, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() })
	dropStale(t, admin, `SELECT datname FROM pg_database WHERE datname LIKE 'idem\_dbsrc\_%'`, "DROP DATABASE IF EXISTS %s WITH (FORCE)")
	name := srcName(what)
	_, err = admin.Exec("CREATE DATABASE " + name)
	require.NoError(t, err)
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.Path = "/" + name
	db, err := sql.Open("pgx", u.String())
	require.NoError(t, err)
	t.Cleanup(func() {
		db.Close()
		_, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		require.NoError(t, err)
	})
	return u.String(), db
}

// mysqlDatabase creates an empty MySQL/MariaDB database, dropped when the
// test ends, and returns its URL and a connection to it.
func mysqlDatabase(t *testing.T, what string) (string, *sql.DB) {
	t.Helper()
	admin, dsn := enginetest.MySQLAdmin(t)
	dropStale(t, admin, `SHOW DATABASES LIKE 'idem\_dbsrc\_%'`, "DROP DATABASE IF EXISTS %s")
	name := srcName(what)
	_, err := admin.Exec("CREATE DATABASE " + name)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := admin.Exec("DROP DATABASE IF EXISTS " + name)
		require.NoError(t, err)
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.Path = "/" + name
	cfg, err := mysql.Config(u.String(), time.Minute)
	require.NoError(t, err)
	c, err := gomysql.NewConnector(cfg)
	require.NoError(t, err)
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return u.String(), db
}

func sqlExec(t *testing.T, db *sql.DB, queries ...string) {
	t.Helper()
	for _, q := range queries {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

// dbJob writes a job file into dir and loads it.
func dbJob(t *testing.T, dir, target, body string) *job.Job {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("job%d.yaml", srcSeq.Add(1)))
	text := "idem: 1\njob: from_db\ntarget:\n  url: " + target + "\n  table: orders\n" + body
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	j, err := job.Load(path)
	require.NoError(t, err)
	return j
}

func runDay(t *testing.T, j *job.Job, date string) (runner.Result, error) {
	t.Helper()
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	rs, err := idem.Run(context.Background(), j, idem.Options{Date: date, AsOf: now, Now: func() time.Time { return now }, LockTimeout: time.Minute})
	if len(rs) == 0 {
		return runner.Result{}, err
	}
	return rs[len(rs)-1], err
}

// cliRun runs the command line and returns its exit code and output
// (stdout, then stderr).
func cliRun(args ...string) (int, string) {
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String() + errOut.String()
}

// seedOrders creates orders in a source database: two days of rows, with
// values at their types' edges. typ spells each column's type there; minAt
// is the earliest time the target holds.
func seedOrders(t *testing.T, db *sql.DB, typ map[string]string, minAt string, maxAt ...string) {
	t.Helper()
	sqlExec(t, db, fmt.Sprintf(`CREATE TABLE orders (id %s NOT NULL, day DATE, amount %s, name %s, ts %s, flag %s, f %s)`,
		typ["id"], typ["amount"], typ["name"], typ["ts"], typ["flag"], typ["f"]))
	top := "9999-12-31 23:59:59.999999"
	if len(maxAt) > 0 {
		top = maxAt[0]
	}
	sqlExec(t, db, `INSERT INTO orders VALUES
 (9223372036854775807, '2026-11-28', 9999999999999999999999999999.9999999999, 'Zoë 🎉 日本', '`+top+`', true, 1.7976931348623157e308),
 (-9223372036854775808, '2026-11-28', -0.0000000001, '', '`+minAt+`', false, -2.2250738585072014e-308),
 (3, '2026-11-28', NULL, NULL, NULL, NULL, NULL),
 (4, '2026-11-29', 12.5, 'b', '2026-11-29 10:00:00.123456', true, 0.1),
 (5, '2026-11-29', 7, 'c', '2026-11-29 11:00:00', false, 2)`)
}

var (
	pgTypes    = map[string]string{"id": "BIGINT", "amount": "NUMERIC(38,10)", "name": "TEXT", "ts": "TIMESTAMPTZ", "flag": "BOOLEAN", "f": "DOUBLE PRECISION"}
	mysqlTypes = map[string]string{"id": "BIGINT", "amount": "DECIMAL(38,10)", "name": "TEXT", "ts": "DATETIME(6)", "flag": "BOOLEAN", "f": "DOUBLE"}
	duckTypes  = map[string]string{"id": "BIGINT", "amount": "DECIMAL(38,10)", "name": "VARCHAR", "ts": "TIMESTAMP", "flag": "BOOLEAN", "f": "DOUBLE"}
)

const partitionBody = `source:
  url: %s
  table: orders
strategy: partition
partition:
  column: day
key: id
`

// targetRows reads a target's orders as text, ordered by day and id.
func targetRows(t *testing.T, target, dir string) []string {
	t.Helper()
	return headRows(t, target, dir, []string{"day", "id"}, "id", "day", "amount", "name", "ts", "flag", "f")
}

// An instant MariaDB's TIMESTAMP cannot hold is refused naming the row and
// the column, not moved into its range.
func TestSourceInstantOutsideTargetRefused(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(dir, "src.duckdb"))
	require.NoError(t, err)
	sqlExec(t, db, "CREATE TABLE orders AS SELECT 1 AS id, DATE '2026-11-28' AS day, TIMESTAMPTZ '9999-12-31 23:59:59+00' AS ts")
	require.NoError(t, db.Close())
	targetURL, _ := mysqlDatabase(t, "dst")
	j := dbJob(t, dir, targetURL, fmt.Sprintf(partitionBody, "duckdb:src.duckdb"))
	_, err = runDay(t, j, "2026-11-28")
	require.ErrorContains(t, err, `source row 1: column "ts": "9999-12-31 23:59:59+00:00" is outside the instants MariaDB holds`)
	var ie *runner.InputError
	require.ErrorAs(t, err, &ie)
}

// A write through the source is refused by the source database itself:
// the session is read-only, whatever the query says.
func TestSourceWriteRefused(t *testing.T) {
	pgURL, pg := pgDatabase(t, "src")
	seedOrders(t, pg, pgTypes, "0001-01-01 00:00:00")
	myURL, my := mysqlDatabase(t, "src")
	seedOrders(t, my, mysqlTypes, "0001-01-01 00:00:00")
	dir := t.TempDir()
	duck, err := sql.Open("duckdb", filepath.Join(dir, "src.duckdb"))
	require.NoError(t, err)
	seedOrders(t, duck, duckTypes, "0001-01-01 00:00:00")
	require.NoError(t, duck.Close())
	for _, c := range []struct {
		name, url, query, refusal string
		count                     func() int
	}{
		{"postgres", pgURL, "INSERT INTO orders (id, day) VALUES (99, DATE '2026-11-28') RETURNING id, day", "read-only transaction", func() int { return count(t, pg) }},
		{"mariadb", myURL, "INSERT INTO orders (id, day) VALUES (99, '2026-11-28')", "READ ONLY transaction", func() int { return count(t, my) }},
		{"duckdb", "duckdb:src.duckdb", "INSERT INTO orders (id, day) VALUES (99, DATE '2026-11-28') RETURNING id, day", "read-only mode", func() int {
			db, err := sql.Open("duckdb", filepath.Join(dir, "src.duckdb"))
			require.NoError(t, err)
			defer db.Close()
			return count(t, db)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := fmt.Sprintf("source:\n  url: %s\n  query: %q\nstrategy: partition\npartition:\n  column: day\nkey: id\nlint:\n  allow: [query-without-window]\n", c.url, c.query)
			j := dbJob(t, dir, "duckdb:"+filepath.Join(dir, c.name+".duckdb"), body)
			_, err := runDay(t, j, "2026-11-28")
			require.ErrorContains(t, err, c.refusal)
			require.Equal(t, 5, c.count(), "the source is unchanged")
		})
	}
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM orders").Scan(&n))
	return n
}

// A source column of a type idem cannot hold faithfully is refused,
// naming it, before anything is written (exit 2).
func TestSourceTypeRefused(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	sqlExec(t, src, "CREATE TABLE orders (id BIGINT, day DATE, payload BYTEA, tags TEXT[])",
		"INSERT INTO orders VALUES (1, '2026-11-28', '\\x00ff', '{a,b}')")
	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: duckdb:w.duckdb\n  table: orders\n"+fmt.Sprintf(partitionBody, srcURL)), 0o644))
	code, errOut := cliRun("run", path, "--date", "2026-11-28")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, `column "payload" is BYTEA`)
	require.Contains(t, errOut, `column "tags" is TEXT[] (an array)`)

	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: duckdb:w.duckdb\n  table: orders\n"+
		fmt.Sprintf("source:\n  url: %s\n  query: 'SELECT id AS \"id \", day FROM orders WHERE day >= {{ start }} AND day < {{ end }}'\nstrategy: partition\npartition:\n  column: day\n", srcURL)), 0o644))
	code, errOut = cliRun("run", path, "--date", "2026-11-28")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, `column name "id " ends with a blank`)
	_, err := os.Stat(filepath.Join(dir, "w.duckdb"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing was created")
}

// A source whose session is killed while its rows are read fails the run
// with exit 75, and the target keeps the partition's last load.
func TestSourceKilledMidRead(t *testing.T) {
	pgURL, pg := pgDatabase(t, "src")
	seedOrders(t, pg, pgTypes, "0001-01-01 00:00:00")
	myURL, my := mysqlDatabase(t, "src")
	seedOrders(t, my, mysqlTypes, "0001-01-01 00:00:00")
	cases := []struct {
		name, url string
		db        *sql.DB
		grow      string
		find      string // selects the source session reading
		kill      func(id int64) string
	}{
		{"postgres", pgURL, pg,
			"INSERT INTO orders SELECT g, DATE '2026-11-28', g, 'x', NULL, NULL, NULL FROM generate_series(10, 1000000) g",
			"SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'SELECT * FROM%' AND state = 'active'",
			func(id int64) string { return fmt.Sprintf("SELECT pg_terminate_backend(%d)", id) }},
		{"mariadb", myURL, my,
			"INSERT INTO orders SELECT seq, '2026-11-28', seq, 'x', NULL, NULL, NULL FROM seq_10_to_1000000",
			"SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID() AND info LIKE 'SELECT * FROM%'",
			func(id int64) string { return fmt.Sprintf("KILL %d", id) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.yaml")
			require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: duckdb:w.duckdb\n  table: orders\n"+fmt.Sprintf(partitionBody, c.url)), 0o644))
			code, errOut := cliRun("run", path, "--date", "2026-11-28")
			require.Equal(t, 0, code, errOut)
			before := targetRows(t, "duckdb:w.duckdb", dir)
			sqlExec(t, c.db, c.grow)
			t.Cleanup(func() { sqlExec(t, c.db, "DELETE FROM orders WHERE id >= 10") })
			killed := make(chan error, 1)
			go func() {
				deadline := time.Now().Add(time.Minute)
				for time.Now().Before(deadline) {
					var id int64
					if err := c.db.QueryRow(c.find).Scan(&id); err == nil {
						_, err := c.db.Exec(c.kill(id))
						killed <- err
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
				killed <- fmt.Errorf("the source session never showed")
			}()
			code, errOut = cliRun("run", path, "--date", "2026-11-28")
			require.NoError(t, <-killed)
			require.Equal(t, 75, code, errOut)
			require.Contains(t, errOut, "the connection to the source database was lost")
			require.Equal(t, before, targetRows(t, "duckdb:w.duckdb", dir), "the old partition stays")
		})
	}
}

// max_shrink refuses a partition run that would halve the partition, and
// writes nothing; the message gives both counts.
func TestSourceMaxShrink(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	sqlExec(t, src, "CREATE TABLE orders (id BIGINT, day DATE)",
		"INSERT INTO orders SELECT g, DATE '2026-11-28' FROM generate_series(1, 10) g")
	dir := t.TempDir()
	target := "duckdb:" + filepath.Join(dir, "w.duckdb")
	j := dbJob(t, dir, target, fmt.Sprintf(partitionBody, srcURL)+"max_shrink: 20%\n")
	_, err := runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	sqlExec(t, src, "DELETE FROM orders WHERE id > 5")
	_, err = runDay(t, j, "2026-11-28")
	require.ErrorContains(t, err, "partition 2026-11-28 would go from 10 rows (its last run's) to 5, 50.0% fewer, and max_shrink is 20%: nothing was written")
	var ie *runner.InputError
	require.ErrorAs(t, err, &ie)
	sqlExec(t, src, "INSERT INTO orders SELECT g, DATE '2026-11-28' FROM generate_series(6, 9) g")
	r, err := runDay(t, j, "2026-11-28")
	require.NoError(t, err, "10 percent fewer is within max_shrink")
	require.EqualValues(t, 9, r.RowCount)
}

// The source URL's password is redacted like the target's: in a run's
// error (an unreachable source, a malformed URL) and in lint's output.
func TestSourcePasswordRedacted(t *testing.T) {
	t.Parallel()
	for i, pw := range hostile.Passwords {
		dir := t.TempDir()
		path := filepath.Join(dir, "job.yaml")
		src := "postgres://adv_u:" + pw + "@127.0.0.1:1/db?sslmode=disable&connect_timeout=2"
		require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: duckdb:w.duckdb\n  table: orders\n"+
			fmt.Sprintf("source:\n  url: '%s'\n  table: orders\nstrategy: partition\npartition:\n  column: day\nkey: id\n", strings.ReplaceAll(src, "'", "''"))), 0o644))
		for _, args := range [][]string{{"run", path, "--date", "2026-11-28"}, {"lint", path}, {"plan", path, "--date", "2026-11-28"}} {
			code, errOut := cliRun(args...)
			if args[0] != "lint" {
				require.NotEqual(t, 0, code, "%d %v: %s", i, args, errOut)
			}
			for _, frag := range []string{"Qz7", "Wk9", "Xy3"} {
				require.NotContains(t, errOut, frag, "%d %v", i, args)
			}
		}
	}
}

// source.table for a merge job reads every row; a changed row is merged.
func TestSourceTableMerge(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	sqlExec(t, src, "CREATE TABLE customers (id BIGINT, name TEXT, updated_at TIMESTAMPTZ)",
		"INSERT INTO customers VALUES (1, 'a', '2026-11-01 00:00:00+00'), (2, 'b', '2026-11-02 00:00:00+00')")
	dir := t.TempDir()
	target := "duckdb:" + filepath.Join(dir, "w.duckdb")
	j := dbJob(t, dir, target, fmt.Sprintf("source:\n  url: %s\n  table: customers\nstrategy: merge\nkey: id\nlatest_by: updated_at\n", srcURL))
	r, err := runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	require.EqualValues(t, 2, r.Inserted)
	r, err = runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	require.Equal(t, runner.ActionSkipped, r.Action)
	sqlExec(t, src, "UPDATE customers SET name = 'b2', updated_at = '2026-11-03 00:00:00+00' WHERE id = 2")
	r, err = runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	require.EqualValues(t, 1, r.Updated)
	require.EqualValues(t, 0, r.Inserted)
}

// lint reads source.query by the source engine's lexicon: MariaDB's
// backquoted identifiers and its clock functions.
func TestSourceLintUsesSourceDialect(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: duckdb:w.duckdb\n  table: orders\n"+
		"source:\n  url: mysql://root@127.0.0.1:1/db\n  query: \"SELECT `id`, day FROM orders WHERE day >= {{ start }} AND day < {{ end }} AND seen < SYSDATE()\"\n"+
		"strategy: partition\npartition:\n  column: day\nkey: id\n"), 0o644))
	code, out := cliRun("lint", path)
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "SYSDATE")
}

// idem verify runs a database-source job twice into scratch tables and
// finds it idempotent.
func TestSourceVerify(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	seedOrders(t, src, pgTypes, "0001-01-01 00:00:00")
	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: duckdb:w.duckdb\n  table: orders\n"+fmt.Sprintf(partitionBody, srcURL)), 0o644))
	code, out := cliRun("run", path, "--date", "2026-11-28")
	require.Equal(t, 0, code, out)
	code, out = cliRun("verify", path, "--date", "2026-11-28")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "PASS: two runs gave the same table")
}

// The other types of a PostgreSQL source, into every target engine: JSON
// (its canonical text), UUID (its text), small integers, REAL, a wall-clock
// TIMESTAMP, a numeric without a precision (every digit kept).
func TestSourcePostgresMoreTypes(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	sqlExec(t, src, `CREATE TABLE orders (id SMALLINT, day DATE, doc JSONB, u UUID, n INTEGER, r REAL, w TIMESTAMP, big NUMERIC(38,9))`,
		`INSERT INTO orders VALUES
 (32767, '2026-11-28', '{"b": [1, 2.50], "a": "ü"}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', -2147483648, 3.4028235e38, '2026-11-28 23:59:59.999999', 12345678901234567890.123456789),
 (-32768, '2026-11-28', NULL, NULL, NULL, NULL, NULL, NULL)`)
	my, _ := mysqlDatabase(t, "dst")
	pg, _ := pgDatabase(t, "dst")
	dir := t.TempDir()
	for _, target := range []string{"duckdb:" + filepath.Join(dir, "w.duckdb"), pg, my, "chdb:" + filepath.Join(dir, "w.chdb")} {
		name, _, _ := strings.Cut(target, ":")
		t.Run(name, func(t *testing.T) {
			j := dbJob(t, dir, target, fmt.Sprintf(partitionBody, srcURL))
			r, err := runDay(t, j, "2026-11-28")
			require.NoError(t, err)
			require.EqualValues(t, 2, r.RowsIn)
			r, err = runDay(t, j, "2026-11-28")
			require.NoError(t, err)
			require.Equal(t, runner.ActionSkipped, r.Action)
			rows := headRows(t, target, dir, []string{"id"}, "id", "doc", "u", "n", "r", "w", "big")
			require.Len(t, rows, 2)
			all := strings.Join(rows, "\n")
			for _, want := range []string{"32767|", "-32768|", `"a"`, "ü", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "-2147483648", "2026-11-28 23:59:59.999999", "12345678901234567890.123456789"} {
				require.Contains(t, all, want)
			}
		})
	}
}

// headRows reads columns names of a target's orders as text, ordered by
// the columns order, through idem's own engine (show's query).
func headRows(t *testing.T, target, dir string, order []string, names ...string) []string {
	t.Helper()
	ctx := context.Background()
	db, err := idem.OpenReadOnly(ctx, target, dir, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	s := db.SQL()
	var cols []engine.Column
	for _, n := range names {
		cols = append(cols, engine.Column{Name: n})
	}
	var by []string
	for _, o := range order {
		by = append(by, s.Ident(stdsql.ShowAlias)+"."+s.Ident(o))
	}
	q := s.Inspect.Head(s.Table(engine.Table{Name: "orders"}), cols, "", by, 100)
	rows, err := db.Conn().QueryContext(ctx, q)
	require.NoError(t, err, q)
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		var parts []string
		for _, v := range vals {
			parts = append(parts, v.String)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	require.NoError(t, rows.Err())
	return out
}

// A numeric without a precision keeps every digit in PostgreSQL's NUMERIC,
// and is refused, naming it, by a target whose decimals have a fixed scale.
func TestSourceAnyNumeric(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	sqlExec(t, src, "CREATE TABLE orders (id BIGINT, day DATE, n NUMERIC)",
		"INSERT INTO orders VALUES (1, '2026-11-28', 123456789012345678901234567890.1234567890123456789)")
	pg, _ := pgDatabase(t, "dst")
	dir := t.TempDir()
	j := dbJob(t, dir, pg, fmt.Sprintf(partitionBody, srcURL))
	_, err := runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	require.Equal(t, []string{"1|123456789012345678901234567890.1234567890123456789"}, headRows(t, pg, dir, []string{"id"}, "id", "n"))

	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: from_db\ntarget:\n  url: duckdb:w.duckdb\n  table: orders\n"+fmt.Sprintf(partitionBody, srcURL)), 0o644))
	code, out := cliRun("run", path, "--date", "2026-11-28")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, `column "n" is a decimal without a precision and scale`)
}

// The source query runs in a REPEATABLE READ, READ ONLY transaction: one
// snapshot, no write.
func TestSourceSnapshotSettings(t *testing.T) {
	srcURL, _ := pgDatabase(t, "src")
	dir := t.TempDir()
	target := "duckdb:" + filepath.Join(dir, "w.duckdb")
	j := dbJob(t, dir, target, fmt.Sprintf("source:\n  url: %s\n  query: \"SELECT 1 AS id, {{ date }} AS day, current_setting('transaction_isolation') AS iso, current_setting('transaction_read_only') AS ro\"\nstrategy: partition\npartition:\n  column: day\nkey: id\n", srcURL))
	_, err := runDay(t, j, "2026-11-28")
	require.NoError(t, err)
	require.Equal(t, []string{"1|repeatable read|on"}, headRows(t, target, dir, []string{"id"}, "id", "iso", "ro"))
}

// A first load from a source database writes the rows once, straight into
// the new table (no staged copy inserted into it); an unchanged rerun
// reads the source once and writes nothing but staging, which it drops.
// The source's fingerprint is taken from the rows as read: the same
// whatever the target engine.
func TestSourceFirstLoadWritesRowsOnce(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	sqlExec(t, src, "CREATE TABLE orders (id BIGINT, day DATE, amount NUMERIC(12,2), name TEXT, ts TIMESTAMPTZ, flag BOOLEAN, f DOUBLE PRECISION)",
		`INSERT INTO orders VALUES (1, '2026-11-28', 12.50, 'Zoë', '2026-11-28 10:00:00.123456+02', true, 0.1),
 (2, '2026-11-28', NULL, '', NULL, NULL, NULL), (3, '2026-11-28', -7, NULL, '1970-01-02 00:00:00+00', false, -2), (4, '2026-11-29', 1, 'x', NULL, NULL, NULL)`)
	my, _ := mysqlDatabase(t, "dst")
	pg, _ := pgDatabase(t, "dst")
	dir := t.TempDir()
	fingerprints := map[string]string{}
	for _, target := range []string{"duckdb:" + filepath.Join(dir, "w.duckdb"), pg, my, "chdb:" + filepath.Join(dir, "w.chdb")} {
		name, _, _ := strings.Cut(target, ":")
		t.Run(name, func(t *testing.T) {
			j := dbJob(t, dir, target, fmt.Sprintf(partitionBody, srcURL))
			var stmts []string
			now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
			run := func() runner.Result {
				stmts = nil
				rs, err := idem.Run(context.Background(), j, idem.Options{Date: "2026-11-28", AsOf: now, Now: func() time.Time { return now }, LockTimeout: time.Minute,
					Record: func(q string) { stmts = append(stmts, q) }})
				require.NoError(t, err)
				require.Len(t, rs, 1)
				return rs[0]
			}
			first := run()
			require.Equal(t, runner.ActionLoaded, first.Action)
			require.EqualValues(t, 3, first.RowsIn)
			all := strings.Join(stmts, "\n")
			require.Contains(t, all, "straight into the new table", "a first load goes straight into the new table")
			for _, q := range stmts {
				up := strings.ToUpper(q)
				require.False(t, strings.Contains(up, "INSERT INTO") && strings.Contains(up, "IDEM_STAGE"), "no staged rows are copied into the target: %s", q)
			}
			require.Len(t, targetRows(t, target, dir), 3)
			fingerprints[name] = first.InputFingerprint

			again := run()
			require.Equal(t, runner.ActionSkipped, again.Action)
			require.Equal(t, first.InputFingerprint, again.InputFingerprint)
			for _, q := range stmts {
				up := strings.TrimSpace(strings.ToUpper(q))
				if strings.Contains(up, "IDEM_STAGE") || strings.HasPrefix(up, "--") || strings.Contains(up, "IDEM_RUNS") {
					continue
				}
				for _, w := range []string{"INSERT", "DELETE", "UPDATE", "CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME", "EXCHANGE"} {
					require.False(t, strings.HasPrefix(up, w), "an unchanged rerun writes nothing to the target: %s", q)
				}
			}
		})
	}
	require.Len(t, fingerprints, 4)
	for name, fp := range fingerprints {
		require.Equal(t, fingerprints["duckdb"], fp, "%s's fingerprint of the same source", name)
	}
}

// A first load whose source repeats a key goes straight into the new
// table, finds the repeat there, and moves the rows back to staging for
// the de-duplication: the newest version stays, on every engine.
func TestSourceFirstLoadRepeatedKey(t *testing.T) {
	srcURL, src := pgDatabase(t, "src")
	sqlExec(t, src, "CREATE TABLE orders (id BIGINT, day DATE, name TEXT, ts TIMESTAMPTZ)",
		`INSERT INTO orders VALUES (1, '2026-11-28', 'old', '2026-11-28 01:00:00+00'), (1, '2026-11-28', 'new', '2026-11-28 02:00:00+00'),
 (2, '2026-11-28', 'only', '2026-11-28 01:00:00+00')`)
	my, _ := mysqlDatabase(t, "dst")
	pg, _ := pgDatabase(t, "dst")
	dir := t.TempDir()
	for _, target := range []string{"duckdb:" + filepath.Join(dir, "w.duckdb"), pg, my, "chdb:" + filepath.Join(dir, "w.chdb")} {
		name, _, _ := strings.Cut(target, ":")
		t.Run(name, func(t *testing.T) {
			j := dbJob(t, dir, target, fmt.Sprintf(partitionBody, srcURL)+"latest_by: ts\n")
			r, err := runDay(t, j, "2026-11-28")
			require.NoError(t, err)
			require.EqualValues(t, 3, r.RowsIn)
			require.EqualValues(t, 2, r.RowCount)
			require.Equal(t, []string{"1|new", "2|only"}, headRows(t, target, dir, []string{"id"}, "id", "name"))
			r, err = runDay(t, j, "2026-11-28")
			require.NoError(t, err)
			require.Equal(t, runner.ActionSkipped, r.Action)
		})
	}
}
