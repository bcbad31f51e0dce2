package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
)

// A merge job's status lists its runs with no gaps invented between them
// and the table's row count now; a table emptied behind idem's back makes
// status exit 3 and the rerun the ledger calls done fail (exit 1) instead
// of reporting skipped, until a forced run merges into it again.
func TestMergeStatusAndChangedTarget(t *testing.T) {
	t.Parallel()
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprint("shared=", shared), func(t *testing.T) {
			t.Parallel()
			mergeStatusAndChangedTarget(t, shared)
		})
	}
}

// mergeStatusAndChangedTarget: with shared (target.shared_with), other
// jobs may change the table's size, so only its existence is checked.
func mergeStatusAndChangedTarget(t *testing.T, shared bool) {
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("2026-11-01.csv", "id,name,updated_at\n1,a,2026-11-01 09:00:00\n2,b,2026-11-01 09:00:00\n")
	write("2026-11-04.csv", "id,name,updated_at\n2,B,2026-11-04 09:00:00\n3,c,2026-11-04 09:00:00\n")
	jobPath := filepath.Join(dir, "customers.yaml")
	sharing := ""
	if shared {
		sharing = "  shared_with: [other]\n"
	}
	write("customers.yaml", "idem: 1\njob: customers\ntarget:\n  url: duckdb:out.duckdb\n  table: customers\n"+sharing+"source:\n  files: \"{{ date }}.csv\"\nstrategy: merge\nkey: [id]\nlatest_by: updated_at\n")
	for _, d := range []string{"2026-11-01", "2026-11-04"} {
		code, _, errOut := run(t, "run", jobPath, "--date", d)
		require.Equal(t, 0, code, errOut)
	}

	code, out, errOut := run(t, "status", jobPath)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, `2026-11-01  loaded   2 rows written  checksum 6dd5ac35bc3d05af  run RUN  closed  finished AT
2026-11-04  loaded   2 rows written  checksum d61fc4a534540777  run RUN  closed  finished AT
customers 2026-11-01..2026-11-04: 2 merge runs, 2 loaded, 0 failed, 0 open
  table customers: 3 rows
`, stable(out), "no partition between the runs is missing")

	db, err := idem.Open(context.Background(), "duckdb:out.duckdb", dir, time.Minute)
	require.NoError(t, err)
	_, err = db.Conn().ExecContext(context.Background(), `DELETE FROM customers`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	if shared {
		code, _, errOut = run(t, "status", jobPath)
		require.Equal(t, 0, code, errOut)
		code, out, errOut = run(t, "run", jobPath, "--date", "2026-11-01")
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "skipped")
		return
	}
	code, out, _ = run(t, "status", jobPath, "--json")
	require.Equal(t, 3, code)
	require.Contains(t, out, `"table":{"table":"customers","exists":true,"rows":0,"changed":"the table holds 0 rows; the job's last run (partition 2026-11-04) left 3"}`)

	code, out, errOut = run(t, "run", jobPath, "--date", "2026-11-01")
	require.Equal(t, 1, code, out)
	require.Contains(t, errOut, "target customers holds 0 rows; the job's last run (partition 2026-11-04, run ")
	require.Contains(t, errOut, "idem backfill "+jobPath+" --from FIRST --to LAST --force")

	code, out, errOut = run(t, "run", jobPath, "--date", "2026-11-01", "--force")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "2 inserted")
	code, _, errOut = run(t, "status", jobPath)
	require.Equal(t, 0, code, errOut)
}

// A merge whose latest_by is a column of its key is refused before
// anything is read (exit 2), naming why and what to use instead.
func TestLatestByInKeyRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2026-11-28.csv"), []byte("symbol,date,close\nAAPL,2026-11-27,10\n"), 0o644))
	jobPath := filepath.Join(dir, "prices.yaml")
	require.NoError(t, os.WriteFile(jobPath, []byte("idem: 1\njob: prices\ntarget:\n  url: duckdb:out.duckdb\n  table: prices\nsource:\n  files: \"{{ date }}.csv\"\nstrategy: merge\nkey: [symbol, date]\nlatest_by: date\n"), 0o644))
	code, out, errOut := run(t, "run", jobPath, "--date", "2026-11-28")
	require.Equal(t, 2, code, out)
	require.Contains(t, errOut, `latest_by: "date" is a column of the key: every copy of a key has the same value there, so the newest copy cannot be told`)
	require.Contains(t, errOut, "set latest_by: run")
	_, err := os.Stat(filepath.Join(dir, "out.duckdb"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing was touched")
}

// A correction with the same version that loses by content is reported as
// a tie kept, never as "not newer", in the text line and in --json.
func TestTieReportedAsTie(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2026-11-01.csv"), []byte("id,name,updated_at\n1,alpha,2026-11-01 09:00:00\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2026-11-02.csv"), []byte("id,name,updated_at\n1,beta,2026-11-01 09:00:00\n"), 0o644))
	jobPath := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(jobPath, []byte("idem: 1\njob: c\ntarget:\n  url: duckdb:out.duckdb\n  table: c\nsource:\n  files: \"{{ date }}.csv\"\nstrategy: merge\nkey: [id]\nlatest_by: updated_at\n"), 0o644))
	code, _, errOut := run(t, "run", jobPath, "--date", "2026-11-01")
	require.Equal(t, 0, code, errOut)
	code, out, errOut := run(t, "run", jobPath, "--date", "2026-11-02")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "; 0 inserted, 0 updated, 0 deleted, 0 deletes of absent keys remembered, 0 skipped as not newer, 1 kept on a tie (an equal version; the table's row comes first by content); wrote 0 rows")
	code, out, errOut = run(t, "run", jobPath, "--date", "2026-11-02", "--force", "--json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"skipped_older":0,"kept_on_tie":1,`)
}
