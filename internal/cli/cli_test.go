package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/internal/cli"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// example copies the jaffle example job into a temp folder, so its DuckDB
// file lands there.
func example(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("../../examples/jaffle")))
	os.Remove(filepath.Join(dir, "warehouse.duckdb"))
	return filepath.Join(dir, "orders.yaml")
}

var volatile = regexp.MustCompile(`run [0-9a-f]{12}, \d+ ms`)

func TestRunExampleTwice(t *testing.T) {
	t.Parallel()
	jobPath := example(t)

	code, out, errOut := run(t, "run", jobPath, "--date", "2018-01-01")
	require.Equal(t, 0, code, errOut)
	require.Equal(t,
		"jaffle_orders 2018-01-01: loaded: 99 rows in, 0 deduped, 98 out of window; 1 inserted, 0 deleted; partition now 1 rows, checksum 977fdb04049e826c (run RUN)\n",
		volatile.ReplaceAllString(out, "run RUN"))

	code, out, errOut = run(t, "run", jobPath, "--date", "2018-01-01")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^jaffle_orders 2018-01-01: skipped: already loaded from this input by run [0-9a-f]{12}; partition 1 rows, checksum 977fdb04049e826c \(--force reloads\)\n$`, out)

	code, out, errOut = run(t, "checksum", "duckdb:"+filepath.Join(filepath.Dir(jobPath), "warehouse.duckdb"), "jaffle.orders", "--exclude", "_loaded_at")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "jaffle.orders: 1 rows, checksum 977fdb04049e826c\n", out)
}

func TestRunJSON(t *testing.T) {
	t.Parallel()
	jobPath := example(t)
	code, out, errOut := run(t, "run", jobPath, "--date", "2018-01-02", "--json")
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for _, k := range []string{"job", "partition", "run_id", "action", "rows_in", "rows_deduped", "rows_out_of_window",
		"inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "input_fingerprint", "duration_ms"} {
		require.Contains(t, got, k)
	}
	require.Equal(t, "loaded", got["action"])
	require.Equal(t, "2018-01-02", got["partition"])
	require.EqualValues(t, 1, got["row_count"])
}

func TestBadJobFileExits2AndTouchesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`idem: 1
job: orders
target:
  url: duckdb:out.duckdb
  tabel: orders
source:
  files: x.csv
strategy: partition
`), 0o644))
	code, out, errOut := run(t, "run", path, "--date", "2026-11-28")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Contains(t, errOut, `target.tabel: unknown key (did you mean "table"?) (line 5)`)
	require.Contains(t, errOut, "target.table: required")
	require.Contains(t, errOut, "partition.column: required for strategy partition")
	require.NoFileExists(t, filepath.Join(dir, "out.duckdb"), "nothing is touched")
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	jobPath := example(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", jobPath}, "--date is required"},
		{[]string{"run", jobPath, "--date", "2018-01-01T05"}, "is a hour; this job's partitions are days"},
		{[]string{"run", jobPath, "--date", "yesterday"}, `--date "yesterday" is not a day partition`},
		{[]string{"run", jobPath, "--date", "2018-01-01", "--as-of", "noon"}, "--as-of"},
		{[]string{"run", jobPath, "--date", "2018-01-01", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"run", jobPath, "--dat", "2018-01-01"}, "unknown flag: --dat (did you mean --date?)"},
		{[]string{"checksum", "duckdb:x.duckdb", "t", "--exlude", "a"}, "(did you mean --exclude?)"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"checksum", "oracle://x", "t"}, "is not a target URL"},
	} {
		code, _, errOut := run(t, tc.args...)
		require.Equal(t, 2, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	require.NoFileExists(t, filepath.Join(filepath.Dir(jobPath), "warehouse.duckdb"))
}

func TestPasswordNeverPrinted(t *testing.T) {
	t.Parallel()
	code, _, errOut := run(t, "checksum", "oracle://user:s3cret@host/db", "t")
	require.Equal(t, 2, code)
	require.NotContains(t, errOut, "s3cret")
}

func TestNotClosedExits75(t *testing.T) {
	t.Parallel()
	jobPath := example(t)
	code, out, _ := run(t, "run", jobPath, "--date", "2018-01-01", "--as-of", "2018-01-01T12:00:00Z")
	require.Equal(t, 75, code)
	require.Contains(t, out, "not closed yet: it closes at 2018-01-02T00:00:00Z (its end plus closed_after 0s)")
}

// Rows of other partitions are listed on stderr by partition, never lost
// silently; with --json they are in the object too.
func TestOutOfWindowReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "e.csv"), []byte("id,day\n1,2026-11-27\n2,2026-11-28\n3,2026-11-28\n4,2026-12-01\n"), 0o644))
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: ev\ntarget:\n  url: duckdb:t.duckdb\n  table: ev\nsource:\n  files: e.csv\nstrategy: partition\npartition:\n  column: day\n"), 0o644))
	code, out, errOut := run(t, "run", path, "--date", "2026-11-28", "--as-of", "2026-12-02T00:00:00Z", "--json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "ev 2026-11-28: 2 input rows belong to other partitions and were not written: 2026-11-27 (1), 2026-12-01 (1)")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, []any{map[string]any{"partition": "2026-11-27", "rows": 1.0}, map[string]any{"partition": "2026-12-01", "rows": 1.0}}, got["out_of_window"])
}

// checksum opens DuckDB read-only: a missing file is an error that creates
// nothing, and a file this process cannot write (chmod 444, and immutable
// where root can make it so) is read without changing a byte.
func TestChecksumReadOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.duckdb")
	code, _, errOut := run(t, "checksum", "duckdb:"+typo, "orders")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "typo.duckdb: file does not exist")
	code, _, errOut = run(t, "checksum", "duckdb:"+typo, "orders", "--where", "true; DROP TABLE idem_runs")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "--where contains ';'")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is created")

	jobPath := example(t)
	code, _, errOut = run(t, "run", jobPath, "--date", "2018-01-01")
	require.Equal(t, 0, code, errOut)
	db := filepath.Join(filepath.Dir(jobPath), "warehouse.duckdb")
	want := "jaffle.orders: 1 rows, checksum 977fdb04049e826c\n"

	before, err := os.ReadFile(db)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(db, 0o444))
	require.NoError(t, os.Chmod(filepath.Dir(db), 0o555))
	t.Cleanup(func() { os.Chmod(filepath.Dir(db), 0o755) })
	if os.Geteuid() == 0 { // root writes a 0444 file anyway; an immutable one it cannot
		if out, err := exec.Command("chattr", "+i", db).CombinedOutput(); err == nil {
			t.Cleanup(func() { exec.Command("chattr", "-i", db).Run() })
		} else {
			t.Logf("chattr +i: %v %s; checking with chmod only", err, out)
		}
	}
	code, out, errOut := run(t, "checksum", "duckdb:"+db, "jaffle.orders", "--exclude", "_loaded_at")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, out)
	code, _, errOut = run(t, "checksum", "duckdb:"+db, "idem_runs", "--where", "true; DROP TABLE idem_runs; SELECT 1")
	require.Equal(t, 2, code, errOut)
	code, _, errOut = run(t, "checksum", "duckdb:"+db, "idem_runs", "--where", "(SELECT count(*) FROM query('DROP TABLE idem_runs')) >= 0")
	require.Equal(t, 1, code, errOut)
	after, err := os.ReadFile(db)
	require.NoError(t, err)
	require.Equal(t, before, after, "not a byte changed")
	require.NoFileExists(t, db+".wal")
	code, out, errOut = run(t, "checksum", "duckdb:"+db, "idem_runs", "--json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"row_count":1`)
}

// An unparsable URL is a usage error (exit 2) that does not print the
// password, on the command line as in a job file.
func TestUnparsableURLIsUsage(t *testing.T) {
	t.Parallel()
	url := "postgres://adv_u:S3cr3t/p@ss@127.0.0.1:notaport/db"
	code, out, errOut := run(t, "checksum", url, "orders")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, `malformed target URL: "postgres://adv_u:xxxxx@127.0.0.1:notaport/db"`)
	require.NotContains(t, out+errOut, "S3cr3t")
	require.NotContains(t, out+errOut, "p@ss")

	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`idem: 1
job: orders
target:
  url: '`+url+`'
  table: orders
source:
  files: x.csv
strategy: partition
partition:
  column: day
`), 0o644))
	code, out, errOut = run(t, "run", path, "--date", "2026-11-28", "--json")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "target.url: malformed target URL")
	require.NotContains(t, out+errOut, "S3cr3t")
}

// A merge's delete of a key the table does not hold is counted as
// deleted_absent, in the human line and in --json.
func TestMergeDeletedAbsent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2026-11-03.csv"),
		[]byte("id,name,updated_at,is_deleted\n3,Cid,2026-11-03 09:00:00,true\n4,Dee,2026-11-03 09:00:00,false\n"), 0o644))
	jobPath := filepath.Join(dir, "customers.yaml")
	require.NoError(t, os.WriteFile(jobPath, []byte(`idem: 1
job: customers
target:
  url: duckdb:out.duckdb
  table: customers
source:
  files: "{{ date }}.csv"
strategy: merge
key: [id]
latest_by: updated_at
delete_when: is_deleted
`), 0o644))

	code, out, errOut := run(t, "run", jobPath, "--date", "2026-11-03")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "; 1 inserted, 0 updated, 0 deleted, 1 deletes of absent keys remembered, 0 skipped as not newer;")

	code, out, errOut = run(t, "run", jobPath, "--date", "2026-11-03", "--force", "--json")
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.EqualValues(t, 0, got["deleted_absent"], "the same delete again changes nothing")
	require.EqualValues(t, 2, got["skipped_older"])
}
