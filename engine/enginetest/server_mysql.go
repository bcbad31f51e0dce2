//go:build !no_mysql

package enginetest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemdata/idem/engine/mysql"
)

// MySQL is the MySQL or MariaDB server the tests use: IDEM_TEST_MYSQL, or
// the local one. The DSN is a mysql:// URL, opened as idem opens it.
var MySQL = Server{
	Name:    "mysql",
	EnvVar:  "IDEM_TEST_MYSQL",
	Default: "mysql://root@127.0.0.1:3306/test",
	Start:   "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd, or docker run -d -p 3306:3306 -e MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1 -e MARIADB_DATABASE=test mariadb:10.11",
	Ping: func(ctx context.Context, dsn string) error {
		cfg, err := mysql.Config(dsn, time.Minute)
		if err != nil {
			return err
		}
		c, err := gomysql.NewConnector(cfg)
		if err != nil {
			return err
		}
		db := sql.OpenDB(c)
		defer db.Close()
		return db.PingContext(ctx)
	},
}

// MySQLAdmin opens the MySQL server of the tests without a database, for
// setting up and dropping databases, and closes it when the test ends
// (after the test's own later cleanups). It returns the server's URL too.
func MySQLAdmin(t testing.TB) (*sql.DB, string) {
	t.Helper()
	dsn := MySQL.DSN(t)
	cfg, err := mysql.Config(dsn, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = ""
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db, dsn
}
