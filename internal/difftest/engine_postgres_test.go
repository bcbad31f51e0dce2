//go:build !no_postgres

package difftest_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/idemdata/idem/engine/enginetest"
	_ "github.com/idemdata/idem/engine/postgres" // registers postgres://
)

func init() {
	engines = append(engines, engineSpec{name: "postgres", keepOpen: true, workers: 2, target: postgresTarget})
}

// postgresTarget is a database of the test's own, idem_d_<pid>, dropped
// when the test ends; those of test processes that died are dropped first.
func postgresTarget(parent, t *testing.T) string {
	dsn := enginetest.Postgres.DSN(t)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	parent.Cleanup(func() { admin.Close() })
	quote := func(s string) string { return pgx.Identifier{s}.Sanitize() }
	stale, err := staleDatabases(admin, `SELECT datname FROM pg_catalog.pg_database WHERE datname LIKE 'idem\_d\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range stale {
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + quote(db) + ` WITH (FORCE)`); err != nil {
			t.Fatal(err)
		}
	}
	db := diffDatabase()
	// The test needs no commit to outlive a crash of the server: not
	// waiting for each to reach the disk makes its runs several times
	// faster.
	for _, q := range []string{`CREATE DATABASE ` + quote(db), `ALTER DATABASE ` + quote(db) + ` SET synchronous_commit = off`} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	parent.Cleanup(func() {
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + quote(db) + ` WITH (FORCE)`); err != nil {
			parent.Errorf("dropping %s: %v", db, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", enginetest.Postgres.EnvVar, err))
	}
	u.Path = "/" + db
	return u.String()
}
