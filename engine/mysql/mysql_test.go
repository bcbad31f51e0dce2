package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"regexp"
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
var server = enginetest.MySQL

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

// On MySQL a schema is a database of the whole server. Each target is a
// database of its own, idem_t_<hash of the test's name>_<n>, so what its
// runs print (the database is the schema, in lock scopes) is the same
// every time: golden files. The suite's schemas, sales and fresh_schema,
// are the test's too (Schemas): idem_t_<hash>_sales and _fresh, shared by
// its targets, so tests run at once as on the other engines. The test
// drops its databases when it ends. The names repeat between test
// processes, so one process at a time uses the server (a GET_LOCK held
// while it runs), and it first drops what a process that died left
// behind.

const testDBPrefix = "idem_t_"

// The suite's schemas of a test are its prefix with these.
const salesSuffix, freshSuffix = "_sales", "_fresh"

// testPrefix begins the names of the test's databases.
func testPrefix(t *testing.T) string {
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	return fmt.Sprintf("%s%08x", testDBPrefix, h.Sum32())
}

var tests = struct {
	once  sync.Once
	err   error   // of the setup once did
	db    *sql.DB // the server, for creating and dropping databases
	admin *sql.Conn
	mu    sync.Mutex     // guards made
	made  map[string]int // databases made per test
}{made: map[string]int{}}

// setUp waits until no other test process uses the server (10 minutes at
// most), then drops the databases earlier processes left behind.
func setUp(dsn string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 11*time.Minute)
	defer cancel()
	db, err := adminDB(dsn)
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	var got int
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('idem_conformance_suite', 600)").Scan(&got); err != nil {
		return err
	}
	if got != 1 {
		return fmt.Errorf("another test process held the suite's lock for 10 minutes")
	}
	tests.db, tests.admin = db, conn
	rows, err := conn.QueryContext(ctx, "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'idem\\_t\\_%'")
	if err != nil {
		return err
	}
	var left []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		left = append(left, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range left {
		if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+s+"`"); err != nil {
			return err
		}
	}
	return nil
}

// testDatabase gives the test an empty database and returns its URL. The
// test's suite schemas (testSchemas) are made by the runs that need them.
// They are all dropped when the test ends, unless it failed (the next
// process drops them): what it left is there to look at.
func testDatabase(t *testing.T) string {
	t.Helper()
	dsn := server.DSN(t)
	tests.once.Do(func() { tests.err = setUp(dsn) })
	require.NoError(t, tests.err)
	tests.mu.Lock()
	tests.made[t.Name()]++
	n := tests.made[t.Name()]
	tests.mu.Unlock()
	prefix := testPrefix(t)
	name := fmt.Sprintf("%s_%d", prefix, n)
	ctx := context.Background()
	_, err := tests.db.ExecContext(ctx, "CREATE DATABASE `"+name+"`")
	require.NoError(t, err)
	drop := []string{name}
	if n == 1 {
		drop = append(drop, prefix+salesSuffix, prefix+freshSuffix)
	}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		for _, s := range drop {
			if _, err := tests.db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+s+"`"); err != nil {
				t.Errorf("dropping the test's database %s: %v", s, err)
			}
		}
	})
	base, _, _ := strings.Cut(dsn, "?")
	i := strings.LastIndex(base, "/")
	return base[:i+1] + name
}

// testSchemas names the test's suite schemas.
func testSchemas(t *testing.T) (sales, fresh string) {
	return testPrefix(t) + salesSuffix, testPrefix(t) + freshSuffix
}

// inTarget is the target's database (idem_t_<hash>_<n>) and its test's
// suite schemas, as SQL: the server's other databases (other tests') are
// not the target's.
var inTarget = "%[1]s IN (DATABASE(), CONCAT(SUBSTRING_INDEX(DATABASE(), '_', 3), '" + salesSuffix + "'), CONCAT(SUBSTRING_INDEX(DATABASE(), '_', 3), '" + freshSuffix + "'))"

// readerName is a LOAD DATA reader's name (engine/mysql/load.go): the
// lowest number free in the process, so a run's differs while other
// tests' runs load at once.
var readerName = regexp.MustCompile(`'Reader::idem_[0-9]+'`)

var harness = enginetest.Harness{
	Target:  testDatabase,
	Schemas: testSchemas,
	Steady:  func(sql string) string { return readerName.ReplaceAllString(sql, "'Reader::idem_1'") },
	Spelling: enginetest.Spelling{
		TraceSchemas: "SELECT schema_name FROM information_schema.schemata WHERE " + fmt.Sprintf(inTarget, "schema_name") + " ORDER BY 1",
		TraceTables:  "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE " + fmt.Sprintf(inTarget, "table_schema") + " ORDER BY 1",
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
			fmt.Sprintf(`CREATE DATABASE IF NOT EXISTS %s`, schema),
			fmt.Sprintf(`CREATE TABLE %s.%s (order_id BIGINT AUTO_INCREMENT PRIMARY KEY, status LONGTEXT, updated_at DATETIME(6))`, schema, table),
		}
	},
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness)
}

// TestConformanceSchemaExists runs the suite with each test's sales
// schema created first: a first load of a partition job without key then
// loads its input straight into the table it builds and checksums it over
// two connections (a direct first load, engine.SplitChecksummer), the path
// of a target in the URL's own database, which TestConformance's first
// loads (into a schema they create) do not take.
func TestConformanceSchemaExists(t *testing.T) {
	h := harness
	h.Before = func(e *enginetest.Env) { e.Exec("CREATE DATABASE IF NOT EXISTS " + e.Schema) }
	enginetest.Run(t, h)
}

func TestGoldenSQL(t *testing.T) {
	enginetest.Golden(t, harness, "mysql")
}

// TestPlanGolden compares `idem plan` with the golden files, and each plan
// with what a run then executes.
func TestPlanGolden(t *testing.T) {
	enginetest.GoldenPlan(t, harness, "mysql")
}
