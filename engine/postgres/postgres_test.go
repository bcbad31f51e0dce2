package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/enginetest"
)

var server = enginetest.Server{
	Name:    "postgres",
	EnvVar:  "IDEM_TEST_POSTGRES",
	Default: "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
	Start:   "pg_ctlcluster --skip-systemctl-redirect 15 main start, or docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:15",
	Ping: func(ctx context.Context, dsn string) error {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	},
}

var (
	adminOnce sync.Once
	admin     *sql.DB
	dbSeq     atomic.Int64
)

// freshDatabase creates an empty database for one test and drops it when
// the test ends; it returns its URL. The suite's tables are
// schema-qualified (sales.orders) as well as unqualified, so a database per
// test is what isolates parallel tests. Names are unique per process.
func freshDatabase(t testing.TB) string {
	t.Helper()
	dsn := server.DSN(t)
	adminOnce.Do(func() {
		var err error
		admin, err = sql.Open("pgx", dsn)
		if err != nil {
			panic(err)
		}
	})
	name := fmt.Sprintf("idem_t_%d_%d", os.Getpid(), dbSeq.Add(1))
	_, err := admin.ExecContext(context.Background(), fmt.Sprintf(`CREATE DATABASE %q`, name))
	require.NoError(t, err)
	t.Cleanup(func() {
		// FORCE ends sessions a killed idem process may have left behind.
		_, err := admin.ExecContext(context.Background(), fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name))
		if err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}

var harness = enginetest.Harness{
	Target: func(t *testing.T) string { return freshDatabase(t) },
	GeneratedKeyTable: func(schema, table string) []string {
		return []string{
			fmt.Sprintf(`CREATE SCHEMA %s`, schema),
			fmt.Sprintf(`CREATE TABLE %s.%s (order_id BIGINT GENERATED ALWAYS AS IDENTITY, status TEXT, updated_at TIMESTAMP)`, schema, table),
		}
	},
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness)
}

func TestGoldenSQL(t *testing.T) {
	enginetest.Golden(t, harness, "postgres")
}
