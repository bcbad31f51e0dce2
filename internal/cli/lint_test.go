package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const lintJob = `idem: 1
job: orders
target:
  url: duckdb:out.duckdb
  table: orders
source:
  query: |
    SELECT 1 AS id, CAST({{ start }} AS DATE) AS d,
      now() AS seen  -- the run's clock: reruns differ
strategy: partition
partition:
  column: d
key: [id]
`

func writeJob(t *testing.T, body string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "orders.yaml")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return dir, path
}

func TestLintReportsAndExits2(t *testing.T) {
	t.Parallel()
	_, path := writeJob(t, lintJob)
	code, out, errOut := run(t, "lint", path)
	require.Equal(t, 2, code, errOut)
	require.Equal(t, path+":9:7: error: nondeterministic: now is the time of the run, not of the data: every rerun gives a different value, so a rerun is not a no-op (now()) — do instead: use the partition's bounds ({{ start }}, {{ end }}, {{ date }}) or a time column of the source; for a load time use loaded_at:, which idem fills and keeps out of checksums\n", out)

	code, out, _ = run(t, "lint", "--json", path)
	require.Equal(t, 2, code)
	var f map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &f))
	require.Equal(t, "nondeterministic", f["name"])
	require.Equal(t, "now", f["function"])
	require.EqualValues(t, 9, f["line"])
	require.EqualValues(t, 7, f["column"])
}

func TestLintWarningsExit0(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, "lint", "../../examples/jaffle/orders.yaml", "../../examples/quakes/quakes.yaml")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "orders.yaml:14:10: warning (allowed by lint.allow): files-without-date:")
	require.Equal(t, 1, strings.Count(out, "\n"), out) // quakes is clean
}

func TestRunAndBackfillRefuseLintErrors(t *testing.T) {
	t.Parallel()
	dir, path := writeJob(t, lintJob)
	for _, args := range [][]string{
		{"run", path, "--date", "2026-01-01"},
		{"backfill", path, "--from", "2026-01-01", "--to", "2026-01-02"},
	} {
		code, _, errOut := run(t, args...)
		require.Equal(t, 2, code, errOut)
		require.Contains(t, errOut, "lint nondeterministic (column 7)")
		require.Contains(t, errOut, "lint: {allow: [nondeterministic:now]}")
		require.Contains(t, errOut, "(line 9)")
		_, err := os.Stat(filepath.Join(dir, "out.duckdb"))
		require.True(t, os.IsNotExist(err), "the target was created: %v", err)
	}

	// Waived by name, the job runs.
	_, path = writeJob(t, lintJob+"lint:\n  allow: [\"nondeterministic:now\"]\n")
	code, _, errOut := run(t, "run", path, "--date", "2026-01-01")
	require.Equal(t, 0, code, errOut)
	code, out, _ := run(t, "lint", path)
	require.Equal(t, 0, code)
	require.Contains(t, out, "error (allowed by lint.allow): nondeterministic:")
}

// A source's own column named like a surrogate (row_id) is refused as a
// merge key until the job waives generated-key; then it runs.
func TestSurrogateNamedKeyAllowed(t *testing.T) {
	t.Parallel()
	body := "idem: 1\njob: rows\ntarget:\n  url: duckdb:w.duckdb\n  table: rows\nsource:\n  files: in.csv\nstrategy: merge\nkey: [row_id]\nlatest_by: v\n"
	dir, path := writeJob(t, body)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.csv"), []byte("row_id,v,x\n1,1,a\n2,1,b\n"), 0o644))
	code, _, errOut := run(t, "run", path, "--date", "2026-11-28")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, `key[0] "row_id" is named like a surrogate key`)
	require.Contains(t, errOut, "allow: [generated-key]")
	require.NoFileExists(t, filepath.Join(dir, "w.duckdb"))

	require.NoError(t, os.WriteFile(path, []byte(body+"lint:\n  allow: [generated-key]\n"), 0o644))
	code, out, errOut := run(t, "run", path, "--date", "2026-11-28")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "2 inserted")
}
