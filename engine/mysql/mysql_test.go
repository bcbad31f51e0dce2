package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
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

var turn = struct {
	mu    sync.Mutex         // guards the rest
	free  *sync.Cond         // signalled when the turn ends
	owner *testing.T         // whose turn it is, nil for no one's
	made  map[*testing.T]int // databases made per test
	admin *sql.Conn
	db    *sql.DB
}{made: map[*testing.T]int{}}

func init() { turn.free = sync.NewCond(&turn.mu) }

// testDatabase waits for the test's turn, then gives it an empty database;
// it returns the database's URL. A turn is one test's and its subtests'
// (a case whose subtests make targets of their own tables runs them at
// once), and begins with no suite schema and no earlier test's database.
func testDatabase(t *testing.T) string {
	t.Helper()
	dsn := server.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	turn.mu.Lock()
	defer turn.mu.Unlock()
	mine := func() bool {
		return turn.owner == t || (turn.owner != nil && strings.HasPrefix(t.Name(), turn.owner.Name()+"/"))
	}
	for turn.owner != nil && !mine() {
		turn.free.Wait()
	}
	if turn.owner == nil {
		turn.owner = t
		t.Cleanup(func() {
			turn.mu.Lock()
			turn.owner = nil
			turn.free.Broadcast()
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
	}
	// Named after the test, so what a test's runs print (the database is
	// the schema, in lock scopes) is the same every time: golden files.
	turn.made[t]++
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	name := fmt.Sprintf("%s%08x_%d", testDBPrefix, h.Sum32(), turn.made[t])
	_, err := turn.admin.ExecContext(ctx, "CREATE DATABASE `"+name+"`")
	require.NoError(t, err)
	base, _, _ := strings.Cut(dsn, "?")
	i := strings.LastIndex(base, "/")
	return base[:i+1] + name
}

// inSuite is the test's database and the suite's schemas, as SQL: the
// server's other databases are not the target's.
const inSuite = "(%[1]s = DATABASE() OR %[1]s IN ('sales', 'fresh_schema'))"

var harness = enginetest.Harness{
	Target: testDatabase,
	Serial: true,
	Spelling: enginetest.Spelling{
		TraceSchemas: "SELECT schema_name FROM information_schema.schemata WHERE " + fmt.Sprintf(inSuite, "schema_name") + " ORDER BY 1",
		TraceTables:  "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE " + fmt.Sprintf(inSuite, "table_schema") + " ORDER BY 1",
		Timestamp:    "DATETIME",
		Random:       "rand()",
		NowText:      "CAST(NOW(6) AS CHAR)",
		SleepWhere:   "SLEEP(1.5) = 0",
		Sequence:     func(name string) string { return "CREATE SEQUENCE " + name },
		NextValue:    func(name string) string { return "NEXTVAL(" + name + ")" },
		OldLedger: []string{`CREATE TABLE idem_runs (job VARCHAR(255) NOT NULL, "partition" VARCHAR(255) NOT NULL, run_id VARCHAR(255) NOT NULL,
  seq BIGINT NOT NULL, input_fingerprint TEXT NOT NULL, definition_hash TEXT NOT NULL, strategy TEXT NOT NULL,
  rows_in BIGINT NOT NULL, rows_deduped BIGINT NOT NULL, rows_out_of_window BIGINT NOT NULL, inserted BIGINT NOT NULL,
  updated BIGINT NOT NULL, deleted BIGINT NOT NULL, skipped_older BIGINT NOT NULL, row_count BIGINT NOT NULL,
  checksum TEXT NOT NULL, partition_closed BIT(1) NOT NULL, started_at DATETIME(6) NOT NULL,
  finished_at DATETIME(6) NOT NULL, idem_version TEXT NOT NULL, PRIMARY KEY (job, "partition", run_id))`,
			`INSERT INTO idem_runs VALUES ('old', '2026-10-01', 'r0', 1, 'f', 'd', 'merge', 1, 0, 0, 1, 0, 0, 0, 1, '0', true,
  TIMESTAMP '2026-10-02 00:00:00', TIMESTAMP '2026-10-02 00:00:01', '0.0.1')`},
	},
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

// TestPlanGolden compares `idem plan` with the golden files, and each plan
// with what a run then executes.
func TestPlanGolden(t *testing.T) {
	enginetest.GoldenPlan(t, harness, "mysql")
}
