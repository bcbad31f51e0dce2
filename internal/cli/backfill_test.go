package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// eventsJob writes a job over one file of events on 2026-11-27, -28 and
// 2026-12-01 (none on 11-29 and 11-30).
func eventsJob(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "e.csv"), []byte("id,day\n1,2026-11-27\n2,2026-11-28\n3,2026-11-28\n4,2026-12-01\n"), 0o644))
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: ev\ntarget:\n  url: duckdb:t.duckdb\n  table: ev\nsource:\n  files: e.csv\nstrategy: partition\npartition:\n  column: day\n"), 0o644))
	return path
}

var (
	volatileMS  = regexp.MustCompile(`\(\d+ ms\)`)
	volatileAt  = regexp.MustCompile(`finished \S+|last failure \S+`)
	volatileRun = regexp.MustCompile(`run [0-9a-f]{12}`)
)

func stable(s string) string {
	s = volatile.ReplaceAllString(s, "run RUN")
	s = volatileMS.ReplaceAllString(s, "(MS)")
	s = volatileRun.ReplaceAllString(s, "run RUN")
	return volatileAt.ReplaceAllStringFunc(s, func(m string) string { return strings.Fields(m)[0] + " AT" })
}

// A backfill prints each partition as `run` would, then a summary naming
// what failed; rerun, it loads only what is missing. Rows of other
// partitions of the range are not noted on stderr (the backfill loads
// them); those outside it are, in one note at the end, each input's once.
func TestBackfillHuman(t *testing.T) {
	t.Parallel()
	path := eventsJob(t)
	code, out, errOut := run(t, "backfill", path, "--from", "2026-11-27", "--to", "2026-11-29", "--as-of", "2026-12-02T00:00:00Z")
	require.Equal(t, 1, code, errOut)
	require.Equal(t, `ev 2026-11-27: loaded: 4 rows in, 0 deduped, 3 out of window; 1 inserted, 0 deleted; partition now 1 rows, checksum CHECKSUM (run RUN)
ev 2026-11-28: loaded: 4 rows in, 0 deduped, 2 out of window; 2 inserted, 0 deleted; partition now 2 rows, checksum CHECKSUM (run RUN)
ev 2026-11-29: failed; the target is unchanged
ev 2026-11-27..2026-11-29: 3 partitions: 2 loaded (3 rows), 0 skipped, 1 failed, 0 not closed, 0 locked (MS)
  failed: 2026-11-29 (fix the cause and rerun the same backfill: it loads only what is missing)
`, regexp.MustCompile(`checksum [0-9a-f]{16}`).ReplaceAllString(stable(out), "checksum CHECKSUM"))
	require.Contains(t, errOut, "idem: ev 2026-11-27..2026-11-29: 1 input rows belong to partitions outside the backfill's range and were not written: 2026-12-01 (1); run those partitions to load them\n",
		"only partitions outside the range, each input's rows once")
	require.Equal(t, 1, strings.Count(errOut, "belong to"), "one note per backfill, not one per partition: %s", errOut)
	require.Contains(t, errOut, "idem: ev partition 2026-11-29: none of the input's 4 rows falls in partition 2026-11-29")

	code, out, errOut = run(t, "backfill", path, "--from", "2026-11-27", "--to", "2026-11-28", "--as-of", "2026-12-02T00:00:00Z")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "2 partitions: 0 loaded (0 rows), 2 skipped, 0 failed")
}

// --json is clean JSON Lines: one object per partition, then the summary;
// no progress display when stderr is not a terminal.
func TestBackfillJSON(t *testing.T) {
	t.Parallel()
	path := eventsJob(t)
	code, out, errOut := run(t, "backfill", path, "--from", "2026-11-27", "--to", "2026-12-01", "--as-of", "2026-11-30T12:00:00Z", "--json", "--parallel", "2")
	require.Equal(t, 1, code, errOut)
	require.NotContains(t, errOut, "\r", "no progress display")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 6)
	for _, l := range lines[:5] {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		require.Contains(t, r, "action")
	}
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[5]), &sum))
	require.Equal(t, true, sum["summary"])
	require.EqualValues(t, 5, sum["partitions"])
	require.EqualValues(t, 2, sum["loaded"])
	require.Equal(t, []any{"2026-11-29"}, sum["failed"])
	require.Equal(t, []any{"2026-11-30", "2026-12-01"}, sum["not_closed"])
	require.Equal(t, []any{}, sum["locked"])
	require.EqualValues(t, 1, sum["workers"], "DuckDB: one writer")
	require.EqualValues(t, 1, sum["exit_code"])
	require.Contains(t, errOut, "DuckDB allows one writing process per file")

	// Nothing failed, something not closed: 75.
	code, _, errOut = run(t, "backfill", path, "--from", "2026-11-27", "--to", "2026-12-01", "--as-of", "2026-11-30T12:00:00Z", "--json")
	require.Equal(t, 1, code, errOut, "11-29 still fails")
	code, out, errOut = run(t, "backfill", path, "--from", "2026-12-01", "--to", "2026-12-01", "--as-of", "2026-12-01T12:00:00Z")
	require.Equal(t, 75, code, errOut)
	require.Contains(t, out, "  not closed: 2026-12-01 (rerun once they close, or pass --allow-open)")
}

func TestBackfillAndStatusUsage(t *testing.T) {
	t.Parallel()
	path := eventsJob(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"backfill", path, "--from", "2026-11-27"}, "--from and --to are required"},
		{[]string{"backfill", path, "--from", "2026-11-28", "--to", "2026-11-27"}, "--to 2026-11-27 is before --from 2026-11-28"},
		{[]string{"backfill", path, "--from", "2026-11", "--to", "2026-11-27"}, "--from: --date 2026-11 is a month"},
		{[]string{"backfill", path, "--from", "2026-11-27", "--to", "2026-11-28", "--parallel", "0"}, "--parallel 0"},
		{[]string{"status", path, "--from", "2026-11-27"}, "give both --from and --to"},
		{[]string{"status", path, "--from", "2026-11-28", "--to", "2026-11-27"}, "is before --from"},
	} {
		code, _, errOut := run(t, tc.args...)
		require.Equal(t, 2, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	require.NoFileExists(t, filepath.Join(filepath.Dir(path), "t.duckdb"), "nothing is touched")
}

// status lists each partition, the gaps between the first and the last
// loaded and the failures; it exits 3 until the range is whole.
func TestStatusHuman(t *testing.T) {
	t.Parallel()
	path := eventsJob(t)
	code, out, _ := run(t, "status", path)
	require.Equal(t, 3, code)
	require.Equal(t, "ev: no runs recorded\n", out)

	for _, d := range []string{"2026-11-27", "2026-12-01"} {
		code, _, errOut := run(t, "run", path, "--date", d, "--as-of", "2026-12-02T00:00:00Z")
		require.Equal(t, 0, code, errOut)
	}
	code, _, _ = run(t, "run", path, "--date", "2026-11-29", "--as-of", "2026-12-02T00:00:00Z")
	require.Equal(t, 1, code)
	code, out, _ = run(t, "status", path)
	require.Equal(t, 3, code)
	require.Equal(t, `2026-11-27  loaded   1 rows  checksum d85eaa5a822d1fa9  run RUN  closed  finished AT
2026-11-28  missing
2026-11-29  failed   last AT (run RUN): none of the input's 4 rows falls in partition 2026-11-29; nothing was loaded (set allow_empty: true if an empty partition is normal)
2026-11-30  missing
2026-12-01  loaded   1 rows  checksum 1c8b9fb659af2a4a  run RUN  closed  finished AT
ev 2026-11-27..2026-12-01: 5 partitions, 2 loaded, 2 missing, 1 failed, 0 open
  missing: 2026-11-28, 2026-11-30 (idem backfill loads them)
  failed: 2026-11-29 (fix the cause and run them again)
`, stable(out))

	code, _, _ = run(t, "status", path, "--from", "2026-12-01", "--to", "2026-12-01")
	require.Equal(t, 0, code)
}

// A target that cannot be opened still ends --json with a summary, every
// partition not run.
func TestBackfillJSONTargetUnusable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: ev\ntarget:\n  url: duckdb:not-a-dir/x/t.duckdb\n  table: ev\nsource:\n  files: e.csv\nstrategy: partition\npartition:\n  column: day\n"), 0o644))
	code, out, errOut := run(t, "backfill", path, "--from", "2026-11-27", "--to", "2026-11-28", "--json")
	require.Equal(t, 1, code, errOut)
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &sum), out)
	require.Equal(t, []any{"2026-11-27", "2026-11-28"}, sum["not_run"])
	require.EqualValues(t, 1, sum["exit_code"])
}

// A job file error, which every partition would hit, stops the backfill:
// exit 2, the partitions after it not run.
func TestBackfillStopsOnJobError(t *testing.T) {
	t.Parallel()
	path := eventsJob(t)
	code, _, errOut := run(t, "run", path, "--date", "2026-11-27", "--as-of", "2026-12-02T00:00:00Z")
	require.Equal(t, 0, code, errOut)
	other := filepath.Join(filepath.Dir(path), "other.yaml")
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(string(text), "job: ev", "job: ev2", 1)), 0o644))

	code, out, errOut := run(t, "backfill", other, "--from", "2026-11-27", "--to", "2026-11-28", "--as-of", "2026-12-02T00:00:00Z", "--json")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, `is loaded by job "ev"`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.Equal(t, []any{"2026-11-28"}, sum["not_run"])
	require.EqualValues(t, 2, sum["exit_code"])
}

// A year of daily files, each with a late row of the day before the range:
// one note at the end, its count the sum of the inputs' rows outside the
// range (each input read once), never one line per partition; and so for
// a run whose lookback loads several partitions.
func TestBackfillOutOfWindowOneNote(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"2026-11-02", "2026-11-03", "2026-11-04"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, d+".csv"), []byte("id,day\n"+d[8:]+","+d+"\n9"+d[8:]+",2026-11-01\n"), 0o644))
	}
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte("idem: 1\njob: ev\ntarget:\n  url: duckdb:t.duckdb\n  table: ev\nsource:\n  files: \"{{ date }}.csv\"\nstrategy: partition\npartition:\n  column: day\n"), 0o644))
	code, out, errOut := run(t, "backfill", path, "--from", "2026-11-02", "--to", "2026-11-04", "--as-of", "2026-12-02T00:00:00Z")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "3 loaded (3 rows)")
	require.Equal(t, "idem: ev 2026-11-02..2026-11-04: 3 input rows belong to partitions outside the backfill's range and were not written: 2026-11-01 (3); run those partitions to load them\n",
		errOut)

	// A run with lookback loads several partitions: one note for the run.
	lookback := filepath.Join(dir, "lookback.yaml")
	require.NoError(t, os.WriteFile(lookback, []byte("idem: 1\njob: ev\ntarget:\n  url: duckdb:t.duckdb\n  table: ev\nsource:\n  files: \"{{ date }}.csv\"\nstrategy: partition\npartition:\n  column: day\n  lookback: 1\n"), 0o644))
	code, out, errOut = run(t, "run", lookback, "--date", "2026-11-04", "--force", "--as-of", "2026-12-02T00:00:00Z")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 2, strings.Count(out, "loaded:"), out)
	require.Equal(t, "idem: ev 2026-11-03..2026-11-04: 2 input rows belong to partitions outside the partitions this run loaded and were not written: 2026-11-01 (2); run those partitions to load them\n",
		errOut)
}
