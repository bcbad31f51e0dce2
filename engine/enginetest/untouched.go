package enginetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
	"github.com/idemdata/idem/runner"
)

// untouchedCases: exit 2 means nothing was touched. A refused job leaves
// no file, schema, table or ledger row behind, on a fresh target as on one
// with data.
var untouchedCases = []testCase{
	{"RefusedOnFreshTargetLeavesNothing", testRefusedFresh},
	{"RefusedOnLoadedTargetChangesNothing", testRefusedLoaded},
	{"FailedOnFreshTargetLeavesNothing", testFailedFresh},
	{"RefusedAfterCommittedLookbackIsNotExit2", testRefusedAfterLookback},
	{"OldLedgerMigratedOnlyByACommittedRun", testOldLedger},
}

// Trace is what exists in a target: the database itself (a DuckDB file
// and its WAL), its schemas and tables, and its ledger rows.
type Trace struct {
	Exists     bool
	Files      []string
	Schemas    []string
	Tables     []string
	LedgerRows int
}

// Trace reads what exists in the target without creating or changing
// anything (it opens the target read-only).
func (e *Env) Trace() Trace {
	e.t.Helper()
	var tr Trace
	if name, path, err := job.SplitURL(e.URL); err == nil && name == "duckdb" {
		for _, f := range []string{path, path + ".wal"} {
			if _, err := os.Stat(f); err == nil {
				tr.Files = append(tr.Files, f)
			}
		}
	}
	ctx := context.Background()
	db, err := idem.OpenReadOnly(ctx, e.URL, e.Dir, time.Minute)
	if errors.Is(err, fs.ErrNotExist) {
		return tr
	}
	require.NoError(e.t, err)
	defer db.Close()
	tr.Exists = true
	sp := e.h.spell()
	tr.Schemas = queryStrings(e.t, ctx, db.Conn(), sp.TraceSchemas)
	tr.Tables = queryStrings(e.t, ctx, db.Conn(), sp.TraceTables)
	d, ledger := db.SQL(), db.Names().Ledger
	for _, tbl := range tr.Tables {
		if strings.HasSuffix(tbl, "."+ledger.Name) && (ledger.Schema == "" || tbl == ledger.Schema+"."+ledger.Name) {
			require.NoError(e.t, db.Conn().QueryRowContext(ctx, "SELECT count(*) FROM "+d.Table(ledger)).Scan(&tr.LedgerRows))
		}
	}
	return tr
}

// RequireUntouched runs fn, which must be refused, and asserts the target
// is as it was.
func (e *Env) RequireUntouched(fn func()) {
	e.t.Helper()
	before := e.Trace()
	fn()
	require.Equal(e.t, before, e.Trace(), "a refused job touches nothing")
}

// binaryRun runs the idem binary and returns its exit code and output.
func runIdem(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	code, stdout, stderr := RunBinary(t, env, args...)
	return code, stdout + stderr
}

const freshQueryJob = `job: fresh_query
source:
  query: SELECT 1 AS order_id, 'placed' AS status, CAST({{ start }} AS TIMESTAMP_TYPE) AS created_at
strategy: partition
partition:
  column: no_such_col
`

// A fresh target: every way a job is refused (exit 2) leaves no database
// file, no schema, no table and no ledger.
func testRefusedFresh(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	before := e.Trace()
	require.Empty(t, before.Files, "the harness gives a fresh target")
	require.Empty(t, before.Tables)

	missing := e.Job(strings.Replace(filesJob, "  column: created_at", "  column: no_such_col", 1))
	notTime := e.Job(strings.Replace(filesJob, "  column: created_at", "  column: status", 1))
	hourOnDate := e.Job(`job: hour_on_date
source:
  query: SELECT 1 AS order_id, CAST({{ start }} AS DATE) AS created_at
strategy: partition
partition:
  column: created_at
  grain: hour
`)
	query := e.Job(strings.Replace(freshQueryJob, "TIMESTAMP_TYPE", h.spell().Timestamp, 1))
	for _, tc := range []struct {
		name string
		j    *job.Job
		date string
		want string
	}{
		{"files, partition.column missing", missing, "2026-11-28", `partition.column: column "no_such_col" is not in the source`},
		{"files, partition.column not a time", notTime, "2026-11-28", `partition.column: column "status" is`},
		{"query, hour grain on a DATE", hourOnDate, "2026-11-28T10", "partition.grain: hour partitions need a timestamp column"},
		{"query, partition.column missing", query, "2026-11-28", `partition.column: column "no_such_col" is not in the source`},
		{"bad --date", missing, "yesterday", `--date "yesterday"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.RequireUntouched(func() {
				_, err := e.Run(tc.j, tc.date)
				var je *job.Error
				require.ErrorAs(t, err, &je)
				require.Contains(t, err.Error(), tc.want)
			})
			e.RequireUntouched(func() {
				code, out := runIdem(t, nil, "run", tc.j.Path, "--date", tc.date, "--as-of", "2026-12-01T00:00:00Z")
				require.Equal(t, 2, code, out)
				require.Contains(t, out, tc.want)
			})
		})
	}
	require.Equal(t, before, e.Trace())
}

// A target with data and a ledger: a refused job changes no row, table or
// ledger row.
func testRefusedLoaded(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	e.MustRun(e.Job(filesJob), "2026-11-27")
	require.Equal(t, 1, e.Trace().LedgerRows)
	sum := e.Checksum("", "_loaded_at")

	notTime := e.Job(strings.Replace(filesJob, "  column: created_at", "  column: status", 1))
	badKey := e.Job(strings.Replace(filesJob, "key: [order_id]", "key: [order_idd]", 1))
	// Refused after the new schema and table were created in the run's
	// transaction: they go with it.
	path := e.Write("new_schema.yaml", fmt.Sprintf("idem: 1\ntarget:\n  url: %s\n  table: %s.orders\n%s", e.URL, e.Fresh,
		strings.Replace(filesJob, "  column: created_at", "  column: status", 1)))
	newSchema, err := job.Load(path)
	require.NoError(t, err)
	for _, j := range []*job.Job{notTime, badKey, newSchema} {
		e.RequireUntouched(func() {
			_, err := e.Run(j, "2026-11-28", Force)
			var je *job.Error
			require.ErrorAs(t, err, &je)
		})
		e.RequireUntouched(func() {
			code, out := runIdem(t, nil, "run", j.Path, "--date", "2026-11-28", "--force", "--json")
			require.Equal(t, 2, code, out)
		})
	}
	require.Equal(t, sum, e.Checksum("", "_loaded_at"))
}

// A run that fails on bad input (exit 1: the target is unchanged) does not
// leave a new, empty target behind either; nor does a partition that is
// not closed yet (exit 75).
func testFailedFresh(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders+",16,2026-11-28 16:00:00,placed,3.00,2026-11-28 16:00:00\n")
	j := e.Job(filesJob)
	e.RequireUntouched(func() {
		_, err := e.Run(j, "2026-11-28")
		var ie *runner.InputError
		require.ErrorAs(t, err, &ie)
	})
	e.RequireUntouched(func() {
		code, out := runIdem(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
		require.Equal(t, 1, code, out)
	})
	e.RequireUntouched(func() {
		code, out := runIdem(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-11-28T12:00:00Z")
		require.Equal(t, 75, code, out)
	})
	require.Empty(t, e.Trace().Files)
}

// A job error found in a lookback partition after an earlier partition
// committed is not exit 2: something was changed.
func testRefusedAfterLookback(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	header := "order_id,customer_id,created_at,status,amount,updated_at\n"
	e.Write("in/2026-11-27.csv", header+"1,10,2026-11-27 09:00:00,completed,10.00,2026-11-27 10:00:00\n")
	e.Write("in/2026-11-28.csv", "customer_id,created_at,status,amount,updated_at\n11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00\n")
	j := e.Job(`job: lookback_refused
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: created_at
  lookback: 1
key: [order_id]
`)
	code, out := runIdem(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z", "--json")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, `"partition":"2026-11-27","run_id"`)
	require.Contains(t, out, `"partition":"2026-11-28"`)
	require.Contains(t, out, `"action":"failed"`)
	require.Equal(t, 1, e.LedgerRows(j.Name, "2026-11-27", ""))
}

// A ledger written by an older idem lacks columns this one writes. A run
// that commits brings it up to date, in its transaction; a refused run
// leaves it as it was, old columns and all.
func testOldLedger(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	e.MustRun(j, "2026-11-27")
	e.Exec(`ALTER TABLE idem_runs DROP COLUMN target_table`)
	e.Exec(`ALTER TABLE idem_runs DROP COLUMN job_seq`)
	// idem status reads it as it is, the columns it lacks as zero.
	e.DB(func(ctx context.Context, db engine.DB) {
		last, err := ledger.LastRuns(ctx, db.Conn(), db, j.Name)
		require.NoError(t, err)
		require.Len(t, last, 1)
		require.Equal(t, int64(0), last["2026-11-27"].JobSeq)
		require.Equal(t, "", last["2026-11-27"].TargetTable)
		hist, err := ledger.History(ctx, db.Conn(), db, j.Name)
		require.NoError(t, err)
		require.Len(t, hist, 1)
	})
	hasColumn := func() []string {
		n := 0
		e.DB(func(ctx context.Context, db engine.DB) {
			l := db.Names().Ledger
			if l.Schema == "" {
				l.Schema = db.Names().DefaultSchema
			}
			q, args := db.SQL().Records.ColumnNames(l)
			for _, c := range queryStrings(t, ctx, db.Conn(), q, args...) {
				if c == "target_table" {
					n++
				}
			}
		})
		return []string{fmt.Sprint(n)}
	}
	require.Equal(t, []string{"0"}, hasColumn())

	bad := e.Job(strings.Replace(filesJob, "key: [order_id]", "key: [order_idd]", 1))
	e.RequireUntouched(func() {
		_, err := e.Run(bad, "2026-11-28")
		var je *job.Error
		require.ErrorAs(t, err, &je)
	})
	require.Equal(t, []string{"0"}, hasColumn(), "a refused run does not migrate the ledger")

	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, r.Action)
	require.Equal(t, []string{"1"}, hasColumn())
	require.Equal(t, 2, e.Trace().LedgerRows)
	require.Equal(t, runner.ActionSkipped, e.MustRun(j, "2026-11-27").Action, "the old rows still count")
}
