package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// The tests' databases are a pool, as river's test helpers keep one: the
// databases idem_test_1, idem_test_2, … are created on first use and kept
// across test runs, and each test takes one that no other test (of this or
// any other process) holds, emptied. A CREATE DATABASE copies the template
// through the WAL and costs more than most tests; emptying a database that
// holds a few tables costs milliseconds.
//
// A process holds a database by a session advisory lock on the database the
// DSN names, so a crashed test process frees its databases with its
// session. Within a process, a database a finished test returns is reused.

// testDBPrefix names the pooled databases; no other test uses the prefix.
const testDBPrefix = "idem_test_"

// poolLockClass is the first key of the pool's advisory locks (two int4
// keys: idem's own locks take one bigint key, so the two never meet).
const poolLockClass = 0x1de37e57

type dbPool struct {
	mu    sync.Mutex
	admin *sql.DB
	base  *url.URL
	held  map[int]*sql.Conn // database number -> the session holding its lock
	free  []int             // held, and not in use by a test
}

var (
	poolOnce sync.Once
	pool     *dbPool
	poolErr  error
)

// testDatabase gives the test an empty database of the pool, and returns it
// to the pool when the test ends. It returns the database's URL.
func testDatabase(t testing.TB) string {
	t.Helper()
	dsn := server.DSN(t)
	poolOnce.Do(func() {
		pool = &dbPool{held: map[int]*sql.Conn{}}
		pool.base, poolErr = url.Parse(dsn)
		if poolErr == nil {
			pool.admin, poolErr = sql.Open("pgx", dsn)
		}
	})
	require.NoError(t, poolErr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, err := pool.take(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { pool.give(n) })
	u := *pool.base
	u.Path = "/" + dbName(n)
	require.NoError(t, pool.empty(ctx, n, u.String()))
	return u.String()
}

func dbName(n int) string { return fmt.Sprintf("%s%d", testDBPrefix, n) }

// take returns the number of a database this process holds and no test
// uses: a free one, or the first one that no process holds, created if
// it does not exist yet.
func (p *dbPool) take(ctx context.Context) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		n := p.free[k-1]
		p.free = p.free[:k-1]
		return n, nil
	}
	for n := 1; ; n++ {
		if _, mine := p.held[n]; mine {
			continue
		}
		conn, err := p.admin.Conn(ctx)
		if err != nil {
			return 0, err
		}
		var got bool
		if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, $2)`, poolLockClass, n).Scan(&got); err != nil {
			conn.Close()
			return 0, err
		}
		if !got { // another test process holds it
			conn.Close()
			continue
		}
		var exists bool
		err = conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT FROM pg_catalog.pg_database WHERE datname = $1)`, dbName(n)).Scan(&exists)
		if err == nil && !exists {
			_, err = conn.ExecContext(ctx, `CREATE DATABASE `+pgx.Identifier{dbName(n)}.Sanitize())
		}
		if err != nil {
			conn.Close() // ends the session, and the lock with it
			return 0, fmt.Errorf("test database %s: %w", dbName(n), err)
		}
		p.held[n] = conn // held until the process ends
		return n, nil
	}
}

func (p *dbPool) give(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, n)
}

// resetSQL drops every schema a test may have made, with all it holds, and
// makes public again as a new PostgreSQL 15 database has it. Temporary
// schemas belong to sessions and go with them.
const resetSQL = `DO $$
DECLARE s name;
BEGIN
  FOR s IN SELECT nspname FROM pg_catalog.pg_namespace
           WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
             AND nspname NOT LIKE 'pg\_temp\_%' AND nspname NOT LIKE 'pg\_toast\_temp\_%'
  LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
  CREATE SCHEMA public AUTHORIZATION pg_database_owner;
  GRANT USAGE ON SCHEMA public TO PUBLIC;
  COMMENT ON SCHEMA public IS 'standard public schema';
END $$`

// empty ends every session on database n (an idem process a test killed
// may have left one) and drops everything a test made in it.
func (p *dbPool) empty(ctx context.Context, n int, dsn string) error {
	_, err := p.admin.ExecContext(ctx,
		`SELECT pg_terminate_backend(pid, 10000) FROM pg_catalog.pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
		dbName(n))
	if err != nil {
		return fmt.Errorf("ending sessions on %s: %w", dbName(n), err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, resetSQL); err != nil {
		return fmt.Errorf("emptying %s: %w", dbName(n), err)
	}
	return nil
}

// A database back from a test is as a new one: the same schemas, owners,
// privileges and comments, and nothing the test made.
func TestPoolEmptiesLikeANewDatabase(t *testing.T) {
	ctx := context.Background()
	shape := func(dsn string) []string {
		db, err := sql.Open("pgx", dsn)
		require.NoError(t, err)
		defer db.Close()
		rows, err := db.QueryContext(ctx, `SELECT n.nspname || '|' || pg_catalog.pg_get_userbyid(n.nspowner) || '|' ||
  coalesce(n.nspacl::text, '') || '|' || coalesce(pg_catalog.obj_description(n.oid, 'pg_namespace'), '') || '|' ||
  (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid)
FROM pg_catalog.pg_namespace n WHERE n.nspname NOT LIKE 'pg\_%' ORDER BY 1`)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rows.Err())
		return out
	}

	var used string
	var leftover *sql.DB
	t.Run("dirty", func(t *testing.T) {
		used = testDatabase(t)
		db, err := sql.Open("pgx", used)
		require.NoError(t, err)
		// A session left open, holding a lock on what the test made, as
		// an idem process a test killed may leave one for a moment.
		conn, err := db.Conn(ctx)
		require.NoError(t, err)
		leftover = db
		for _, q := range []string{`CREATE SCHEMA sales`, `CREATE TABLE sales.orders (id BIGINT)`,
			`CREATE TABLE idem_runs (job TEXT)`, `DROP SCHEMA public CASCADE`, `CREATE SCHEMA public`,
			`BEGIN`, `LOCK TABLE sales.orders`} {
			_, err := conn.ExecContext(ctx, q)
			require.NoError(t, err, q)
		}
	})
	if leftover == nil { // "dirty" skipped: no server
		t.Skip("no PostgreSQL server: see the README's Testing section")
	}
	defer leftover.Close()
	// This process's pool hands the freed database out again (last in,
	// first out), emptied.
	again := testDatabase(t)
	require.Equal(t, used, again)

	fresh := "idem_t_fresh_" + fmt.Sprint(os.Getpid())
	_, err := pool.admin.ExecContext(ctx, `CREATE DATABASE `+pgx.Identifier{fresh}.Sanitize())
	require.NoError(t, err)
	defer pool.admin.ExecContext(ctx, `DROP DATABASE `+pgx.Identifier{fresh}.Sanitize()+` WITH (FORCE)`)
	u := *pool.base
	u.Path = "/" + fresh
	want := shape(u.String())
	require.Contains(t, want, "public|pg_database_owner|{pg_database_owner=UC/pg_database_owner,=U/pg_database_owner}|standard public schema|0")
	require.Equal(t, want, shape(again))
}
