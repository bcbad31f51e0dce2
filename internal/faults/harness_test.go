package faults_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/runner"
)

// The checks the fault tests rely on can fail: a table with a row missing,
// or a ledger whose checksum disagrees with its table, is a violation. On
// every engine, since each spells the damage its own way.
func TestHarnessDetectsDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; not with -short")
	}
	type damage struct{ name, query string }
	standard := func(table string) []damage {
		return []damage{
			{"a row missing", `DELETE FROM ` + table + ` WHERE order_id = 7`},
			{"a row changed", `UPDATE ` + table + ` SET status = 'lost' WHERE order_id = 7`},
			{"the ledger disagreeing", `UPDATE idem_runs SET checksum = '0000000000000000'`},
		}
	}
	engines := []struct {
		name    string
		tgt     func(t *testing.T) target
		damages []damage
	}{
		{"duckdb", func(t *testing.T) target { return duckTarget{dir: t.TempDir()} }, standard("sales.orders")},
		{"postgres", func(t *testing.T) target { return newPGTarget(t) }, standard("sales.orders")},
		{"mysql", func(t *testing.T) target { return newMySQLTarget(t) }, standard("orders")},
		{"clickhouse", func(t *testing.T) target { return newCHDBTarget(t) }, []damage{
			{"a row missing", `DELETE FROM sales.orders WHERE order_id = 7`},
			{"a row changed", `ALTER TABLE sales.orders UPDATE status = 'lost' WHERE order_id = 7`},
			{"the ledger disagreeing", `ALTER TABLE idem_runs UPDATE checksum = '0000000000000000' WHERE 1`},
		}},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			tgt := e.tgt(t)
			f := newFixture(t, tgt, "partition", 2000)
			state, err := f.which(t, f.base)
			require.NoError(t, err)
			require.Equal(t, "old", state)
			for _, d := range e.damages {
				t.Run(d.name, func(t *testing.T) {
					u, drop := tgt.copyOf(t, f.base, "damaged")
					defer drop()
					execSQL(t, u, d.query)
					_, err := f.which(t, u)
					require.Error(t, err)
				})
			}
		})
	}
}

func execSQL(t *testing.T, u, q string) {
	t.Helper()
	ctx := context.Background()
	db, err := idem.Open(ctx, u, t.TempDir(), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Conn().ExecContext(ctx, q)
	require.NoError(t, err)
}

// On an engine that swaps (ClickHouse), a run stopped between its swap and
// its ledger row leaves the new contents unrecorded; which says so, and
// the rerun converges: a partition run loads again and records it, a merge
// re-applies nothing and records that. The random kills meet this state
// only now and then; a crash point meets it every time.
func TestUnrecordedConverges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; not with -short")
	}
	tgt := newCHDBTarget(t)
	for _, strategy := range []string{"partition", "merge"} {
		t.Run(strategy, func(t *testing.T) {
			f := newFixture(t, tgt, strategy, 2000)
			u, drop := tgt.copyOf(t, f.base, strategy+"_crash")
			defer drop()
			cmd := idemCmd(t, u, "run", f.jobPath, "--date", f.date, "--as-of", asOf, "--json")
			cmd.Env = append(cmd.Env, "IDEM_CRASH_AT="+runner.CrashAfterWrite)
			p := finish(cmd)
			require.NotEqual(t, 0, p.code, "the crash point ends the run: %s", p.stderr)
			was, err := f.which(t, u)
			require.NoError(t, err)
			require.Equal(t, unrecorded, was)
			require.NoError(t, f.converge(t, u, was))
		})
	}
}

// The leftover check can fail: a folder no run removes is reported after a
// rerun, and a killed run's scratch folder (its process gone) is not, since
// the rerun removes it. ClickHouse, since its loads spool to a scratch folder.
func TestHarnessDetectsLeftovers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; not with -short")
	}
	tgt := newCHDBTarget(t)
	f := newFixture(t, tgt, "partition", 2000)
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	killed := filepath.Join(f.tmp, "idem-chload-1")
	require.NoError(t, os.Mkdir(killed, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(killed, "pid"), []byte(strconv.Itoa(dead.Process.Pid)), 0o644))
	u, drop := tgt.copyOf(t, f.base, "leftover")
	defer drop()
	require.NoError(t, f.converge(t, u, "old"))
	require.NoDirExists(t, killed)

	stray := filepath.Join(f.tmp, "idem-chdb-1")
	require.NoError(t, os.Mkdir(stray, 0o755))
	u2, drop2 := tgt.copyOf(t, f.base, "leftover2")
	defer drop2()
	err := f.converge(t, u2, "old")
	require.ErrorContains(t, err, "idem-chdb-1")
}

// A DuckDB run that wrote a row group or more commits as a checkpoint: a
// run killed just after its COMMIT leaves no write-ahead log behind (the
// runner told the engine the commit's size), where a small run's commit
// is in the log (engine/duckdb's SizeCommit says why).
func TestDuckDBLargeCommitIsACheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; not with -short")
	}
	tgt := duckTarget{dir: t.TempDir()}
	for _, c := range []struct {
		rows   int
		logged bool
	}{{200_000, false}, {2_000, true}} {
		for _, strategy := range []string{"partition", "merge"} {
			t.Run(fmt.Sprintf("%s/%d", strategy, c.rows), func(t *testing.T) {
				f := newFixture(t, tgt, strategy, c.rows)
				u, drop := tgt.copyOf(t, f.base, fmt.Sprintf("%s_%d_commit", strategy, c.rows))
				defer drop()
				cmd := idemCmd(t, u, "run", f.jobPath, "--date", f.date, "--as-of", asOf, "--json")
				cmd.Env = append(cmd.Env, "IDEM_CRASH_AT="+runner.CrashAfterCommit)
				p := finish(cmd)
				require.NotEqual(t, 0, p.code, "the crash point ends the run: %s", p.stderr)
				fi, err := os.Stat(strings.TrimPrefix(u, "duckdb:") + ".wal")
				logged := err == nil && fi.Size() > 0
				require.Equal(t, c.logged, logged, "a write-ahead log after the commit")
				was, err := f.which(t, u)
				require.NoError(t, err)
				require.Equal(t, "new", was)
			})
		}
	}
}
