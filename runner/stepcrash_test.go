//go:build cgo && unix

package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
			start := t.TempDir()
			c.prepare(t, start)
			ref, j := c.copyOf(t, start)
			db := c.openAt(t, ref)
			before := snapshot(t, db)
			_, err := Run(t.Context(), db, j, stepOpts())
			require.NoError(t, err)
			want := snapshot(t, db)
			names := stepNames(db, j)
			require.NoError(t, db.Close())
			for _, name := range names {
				t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
					dir, j := c.copyOf(t, start)
					cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestStepCrashChild$")
					cmd.Env = append(os.Environ(), stepCrashEnv+"="+strings.Join([]string{c.String(), dir, name}, "|"))
					out, err := cmd.CombinedOutput()
					var ee *exec.ExitError
					require.True(t, errors.As(err, &ee) && ee.ExitCode() == -1, "killed by a signal: %v\n%s", err, out)

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
	for _, c := range stepCases() {
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
