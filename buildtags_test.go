package idem_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A binary built with no_<engine> tags refuses a job naming a left-out
// engine as a job file error (exit 2): the URL, its password redacted, is
// "not a target URL", and the message lists the engines the binary has.
// The engines it keeps are still opened. Built without DuckDB, so the
// build needs no cgo.
func TestBuildTagsLeaveEnginesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and links a second idem binary; the full run (without -short) runs it")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "idem")
	build := exec.Command("go", "build", "-tags", "no_duckdb,no_postgres", "-o", bin, "./cmd/idem")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.csv"), []byte("id,day\n1,2026-11-28\n"), 0o644))

	run := func(url string) (int, string) {
		job := filepath.Join(dir, "job.yaml")
		require.NoError(t, os.WriteFile(job, []byte(`idem: 1
job: tags
target:
  url: `+url+`
  table: t
source:
  files: in.csv
strategy: partition
partition:
  column: day
key: [id]
`), 0o644))
		cmd := exec.Command(bin, "run", job, "--date", "2026-11-28")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		require.NoError(t, err, "%s", out)
		return 0, string(out)
	}

	for _, url := range []string{"postgres://loader:S3cret@127.0.0.1:1/x?sslmode=disable", "duckdb:w.duckdb"} {
		code, msg := run(url)
		require.Equal(t, 2, code, msg)
		require.Contains(t, msg, "is not a target URL (chdb:PATH, clickhouse://…, clickhouses://…, mysql://…)", url)
		require.NotContains(t, msg, "S3cret")
	}
	require.NoFileExists(t, filepath.Join(dir, "w.duckdb"))

	// mysql:// is kept: it is opened (and fails to connect), not refused.
	code, msg := run("mysql://root@127.0.0.1:1/x")
	require.NotEqual(t, 0, code, msg)
	require.False(t, strings.Contains(msg, "is not a target URL"), msg)
}
