package duckdb_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/idemdata/idem/engine/enginetest"
)

// harness gives each test its own database file.
var harness = enginetest.Harness{
	Target: func(t *testing.T) string {
		return "duckdb:" + filepath.Join(t.TempDir(), "target.duckdb")
	},
	GeneratedKeyTable: func(schema, table string) []string {
		return []string{
			fmt.Sprintf(`CREATE SCHEMA %s`, schema),
			fmt.Sprintf(`CREATE SEQUENCE %s.order_seq`, schema),
			fmt.Sprintf(`CREATE TABLE %s.%s (order_id BIGINT DEFAULT nextval('%s.order_seq'), status VARCHAR, updated_at TIMESTAMP)`, schema, table, schema),
		}
	},
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness)
}

func TestGoldenSQL(t *testing.T) {
	enginetest.Golden(t, harness, "duckdb")
}
