package postgres_test

import (
	"fmt"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/idemdata/idem/engine/enginetest"
)

var server = enginetest.Postgres

// freshDatabase gives one test an empty database of its own, and takes it
// back when the test ends; it returns its URL. The suite's tables are
// schema-qualified (sales.orders) as well as unqualified, so a database per
// test is what isolates parallel tests. See testDatabase.
func freshDatabase(t testing.TB) string {
	t.Helper()
	return testDatabase(t)
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
