package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// planJSON is the shape of one line of `idem plan --json`.
type planJSON struct {
	Job       string `json:"job"`
	Partition string `json:"partition"`
	Strategy  string `json:"strategy"`
	Start     string `json:"start"`
	End       string `json:"end"`
	Action    string `json:"action"`
	Steps     []struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"steps"`
	Result map[string]any `json:"result"`
}

// On a fresh target, plan prints the run's statements and creates no
// database file; the run that follows loads exactly what the plan said.
func TestPlanFreshTargetCreatesNothing(t *testing.T) {
	t.Parallel()
	jobPath := example(t)
	db := filepath.Join(filepath.Dir(jobPath), "warehouse.duckdb")

	code, out, errOut := run(t, "plan", jobPath, "--date", "2018-01-01")
	require.Equal(t, 0, code, errOut)
	require.NoFileExists(t, db, "a plan creates no database")
	require.NoFileExists(t, db+".wal")
	require.True(t, strings.HasPrefix(out, "-- partition 2018-01-01: [2018-01-01 00:00:00, 2018-01-02 00:00:00) UTC\n\n"), out)
	for _, want := range []string{
		"\nBEGIN;\n\n-- lock: jaffle.orders partition 2018-01-01, waiting up to 10m",
		"\n-- load " + filepath.Join(filepath.Dir(jobPath), "data", "raw_orders.csv") + ` into "idem_stage" via the reader's typed rows`,
		"\nINSERT INTO \"idem_stage\" (\"id\", \"user_id\", \"order_date\", \"status\") SELECT * FROM idem_input_rows(0);\n",
		"\nDELETE FROM \"jaffle\".\"orders\" WHERE \"order_date\" >= DATE '2018-01-01' AND \"order_date\" < DATE '2018-01-02';\n",
		"\nCREATE TABLE IF NOT EXISTS \"idem_runs\" (",
		"\nCOMMIT; -- a run commits here; the plan rolled back instead\n",
		"\n-- plan of jaffle_orders 2018-01-01: a run would load: 99 rows in, 0 deduped, 98 out of window; 1 inserted, 0 deleted; partition then 1 rows, checksum 977fdb04049e826c",
	} {
		require.Contains(t, out, want)
	}

	code, out, errOut = run(t, "run", jobPath, "--date", "2018-01-01")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "partition now 1 rows, checksum 977fdb04049e826c")
}

// --json: one object per partition, with its interval, its steps by kind,
// and the result a run would print.
func TestPlanJSON(t *testing.T) {
	t.Parallel()
	jobPath := example(t)
	code, out, errOut := run(t, "plan", jobPath, "--date", "2018-01-02", "--json")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1)
	var p planJSON
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &p))
	require.Equal(t, "jaffle_orders", p.Job)
	require.Equal(t, "2018-01-02", p.Partition)
	require.Equal(t, "partition", p.Strategy)
	require.Equal(t, "2018-01-02T00:00:00Z", p.Start)
	require.Equal(t, "2018-01-03T00:00:00Z", p.End)
	require.Equal(t, "loaded", p.Action)
	var kinds []string
	for _, s := range p.Steps {
		if s.Kind != "sql" {
			kinds = append(kinds, s.Kind)
		}
		require.NotEmpty(t, s.Text)
	}
	require.Equal(t, []string{"partition", "begin", "lock", "load", "commit"}, kinds)
	require.Equal(t, "COMMIT", p.Steps[len(p.Steps)-1].Text)
	require.Equal(t, "loaded", p.Result["action"])
	require.EqualValues(t, 1, p.Result["row_count"])
	require.NoFileExists(t, filepath.Join(filepath.Dir(jobPath), "warehouse.duckdb"))
}

// A loaded partition: plan says the run would skip, shows the statements
// deciding it, and with --force the forced run; the target is unchanged.
func TestPlanSkipAndForce(t *testing.T) {
	t.Parallel()
	jobPath := example(t)
	db := filepath.Join(filepath.Dir(jobPath), "warehouse.duckdb")
	code, _, errOut := run(t, "run", jobPath, "--date", "2018-01-01")
	require.Equal(t, 0, code, errOut)
	checksum := func() string {
		code, out, errOut := run(t, "checksum", "duckdb:"+db, "jaffle.orders")
		require.Equal(t, 0, code, errOut)
		return out
	}
	before := checksum()

	code, out, errOut := run(t, "plan", jobPath, "--date", "2018-01-01")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "\nROLLBACK;\n")
	require.NotContains(t, out, "COMMIT")
	require.NotContains(t, out, "DELETE FROM")
	require.Contains(t, out, "a run would skip: already loaded from this input by run ")
	require.Contains(t, out, "plan with --force")

	code, out, errOut = run(t, "plan", jobPath, "--date", "2018-01-01", "--force")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "DELETE FROM")
	require.Contains(t, out, "COMMIT; -- a run commits here")
	require.Equal(t, before, checksum(), "a plan changes no row (loaded_at included)")

	code, out, _ = run(t, "status", jobPath, "--from", "2018-01-01", "--to", "2018-01-01", "--json")
	require.Equal(t, 0, code, out)
	require.Equal(t, 1, strings.Count(out, `"state":"loaded"`))
}

// Exit codes are the ones run would give: a job error is 2 and touches
// nothing; a partition that is not closed is 75.
func TestPlanExitCodes(t *testing.T) {
	t.Parallel()
	jobPath := example(t)
	db := filepath.Join(filepath.Dir(jobPath), "warehouse.duckdb")

	code, _, errOut := run(t, "plan", jobPath)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--date is required")

	code, _, errOut = run(t, "plan", jobPath, "--date", "yesterday")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--date "yesterday"`)

	bad := filepath.Join(filepath.Dir(jobPath), "bad.yaml")
	body, err := os.ReadFile(jobPath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(body), "key: [id]", "key: [idd]", 1)), 0o644))
	code, _, errOut = run(t, "plan", bad, "--date", "2018-01-01")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, `key[0]: column "idd" is not in the source`)
	require.NoFileExists(t, db)

	// A job with lint errors: run refuses it, so plan does.
	clock := filepath.Join(filepath.Dir(jobPath), "clock.yaml")
	require.NoError(t, os.WriteFile(clock, []byte(`idem: 1
job: clock
target:
  url: duckdb:warehouse.duckdb
  table: t
source:
  query: SELECT now() AS ts, 1 AS id
strategy: partition
partition:
  column: ts
`), 0o644))
	code, _, errOut = run(t, "run", clock, "--date", "2018-01-01")
	require.Equal(t, 2, code, errOut)
	code, out, errOut := run(t, "plan", clock, "--date", "2018-01-01")
	require.Equal(t, 2, code, errOut)
	require.Empty(t, out)
	require.Contains(t, errOut, "now()")
	require.NoFileExists(t, db)

	closing := filepath.Join(filepath.Dir(jobPath), "closing.yaml")
	require.NoError(t, os.WriteFile(closing, []byte(strings.Replace(string(body), "  grain: day", "  grain: day\n  closed_after: 1d", 1)), 0o644))
	code, out, errOut = run(t, "plan", closing, "--date", "2018-01-01", "--as-of", "2018-01-02T06:00:00Z")
	require.Equal(t, 75, code, errOut)
	require.Contains(t, out, "not closed yet (it closes at 2018-01-03T00:00:00Z): a run would do nothing; plan with --allow-open")
	require.NotContains(t, out, "BEGIN")
	require.NoFileExists(t, db)
}
