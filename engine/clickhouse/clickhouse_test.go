package clickhouse_test

import (
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// heldTables reads a chdb: folder's tables from its metadata files
// (metadata/DATABASE/TABLE.sql, names escaped as %XX): the process
// holding the folder is the only one that can query it.
func heldTables(url string) ([]string, error) {
	meta := filepath.Join(strings.TrimPrefix(url, "chdb:"), "metadata")
	dbs, err := os.ReadDir(meta)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dbs {
		files, err := os.ReadDir(filepath.Join(meta, d.Name())) // a symlink to the database's folder
		if err != nil {
			continue // DATABASE.sql, a file
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Name(), ".sql") {
				continue
			}
			db, err1 := neturl.PathUnescape(d.Name())
			name, err2 := neturl.PathUnescape(strings.TrimSuffix(f.Name(), ".sql"))
			if err := errors.Join(err1, err2); err != nil {
				return nil, err
			}
			out = append(out, db+"."+name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// notSystem leaves out ClickHouse's own databases.
const notSystem = "name NOT IN ('system', 'information_schema', 'INFORMATION_SCHEMA')"

// harness gives each test its own folder.
var harness = enginetest.Harness{
	Target: func(t *testing.T) string {
		needChDB(t)
		return "chdb:" + filepath.Join(t.TempDir(), "target.chdb")
	},
	Spelling: enginetest.Spelling{
		// The catalog is system.*: a database is a schema, and session
		// (temporary) tables are no part of the target.
		TraceSchemas: "SELECT name FROM system.databases WHERE " + notSystem + " ORDER BY 1",
		TraceTables:  "SELECT database || '.' || name FROM system.tables WHERE NOT is_temporary AND " + strings.ReplaceAll(notSystem, "name", "database") + " ORDER BY 1",
		Timestamp:    "DateTime64(6)",
		Random:       "rand()",
		// now() has whole seconds: two runs within one would agree.
		NowText:     "toString(now64(6))",
		SleepWhere:  "sleep(1.5) = 0",
		UniqueIndex: "none",
		CreateAs:    " ENGINE = MergeTree ORDER BY tuple() AS",
		// ClickHouse has no sequences (generateSerialID needs Keeper).
		Sequence:   func(string) string { return "" },
		HeldTables: heldTables,
		OldLedger: []string{`CREATE TABLE idem_runs (job String, "partition" String, run_id String,
  seq Int64, input_fingerprint String, definition_hash String, strategy String,
  rows_in Int64, rows_deduped Int64, rows_out_of_window Int64, inserted Int64,
  updated Int64, deleted Int64, skipped_older Int64, row_count Int64,
  checksum String, partition_closed Bool, started_at DateTime64(6, 'UTC'),
  finished_at DateTime64(6, 'UTC'), idem_version String) ENGINE = ReplacingMergeTree ORDER BY (job, "partition", run_id)`,
			`INSERT INTO idem_runs VALUES ('old', '2026-10-01', 'r0', 1, 'f', 'd', 'merge', 1, 0, 0, 1, 0, 0, 0, 1, '0', true,
  '2026-10-02 00:00:00', '2026-10-02 00:00:01', '0.0.1')`},
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
