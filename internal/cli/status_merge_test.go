package cli_test

import (
	"context"
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
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("2026-11-01.csv", "id,name,updated_at\n1,a,2026-11-01 09:00:00\n2,b,2026-11-01 09:00:00\n")
	write("2026-11-04.csv", "id,name,updated_at\n2,B,2026-11-04 09:00:00\n3,c,2026-11-04 09:00:00\n")
	jobPath := filepath.Join(dir, "customers.yaml")
	write("customers.yaml", "idem: 1\njob: customers\ntarget:\n  url: duckdb:out.duckdb\n  table: customers\nsource:\n  files: \"{{ date }}.csv\"\nstrategy: merge\nkey: [id]\nlatest_by: updated_at\n")
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
