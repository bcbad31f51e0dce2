package clickhouse_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/idemdata/idem/engine/clickhouse/internal/chdb"
	"github.com/idemdata/idem/engine/enginetest"
)

// needChDB skips a test on a machine without libchdb.so, saying how to get
// it; with IDEM_TEST_REQUIRE naming clickhouse it fails instead.
func needChDB(t testing.TB) {
	t.Helper()
	if err := chdb.Load(); err != nil {
		msg := err.Error() + " (scripts/fetch-chdb.sh fetches it)"
		if enginetest.Required("clickhouse") {
			t.Fatalf("%s; %s requires it", msg, enginetest.RequireEnv)
		}
		t.Skip(msg)
	}
}

// harness gives each test its own folder.
var harness = enginetest.Harness{
	Target: func(t *testing.T) string {
		needChDB(t)
		return "chdb:" + filepath.Join(t.TempDir(), "target.chdb")
	},
	GeneratedKeyTable: func(schema, table string) []string {
		return []string{
			fmt.Sprintf(`CREATE DATABASE %s`, schema),
			fmt.Sprintf(`CREATE TABLE %s.%s (order_id UInt64 DEFAULT generateSerialID('%s.%s'), status Nullable(String), updated_at Nullable(DateTime64(6))) ENGINE = MergeTree ORDER BY tuple()`,
				schema, table, schema, table),
		}
	},
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness)
}

func TestGoldenSQL(t *testing.T) {
	enginetest.Golden(t, harness, "clickhouse")
}
