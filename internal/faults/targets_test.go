package faults_test

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/enginetest"
)

// mysqlServer is the MariaDB or MySQL server the tests use (IDEM_TEST_MYSQL).
var mysqlServer = enginetest.MySQL

// mysqlTarget makes MySQL targets: each a database of its own, idem_f_…,
// holding the table (unqualified, so in the URL's database) and the
// ledger.
type mysqlTarget struct {
	serverDBs
	admin *sql.DB
}

func newMySQLTarget(t *testing.T) mysqlTarget {
	t.Helper()
	admin, dsn := enginetest.MySQLAdmin(t)
	return mysqlTarget{serverDBs: serverDBs{dsn}, admin: admin}
}

func (mysqlTarget) name() string    { return "mysql" }
func (mysqlTarget) exchanges() bool { return false }

func quoteMySQL(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func (m mysqlTarget) fresh(t *testing.T, name string) string {
	t.Helper()
	db := m.dbName(name)
	_, err := m.admin.Exec("CREATE DATABASE " + quoteMySQL(db))
	require.NoError(t, err)
	t.Cleanup(func() { m.drop(t, db) })
	return m.urlOf(db)
}

// copyOf copies every table of the database, its definition (indexes
// included) and its rows.
func (m mysqlTarget) copyOf(t *testing.T, src, name string) (string, func()) {
	t.Helper()
	from := m.dbOf(t, src)
	db := m.dbName(name)
	_, err := m.admin.Exec("CREATE DATABASE " + quoteMySQL(db))
	require.NoError(t, err)
	rows, err := m.admin.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'`, from)
	require.NoError(t, err)
	var tables []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		tables = append(tables, n)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for _, tb := range tables {
		to, fr := quoteMySQL(db)+"."+quoteMySQL(tb), quoteMySQL(from)+"."+quoteMySQL(tb)
		_, err := m.admin.Exec("CREATE TABLE " + to + " LIKE " + fr)
		require.NoError(t, err)
		_, err = m.admin.Exec("INSERT INTO " + to + " SELECT * FROM " + fr)
		require.NoError(t, err)
	}
	return m.urlOf(db), func() { m.drop(t, db) }
}

func (m mysqlTarget) drop(t *testing.T, db string) {
	// A killed run's sessions may still hold the database: end them first.
	m.kill(t, db)
	if _, err := m.admin.Exec("DROP DATABASE IF EXISTS " + quoteMySQL(db)); err != nil {
		t.Errorf("dropping test database %s: %v", db, err)
	}
}

// sessions returns the ids of the server's sessions on database db.
func (m mysqlTarget) sessions(db string, cond string) ([]int64, error) {
	rows, err := m.admin.Query(`SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()`+cond, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// kill ends every session on database db; it returns how many it ended.
func (m mysqlTarget) kill(t *testing.T, db string) int {
	t.Helper()
	ids, err := m.sessions(db, "")
	require.NoError(t, err)
	n := 0
	for _, id := range ids {
		// A session that ended meanwhile is "Unknown thread id" (1094).
		if _, err := m.admin.Exec(fmt.Sprintf("KILL CONNECTION %d", id)); err == nil {
			n++
		}
	}
	return n
}

func (m mysqlTarget) terminate(t *testing.T, u string) int { return m.kill(t, m.dbOf(t, u)) }

// waiting counts sessions waiting for idem's lock (GET_LOCK: "User lock"),
// a table's metadata lock, or a row lock.
func (m mysqlTarget) waiting(u string) ([]int64, error) {
	db, err := databaseOf(u)
	if err != nil {
		return nil, err
	}
	return m.sessions(db, ` AND (state LIKE '%lock%' OR id IN (SELECT trx_mysql_thread_id FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'))`)
}

// settle waits until the killed run's sessions are gone: the server ends a
// statement only when it notices that its client is gone.
func (m mysqlTarget) settle(t *testing.T, u string) {
	t.Helper()
	db := m.dbOf(t, u)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ids, err := m.sessions(db, "")
		require.NoError(t, err)
		if len(ids) == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d sessions of a killed run still on %s after 2 minutes", len(ids), db)
		time.Sleep(20 * time.Millisecond)
	}
}

// chdbTarget makes embedded ClickHouse targets: a folder each.
type chdbTarget struct{ dir string }

// newCHDBTarget skips (or, when IDEM_TEST_REQUIRE names clickhouse, fails)
// without libchdb.so.
func newCHDBTarget(t *testing.T) chdbTarget {
	t.Helper()
	if _, err := clickhouse.Library(); err != nil {
		if enginetest.Required("clickhouse") {
			t.Fatalf("%v; %s requires it", err, enginetest.RequireEnv)
		}
		t.Skipf("%v", err)
	}
	return chdbTarget{dir: t.TempDir()}
}

func (chdbTarget) name() string { return "clickhouse" }

// exchanges: chDB swaps the built table in, then writes the ledger row.
func (chdbTarget) exchanges() bool { return true }

func (c chdbTarget) fresh(t *testing.T, name string) string {
	return "chdb:" + filepath.Join(c.dir, name)
}

func (c chdbTarget) copyOf(t *testing.T, src, name string) (string, func()) {
	t.Helper()
	from := strings.TrimPrefix(src, "chdb:")
	to := filepath.Join(c.dir, name)
	remove := func() { os.RemoveAll(to) }
	remove()
	out, err := exec.Command("cp", "-a", from, to).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return "chdb:" + to, remove
}

// settle has nothing to wait for: the killed process was the database.
func (chdbTarget) settle(*testing.T, string) {}
