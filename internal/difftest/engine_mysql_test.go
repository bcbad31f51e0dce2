//go:build !no_mysql

package difftest_test

import (
	"strings"
	"testing"

	"github.com/idemdata/idem/engine/enginetest"
	_ "github.com/idemdata/idem/engine/mysql" // registers mysql://
)

func init() {
	engines = append(engines, engineSpec{name: "mysql", keepOpen: true, workers: 2, target: mysqlTarget})
}

// mysqlTarget is a database of the test's own, idem_d_<pid>, dropped when
// the test ends; those of test processes that died are dropped first.
func mysqlTarget(parent, t *testing.T) string {
	enginetest.MySQL.DSN(t) // skips t without a server
	admin, dsn := enginetest.MySQLAdmin(parent)
	quote := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	stale, err := staleDatabases(admin, `SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'idem\_d\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range stale {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + quote(db)); err != nil {
			t.Fatal(err)
		}
	}
	db := diffDatabase()
	if _, err := admin.Exec("CREATE DATABASE " + quote(db)); err != nil {
		t.Fatal(err)
	}
	parent.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + quote(db)); err != nil {
			parent.Errorf("dropping %s: %v", db, err)
		}
	})
	base, _, _ := strings.Cut(dsn, "?")
	return base[:strings.LastIndex(base, "/")+1] + db
}
