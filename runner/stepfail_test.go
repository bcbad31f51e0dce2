//go:build cgo

// These tests open DuckDB (cgo): the rest of the package's tests stay
// cgo-free, so that runner cross-builds (.ci/run).

package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/engine/duckdb/swapfake"
	"github.com/idemdata/idem/job"
)

// stepMergeDirectJob's first load goes straight into the new table (no
// loaded_at to add: runner/direct.go).
var stepMergeDirectJob = strings.Replace(stepMergeJob, "loaded_at: _loaded_at\n", "", 1)

// The jobs of the per-step tests: one of each strategy, the first input,
// and the changed one a rerun loads (order 6 is newer, order 7 is new).
const (
	stepPartitionJob = `idem: 1
job: orders_daily
source:
  files: in/*.csv
target:
  table: orders
strategy: partition
partition:
  column: created_at
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
  created_at: TIMESTAMP
  updated_at: TIMESTAMP
loaded_at: _loaded_at
`
	stepMergeJob = `idem: 1
job: orders_merge
source:
  files: in/*.csv
target:
  table: orders
strategy: merge
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
  created_at: TIMESTAMP
  updated_at: TIMESTAMP
loaded_at: _loaded_at
`
	stepInput = `order_id,customer_id,created_at,status,amount,updated_at
2,11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00
3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00
3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00
6,15,2026-11-28 15:00:00,completed,1.00,2026-11-28 15:00:00
`
	stepChanged = `order_id,customer_id,created_at,status,amount,updated_at
2,11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00
3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00
6,15,2026-11-28 15:00:00,returned,1.00,2026-11-28 18:00:00
7,16,2026-11-28 19:00:00,placed,3.00,2026-11-28 19:00:00
`
)

// stepEngines open DuckDB as each protocol with transactions sees it:
// itself (transaction) and swapfake (swap, as MariaDB).
var stepEngines = []struct {
	protocol string
	open     func(ctx context.Context, path string) (engine.DB, error)
}{
	{"transaction", func(ctx context.Context, path string) (engine.DB, error) { return duckdb.Open(ctx, path, time.Second) }},
	{"swap", func(ctx context.Context, path string) (engine.DB, error) {
		db, err := duckdb.Open(ctx, path, time.Second)
		return swapfake.DB{DB: db}, err
	}},
}

// stepCase is one engine, job and starting state: a first load (nothing
// there) or a rerun with changed input (the first input loaded).
type stepCase struct {
	protocol, strategy, stage string
	open                      func(ctx context.Context, path string) (engine.DB, error)
	body                      string
}

func stepCases() []stepCase {
	var out []stepCase
	for _, e := range stepEngines {
		for strategy, body := range map[string]string{"partition": stepPartitionJob, "merge": stepMergeJob} {
			for _, stage := range []string{"first", "rerun"} {
				out = append(out, stepCase{e.protocol, strategy, stage, e.open, body})
			}
		}
		out = append(out, stepCase{e.protocol, "merge-direct", "first", e.open, stepMergeDirectJob})
	}
	return out
}

func (c stepCase) String() string { return c.protocol + "/" + c.strategy + "/" + c.stage }

// stepOpts are a run's options, with a clock that does not move, so that
// two runs of one input write the same ledger rows.
func stepOpts() Options {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	return Options{Date: "2026-11-28", AsOf: at, Now: func() time.Time { return at }, LockTimeout: time.Second}
}

// prepare makes dir hold the case's starting state and the input the run
// under test reads, and returns the job.
func (c stepCase) prepare(t *testing.T, dir string) *job.Job {
	t.Helper()
	j, err := job.Parse([]byte(c.body), dir, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	input := filepath.Join(dir, "in", "orders.csv")
	require.NoError(t, os.MkdirAll(filepath.Dir(input), 0o755))
	if c.stage == "rerun" {
		require.NoError(t, os.WriteFile(input, []byte(stepInput), 0o644))
		db := c.openAt(t, dir)
		_, err := Run(t.Context(), db, j, stepOpts())
		require.NoError(t, err)
		require.NoError(t, db.Close())
	}
	require.NoError(t, os.WriteFile(input, []byte(stepChanged), 0o644))
	return j
}

// copyOf is a copy of the folder prepare made (its database closed), and
// the job there.
func (c stepCase) copyOf(t *testing.T, from string) (string, *job.Job) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(from)))
	j, err := job.Parse([]byte(c.body), dir, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	return dir, j
}

func (c stepCase) openAt(t *testing.T, dir string) engine.DB {
	t.Helper()
	db, err := c.open(t.Context(), filepath.Join(dir, "target.db"))
	require.NoError(t, err)
	return db
}

// stepNames lists the steps a run of j on db goes through, in order.
func stepNames(db engine.DB, j *job.Job) []string {
	r := &run{proto: newProtocol(db.Capabilities()), job: j}
	var out []string
	for _, st := range r.steps() {
		out = append(out, st.name)
	}
	return out
}

// snapshot is every table of db but idem_failures (which a failure may
// write: that is its purpose) with its rows, sorted: what a run that
// committed nothing leaves as it found it, temporary tables included.
func snapshot(t *testing.T, db engine.DB) map[string][]string {
	t.Helper()
	// DuckDB's catalog, or (exchange) ClickHouse's, whose session tables
	// are no part of the target.
	tables, row := `SELECT table_schema, table_name FROM information_schema.tables
WHERE table_catalog = current_database() AND table_name <> 'idem_failures' ORDER BY 1, 2`, "CAST(x AS VARCHAR)"
	if db.Capabilities().Commit == engine.CommitExchange {
		tables, row = `SELECT database, name FROM system.tables WHERE NOT is_temporary AND name <> 'idem_failures'
AND database NOT IN ('system', 'information_schema', 'INFORMATION_SCHEMA') ORDER BY 1, 2`, "formatRow('TSV', *)"
	}
	out := map[string][]string{}
	d := db.SQL()
	for _, tb := range queryStrings(t, db, tables, 2) {
		q := fmt.Sprintf("SELECT %s FROM %s AS x ORDER BY 1", row, d.Table(engine.Table{Schema: tb[0], Name: tb[1]}))
		list := []string{}
		for _, r := range queryStrings(t, db, q, 1) {
			list = append(list, r[0])
		}
		out[tb[0]+"."+tb[1]] = list
	}
	return out
}

// queryStrings is q's rows, n strings each.
func queryStrings(t *testing.T, db engine.DB, q string, n int) [][]string {
	t.Helper()
	rows, err := db.Conn().QueryContext(t.Context(), q)
	require.NoError(t, err)
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		r := make([]string, n)
		ptrs := make([]any, n)
		for i := range r {
			ptrs[i] = &r[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// withoutNewLedger is after without an empty ledger that was not in
// before, on the protocols without one transaction: there the ledger is
// created by DDL, which commits (swap) or is alone (exchange), ahead of
// the data ("ensure ledger" is a prepare step); a failed first load leaves
// it, empty, as a later run would create it. Every other table is as it
// was.
func withoutNewLedger(c stepCase, before, after map[string][]string) map[string][]string {
	if c.protocol == "transaction" {
		return after
	}
	out := map[string][]string{}
	for k, v := range after {
		if _, had := before[k]; had || !strings.HasSuffix(k, ".idem_runs") || len(v) > 0 {
			out[k] = v
		}
	}
	return out
}

// Injected failures, and the exit code each means (ExitCode, which the
// CLI exits with, reads these sentinels with errors.Is, so a run that
// keeps them in its error's chain exits as they say).
var injected = []struct {
	err  error
	exit int
}{
	{errors.New("injected failure"), 1},                      // ExitFailed
	{fmt.Errorf("injected: %w", engine.ErrLocked), 75},       // ExitTempFail
	{fmt.Errorf("injected: %w", engine.ErrInterrupted), 130}, // ExitInterrupted
}

// A failure after each step of a run, on each protocol with transactions,
// for both strategies, on a first load and on a rerun with changed input:
// the run fails with the failure's exit code and commits nothing (every
// table as it was, the ledger included), and the next run loads what a
// run without the failure loads. On the swap protocol the cleanup step
// runs after the commit: a failure there is logged, and the run stands.
func TestFailureAtEachStep(t *testing.T) {
	for _, c := range stepCases() {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			start := t.TempDir()
			c.prepare(t, start)
			ref, j := c.copyOf(t, start)
			db := c.openAt(t, ref)
			defer db.Close()
			_, err := Run(t.Context(), db, j, stepOpts())
			require.NoError(t, err)
			want := snapshot(t, db)
			for i, name := range stepNames(db, j) {
				inj := injected[i%len(injected)]
				t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
					dir, j := c.copyOf(t, start)
					db := c.openAt(t, dir)
					defer db.Close()
					before := snapshot(t, db)
					opts := stepOpts()
					opts.afterStep = func(step string) error {
						if step == name {
							return inj.err
						}
						return nil
					}
					res, err := Run(t.Context(), db, j, opts)
					if c.protocol == "swap" && name == "drop staging" {
						require.NoError(t, err, "a cleanup after the commit does not fail the run")
						require.Equal(t, want, snapshot(t, db))
						return
					}
					require.ErrorIs(t, err, inj.err)
					require.Equal(t, inj.exit, ExitCode(err), "exit code of %v", err)
					require.Equal(t, ActionFailed, res[len(res)-1].Action)
					require.Equal(t, before, withoutNewLedger(c, before, snapshot(t, db)), "a failed run commits nothing")

					res, err = Run(t.Context(), db, j, stepOpts())
					require.NoError(t, err)
					require.Equal(t, ActionLoaded, res[len(res)-1].Action)
					require.Equal(t, want, snapshot(t, db), "the next run loads what a run without the failure does")
				})
			}
		})
	}
}
