package clickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/enginetest"
)

// The conformance suite on a ClickHouse server: IDEM_TEST_CLICKHOUSE names
// one (clickhouse://user:password@host:9000/default). Without it the
// tests skip, saying how to start one; with IDEM_TEST_REQUIRE naming
// clickhouse-server they fail instead.
//
// The suite's jobs write the databases sales and fresh_schema, and each
// test gets a database idem_t_… for its unqualified tables and idem_runs:
// the harness drops all of them before each test, so point it at a server
// of its own (a container), never at one holding data.
var chServer = enginetest.Server{
	Name:   "clickhouse-server",
	EnvVar: "IDEM_TEST_CLICKHOUSE",
	Start: "docker run -d -p 9000:9000 -e CLICKHOUSE_SKIP_USER_SETUP=1 clickhouse/clickhouse-server:26.5 " +
		"and IDEM_TEST_CLICKHOUSE=clickhouse://default@127.0.0.1:9000/default",
	Ping: func(ctx context.Context, dsn string) error {
		if dsn == "" {
			return errors.New("IDEM_TEST_CLICKHOUSE is not set")
		}
		s, err := clickhouse.OpenServer(ctx, dsn, 10*time.Second, false)
		if err != nil {
			return err
		}
		return s.Close()
	},
}

// suiteSchemas are the databases the suite's jobs name.
var suiteSchemas = []string{"sales", "fresh_schema"}

const testDBPrefix = "idem_t_"

// On a server the suite's sales.orders is one table for every test: tests
// take turns (serverDatabase waits for the turn, which covers a test's
// subtests; the cases run in parallel, so a waiting case holds one of the
// -parallel slots). MySQL's harness names the schemas per test instead
// (Harness.Schemas) and runs its cases at once; this one has not been
// moved to it, for want of a server here to run it on.
var turn = struct {
	mu    sync.Mutex
	free  *sync.Cond
	owner *testing.T
	made  map[*testing.T]int
	admin *clickhouse.Server
}{made: map[*testing.T]int{}}

func init() { turn.free = sync.NewCond(&turn.mu) }

// serverDatabase waits for the test's turn and gives it an empty
// database, named after the test (so what its runs print is the same each
// time); it returns the database's URL.
func serverDatabase(t *testing.T) string {
	t.Helper()
	dsn := chServer.DSN(t)
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
		if turn.admin == nil {
			s, err := clickhouse.OpenServer(ctx, dsn, time.Minute, false)
			require.NoError(t, err)
			turn.admin = s
		}
		dropSuiteDatabases(ctx, t)
	}
	turn.made[t]++
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	name := fmt.Sprintf("%s%08x_%d", testDBPrefix, h.Sum32(), turn.made[t])
	_, err := turn.admin.Conn().ExecContext(ctx, "CREATE DATABASE "+clickhouse.Dialect{}.Ident(name))
	require.NoError(t, err)
	base, query, _ := strings.Cut(dsn, "?")
	if i := strings.LastIndex(base, "/"); i > len("clickhouses://") {
		base = base[:i]
	}
	url := base + "/" + name
	if query != "" {
		url += "?" + query
	}
	return url
}

func dropSuiteDatabases(ctx context.Context, t *testing.T) {
	rows, err := turn.admin.Conn().QueryContext(ctx, "SELECT name FROM system.databases WHERE startsWith(name, $1)", testDBPrefix)
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
		_, err := turn.admin.Conn().ExecContext(ctx, "DROP DATABASE IF EXISTS "+clickhouse.Dialect{}.Ident(s)+" SYNC")
		require.NoError(t, err)
	}
}

// inSuite is the test's database and the suite's, as SQL: the server's
// other databases are not the target's.
const inSuite = "(%[1]s = currentDatabase() OR %[1]s IN ('sales', 'fresh_schema'))"

// noLock is why the cases that run writers of one table at once do not
// apply: a server takes no lock for idem.
const noLock = "a ClickHouse server takes no lock for idem: runs that overlap on one table are the orchestrator's to prevent (docs/engines/clickhouse.md, \"Servers\")"

var serverHarness = func() enginetest.Harness {
	h := harness // chDB's spelling: the same SQL
	h.Target = serverDatabase
	h.Spelling.TraceSchemas = "SELECT name FROM system.databases WHERE " + fmt.Sprintf(inSuite, "name") + " ORDER BY 1"
	h.Spelling.TraceTables = "SELECT database || '.' || name FROM system.tables WHERE NOT is_temporary AND " +
		fmt.Sprintf(inSuite, "database") + " ORDER BY 1"
	h.Spelling.HeldTables = nil // a server answers while a run holds it
	h.Unsupported = map[string]string{
		"ConcurrentRunsOfOnePartition":          noLock,
		"ConcurrentMergesOfOneJob":              noLock,
		"TwoJobsOnOnePartitionAtOnce":           noLock,
		"MergeAndPartitionRunsOnOneTableAtOnce": noLock,
		"BackfillOverlappingAtOnce":             noLock,
	}
	return h
}()

func TestServerConformance(t *testing.T) {
	enginetest.Run(t, serverHarness)
}
