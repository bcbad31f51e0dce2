package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/engine/mysql"
)

// server is the MariaDB or MySQL server the tests use (IDEM_TEST_MYSQL).
var server = func() enginetest.Server {
	s := enginetest.MySQL
	s.Ping = func(ctx context.Context, dsn string) error {
		db, err := adminDB(dsn)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	}
	return s
}()

// adminDB opens a mysql:// URL with the driver directly, for setup.
func adminDB(url string) (*sql.DB, error) {
	cfg, err := mysql.Config(url, 10*time.Second)
	if err != nil {
		return nil, err
	}
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// On MySQL a schema is a database of the whole server: the suite's
// sales.orders is one table for every test, so the tests take turns (the
// harness is Serial, and a lock orders the parallel subtests some cases
// run), and a process lock (GET_LOCK) orders test processes too. Each
// test gets a database of its own for its unqualified tables and idem_runs,
// and the databases the suite's tables live in are dropped before it.

// suiteSchemas are the schemas the suite's jobs name.
var suiteSchemas = []string{"sales", "fresh_schema"}

const testDBPrefix = "idem_t_"

var turn struct {
	mu    sync.Mutex // held by owner
	owner *testing.T
	n     int
	admin *sql.Conn
	db    *sql.DB
}

// testDatabase waits for the test's turn, then gives it an empty database
// and no suite schemas; it returns the database's URL.
func testDatabase(t *testing.T) string {
	t.Helper()
	dsn := server.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if turn.owner != t { // a test that makes several targets holds its turn once
		turn.mu.Lock()
		turn.owner = t
		t.Cleanup(func() {
			turn.owner = nil
			turn.mu.Unlock()
		})
		if turn.db == nil {
			db, err := adminDB(dsn)
			require.NoError(t, err)
			conn, err := db.Conn(ctx)
			require.NoError(t, err)
			var got int
			require.NoError(t, conn.QueryRowContext(ctx, "SELECT GET_LOCK('idem_conformance_suite', 600)").Scan(&got))
			require.Equal(t, 1, got, "another test process held the suite's lock for 10 minutes")
			turn.db, turn.admin = db, conn
		}
	}
	turn.n++
	name := fmt.Sprintf("%s%d", testDBPrefix, turn.n)
	rows, err := turn.admin.QueryContext(ctx, "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'idem\\_t\\_%'")
	require.NoError(t, err)
	drop := append([]string{}, suiteSchemas...)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		drop = append(drop, s)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for _, s := range drop {
		_, err := turn.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+s+"`")
		require.NoError(t, err)
	}
	_, err = turn.admin.ExecContext(ctx, "CREATE DATABASE `"+name+"`")
	require.NoError(t, err)
	base, _, _ := strings.Cut(dsn, "?")
	i := strings.LastIndex(base, "/")
	return base[:i+1] + name
}

var harness = enginetest.Harness{
	Target: testDatabase,
	Serial: true,
	GeneratedKeyTable: func(schema, table string) []string {
		return []string{
			fmt.Sprintf(`CREATE DATABASE %s`, schema),
			fmt.Sprintf(`CREATE TABLE %s.%s (order_id BIGINT AUTO_INCREMENT PRIMARY KEY, status LONGTEXT, updated_at DATETIME(6))`, schema, table),
		}
	},
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness)
}

func TestGoldenSQL(t *testing.T) {
	enginetest.Golden(t, harness, "mysql")
}
