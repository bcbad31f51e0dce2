package benchcli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/internal/peakrss"
)

// TestMain lets this test binary stand in for idem-bench's baseline
// subprocess (run re-executes os.Executable() with "baseline") and for
// peakrss's measuring copy.
func TestMain(m *testing.M) {
	peakrss.Serve() // measure's copy of this binary
	if len(os.Args) > 1 && os.Args[1] == "baseline" {
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestTinyRun runs every scenario at a tiny size and checks the table's
// shape: a row per scenario and engine, every run measured, ratios that
// are the medians' quotient. Times are not checked: they mean nothing here.
func TestTinyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the idem binary about 40 times")
	}
	engines := []string{"duckdb"}
	// This process's own prefix: --drop drops what it made, and nothing
	// of another process testing against the same servers.
	prefix := fmt.Sprintf("idem_benchtest_%d_", os.Getpid())
	// One run each keeps the test short
	// (docs/decisions/0017-bench-test-runs-once.md); TestMedian covers the
	// medians of several.
	args := []string{"--rows", "2000", "--repeat", "1", "--json", "--dir", t.TempDir(),
		"--idem", enginetest.Binary(t), "--schema-prefix", prefix, "--drop",
		// Other packages test beside this one: the machine is never quiet.
		"--settle", "0"}
	var leftovers []func() int // each counts what the benchmark left on a server
	if os.Getenv(enginetest.RequireEnv) != "" || enginetest.Postgres.Ping(context.Background(), pgDSN()) == nil {
		engines = append(engines, "postgres")
		dsn := enginetest.Postgres.DSN(t)
		args = append(args, "--postgres", dsn)
		leftovers = append(leftovers, func() int {
			db, err := sql.Open("pgx", dsn)
			require.NoError(t, err)
			defer db.Close()
			var n int
			require.NoError(t, db.QueryRow("SELECT count(*) FROM pg_namespace WHERE starts_with(nspname, $1)", prefix).Scan(&n))
			return n
		})
	} else {
		t.Log("no PostgreSQL server: not measuring PostgreSQL, nor PostgreSQL as a source (scenario 7)")
		args = append(args, "--only", "1,2,3,4,5,6")
	}
	if dsn := mysqlServer.DSN(t); dsn != "" { // skips the test when no server answers, unless required
		engines = append(engines, "mysql")
		args = append(args, "--mysql", dsn)
		leftovers = append(leftovers, func() int {
			db, _ := enginetest.MySQLAdmin(t)
			var n int
			require.NoError(t, db.QueryRow("SELECT count(*) FROM information_schema.schemata WHERE LEFT(schema_name, ?) = ?", len(prefix), prefix).Scan(&n))
			return n
		})
	}
	if _, err := clickhouse.Library(); err == nil {
		engines = append(engines, "clickhouse")
	} else if enginetest.Required("clickhouse") {
		t.Fatalf("%v; %s requires it", err, enginetest.RequireEnv)
	} else {
		t.Logf("not measuring ClickHouse: %v", err)
	}
	args = append(args, "--engines", strings.Join(engines, ","))
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	require.Equal(t, 0, code, "stderr:\n%s", errb.String())
	for _, left := range leftovers {
		require.Zero(t, left(), "schemas or databases named %s* left behind", prefix)
	}

	scenarios := []string{"1 csv load", "1 csv load, key", "2 parquet load", "2 jsonl load", "3 replace partition",
		"3 merge small batch", "4 merge", "5 unchanged rerun", "5 unchanged rerun vs scan", "6 s3 csv load", "6 s3 unchanged rerun",
		"7 merge first load", "7 merge into empty table"}
	var rows []Row
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r Row
		require.NoError(t, dec.Decode(&r))
		rows = append(rows, r)
	}
	var want [][2]string // engine, scenario
	for _, e := range engines {
		for _, sc := range scenarios {
			want = append(want, [2]string{e, sc})
		}
		if dbSourceEngines[e] && slices.Contains(engines, "postgres") {
			want = append(want, [2]string{e, dbLoad}, [2]string{e, dbRerun})
		}
	}
	require.Len(t, rows, len(want))
	for i, r := range rows {
		require.Equal(t, want[i][0], r.Engine)
		require.Equal(t, want[i][1], r.Scenario)
		require.Len(t, r.Idem, 1, r.Scenario)
		require.Len(t, r.Base, 1, r.Scenario)
		require.Positive(t, r.IdemMed, r.Scenario)
		require.Positive(t, r.BaseMed, r.Scenario)
		require.InDelta(t, r.IdemMed/r.BaseMed, r.Ratio, 0.002, r.Scenario)
		require.Equal(t, r.Ratio <= r.Goal, r.Met, r.Scenario)
		require.Positive(t, r.Goal, r.Scenario)
		require.Positive(t, r.IdemRSS, r.Scenario)
		require.Positive(t, r.BaseRSS, r.Scenario)
		require.NotEmpty(t, r.Baseline, r.Scenario)
	}
	// The human table has the same rows.
	out.Reset()
	var table bytes.Buffer
	print(&table, Config{Repeat: 1}, rows)
	lines := strings.Split(strings.TrimSpace(table.String()), "\n")
	require.True(t, slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "4 merge") && strings.Contains(l, "duckdb") }))
}

// mysqlServer is the MariaDB or MySQL server (IDEM_TEST_MYSQL).
var mysqlServer = enginetest.MySQL

func pgDSN() string {
	if d := os.Getenv(enginetest.Postgres.EnvVar); d != "" {
		return d
	}
	return enginetest.Postgres.Default
}

// TestFlags: bad command lines are refused before anything runs.
func TestFlags(t *testing.T) {
	for _, args := range [][]string{{"--rows", "10"}, {"--repeat", "0"}, {"--engines", "oracle"}, {"stray"}} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, Main(context.Background(), args, &out, &errb), "%v", args)
		require.Empty(t, out.String())
	}
}

// TestMedian: the middle sample, or the mean of the middle two.
func TestMedian(t *testing.T) {
	require.Equal(t, 0.0, median(nil))
	require.Equal(t, 2.0, median([]float64{3, 1, 2}))
	require.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
	xs := []float64{4, 1, 3, 2}
	median(xs)
	require.Equal(t, []float64{4, 1, 3, 2}, xs, "the samples keep their order")
}

// TestOnly: --only picks scenarios by the start of their names, so that
// one of scenario 3's two can run alone.
func TestOnly(t *testing.T) {
	for _, c := range []struct {
		only, scenario string
		want           bool
	}{
		{"", "3 replace partition", true},
		{"3", "3 replace partition", true},
		{"3", "3 merge small batch", true},
		{"3 merge", "3 merge small batch", true},
		{"3 merge", "3 replace partition", false},
		{"1, 3 merge", "1 csv load", true},
		{"4", "5 unchanged rerun", false},
	} {
		require.Equal(t, c.want, Config{Only: c.only}.wanted(c.scenario), "--only %q, %s", c.only, c.scenario)
	}
}
