//go:build cgo && unix

package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// stepCrashEnv, in a child process of TestCrashAtEachStep, names the
// case, the folder and the step after which the child kills itself.
const stepCrashEnv = "IDEM_TEST_STEP_CRASH"

// A kill -9 after each step of a run (not only at the crash points the
// binary offers), on each protocol with transactions, for both strategies,
// on a first load and on a rerun with changed input: the target and the
// ledger hold what they held before the run, or (the swap protocol's
// cleanup, after its commit) what the run loaded; the next run ends where
// a run without the crash ends, every table a crashed run built gone.
func TestCrashAtEachStep(t *testing.T) {
	if os.Getenv(stepCrashEnv) != "" {
		t.Skip("in a child")
	}
	for _, c := range stepCases() {
		if testing.Short() && c.stage == "first" {
			continue // -short: the rerun only (TestFailureAtEachStep has both)
		}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			start, before, want, names := crashReference(t, c)
			for _, name := range names {
				t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
					dir, j := c.copyOf(t, start)
					crashChild(t, c, dir, name)

					db := c.openAt(t, dir)
					defer db.Close()
					landed := c.protocol == "swap" && name == "drop staging" // after the commit and the swap
					got, wantNow := snapshot(t, db), before
					if landed {
						wantNow = want
					} else {
						got = withoutNewLedger(c, before, got)
					}
					// A crashed run may leave the tables it built: the next
					// run drops them.
					require.Equal(t, pick(wantNow, "main.orders", "main.idem_runs"), pick(got, "main.orders", "main.idem_runs"))
					res, err := Run(t.Context(), db, j, stepOpts())
					require.NoError(t, err)
					require.Contains(t, []string{ActionLoaded, ActionSkipped}, res[len(res)-1].Action)
					require.Equal(t, want, snapshot(t, db), "the next run ends as a run without the crash, nothing left behind")
				})
			}
		})
	}
}

// TestStepCrashChild is TestCrashAtEachStep's child: it runs the case
// and kills itself after the named step.
func TestStepCrashChild(t *testing.T) {
	spec := os.Getenv(stepCrashEnv)
	if spec == "" {
		t.Skip("run by TestCrashAtEachStep")
	}
	parts := strings.SplitN(spec, "|", 3)
	for _, c := range append(stepCases(), exchangeCases()...) {
		if c.String() != parts[0] {
			continue
		}
		db, err := c.open(t.Context(), filepath.Join(parts[1], "target.db"))
		require.NoError(t, err)
		j, err := job.Parse([]byte(c.body), parts[1], func(string) (string, bool) { return "", false })
		require.NoError(t, err)
		opts := stepOpts()
		opts.afterStep = func(step string) error {
			if step == parts[2] {
				killSelf()
				select {}
			}
			return nil
		}
		_, err = Run(t.Context(), db, j, opts)
		t.Fatalf("the run ended without reaching step %q: %v", parts[2], err)
	}
	t.Fatalf("no case %q", parts[0])
}

// A kill -9 after each step on the exchange protocol (embedded ClickHouse):
// no cleanup runs, so a crashed run may leave its built or exchange table;
// the target and ledger hold what they held before, or (a crash after the
// partition's exchange) the new partition without its ledger row, or
// (after the ledger row) the run done. The next run ends with the target a
// run without the crash leaves, and nothing idem built beside it. chDB
// has one session per process: the cases run one after another.
func TestCrashAtEachStepExchange(t *testing.T) {
	if os.Getenv(stepCrashEnv) != "" {
		t.Skip("in a child")
	}
	needChDB(t)
	for _, c := range exchangeCases() {
		if testing.Short() && (c.strategy != "partition" || c.stage != "rerun") {
			continue
		}
		t.Run(c.String(), func(t *testing.T) {
			start, before, want, names := crashReference(t, c)
			target, ledger := "default.orders", "default.idem_runs"
			for _, name := range names {
				t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
					dir, j := c.copyOf(t, start)
					crashChild(t, c, dir, name)
					db := c.openAt(t, dir)
					defer db.Close()
					got := withoutNewLedger(c, before, snapshot(t, db))
					recorded := name == "write ledger" || name == "drop staging"
					landed := recorded || slices.Contains(exchangeLanded(c), name)
					switch {
					case recorded:
						require.Equal(t, pick(want, target, ledger), pick(got, target, ledger), "swapped in and recorded before the crash")
					case landed:
						require.Equal(t, want[target], got[target], "swapped in before the crash")
						require.Equal(t, before[ledger], got[ledger], "the ledger records no crashed run")
					default:
						require.Equal(t, pick(before, target, ledger), pick(got, target, ledger), "a run killed before its swap changes nothing")
					}
					_, err := Run(t.Context(), db, j, stepOpts())
					require.NoError(t, err)
					got = snapshot(t, db)
					require.Equal(t, want[target], got[target], "the next run ends where a run without the crash does")
					if !landed || recorded {
						require.Equal(t, want[ledger], got[ledger])
					} else {
						require.Len(t, got[ledger], len(want[ledger]))
					}
					for tb := range got {
						require.False(t, engine.HoldsIdemInfix(tb), "%s left behind after the next run", tb)
					}
				})
			}
		})
	}
}

// crashReference prepares case c's starting state in start, and runs it
// once in a copy: the state before and after a run that does not crash,
// and the steps it went through.
func crashReference(t *testing.T, c stepCase) (start string, before, want map[string][]string, names []string) {
	t.Helper()
	start = t.TempDir()
	c.prepare(t, start)
	ref, j := c.copyOf(t, start)
	db := c.openAt(t, ref)
	before = snapshot(t, db)
	_, err := Run(t.Context(), db, j, stepOpts())
	require.NoError(t, err)
	want = snapshot(t, db)
	names = stepNames(db, j)
	require.NoError(t, db.Close())
	return start, before, want, names
}

// crashChild runs case c in dir in a child process that kills itself
// (SIGKILL) after step name.
func crashChild(t *testing.T, c stepCase, dir, name string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestStepCrashChild$")
	cmd.Env = append(os.Environ(), stepCrashEnv+"="+strings.Join([]string{c.String(), dir, name}, "|"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee) && ee.ExitCode() == -1, "killed by a signal: %v\n%s", err, out)
}

// pick is the tables of m named, those it has.
func pick(m map[string][]string, tables ...string) map[string][]string {
	out := map[string][]string{}
	for _, t := range tables {
		if rows, ok := m[t]; ok {
			out[t] = rows
		}
	}
	return out
}
