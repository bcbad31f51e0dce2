package enginetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// A first load that starts while another partition's first load is
// creating the target (not yet committed) waits for it, then writes beside
// its rows: it never takes that run's table for the one it creates (with
// repeated keys it would drop it; without, delete its partition).
func testFirstLoadWhileAnotherCreates(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	if u, err := job.ParseTargetURL(e.URL); err != nil || !u.Driver.ConcurrentWriters {
		t.Skip("one process holds this engine's target at a time: a second run waits at open, so no two first loads interleave")
	}
	withKey := strings.Replace(filesJob, "loaded_at: _loaded_at\n", "", 1) // loaded_at takes no direct first load
	noKey := strings.Replace(strings.Replace(withKey, "key: [order_id]\n", "", 1), "latest_by: updated_at\n", "", 1)
	for _, body := range []struct{ name, text string }{{"key", withKey}, {"no key", noKey}} {
		t.Run(body.name, func(t *testing.T) {
			t.Parallel()
			var wantRows []string
			t.Run("one after the other", func(t *testing.T) {
				ref := NewEnv(t, h)
				ref.Write("in/orders.csv", orders)
				rj := ref.Job(body.text)
				ref.MustRun(rj, "2026-11-28")
				ref.MustRun(rj, "2026-11-27")
				wantRows = ref.Rows("", allCols...)
			})
			e := NewEnv(t, h)
			e.Write("in/orders.csv", orders)
			j := e.Job(body.text)
			goOn := filepath.Join(e.Dir, "go-on")
			first := startWaiting(t, []string{"IDEM_WAIT_AT=" + runner.CrashBeforeCommit, "IDEM_WAIT_FOR=" + goOn},
				"run", j.Path, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
			second := exec.Command(Binary(t), "run", j.Path, "--date", "2026-11-27", "--as-of", "2026-12-01T00:00:00Z")
			var out strings.Builder
			second.Stdout, second.Stderr = &out, &out
			require.NoError(t, second.Start())
			// Time for the second run to find no target and wait for the
			// first's lock; had it not got there, it would find the table
			// committed, and the case would pass without showing anything.
			time.Sleep(time.Second)
			require.NoError(t, os.WriteFile(goOn, nil, 0o644))
			code, _, stderr := first.wait()
			require.Equal(t, 0, code, stderr)
			require.NoError(t, second.Wait(), out.String())
			require.Equal(t, wantRows, e.Rows("", allCols...), "both partitions, as two runs one after the other write them")
		})
	}
}
