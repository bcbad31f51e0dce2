package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A scratch folder whose process is gone (a run killed with -9) is removed
// by the next run; one whose process runs, or too young to judge, is kept.
func TestRemoveStale(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	mk := func(name, pid string) string {
		d := filepath.Join(tmp, "idem-load-"+name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		if pid != "" {
			require.NoError(t, os.WriteFile(filepath.Join(d, pidFile), []byte(pid), 0o644))
		}
		return d
	}
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	gone := mk("gone", strconv.Itoa(dead.Process.Pid))
	alive := mk("alive", strconv.Itoa(os.Getppid()))
	young := mk("young", "")
	old := mk("old", "")
	past := time.Now().Add(-2 * staleAfter)
	require.NoError(t, os.Chtimes(old, past, past))

	other := filepath.Join(tmp, "idem-verify-gone")
	require.NoError(t, os.MkdirAll(other, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, pidFile), []byte(strconv.Itoa(dead.Process.Pid)), 0o644))

	removeStale(tmp, "idem-load-", time.Now())
	require.NoDirExists(t, gone)
	require.NoDirExists(t, old)
	require.DirExists(t, alive)
	require.DirExists(t, young)
	require.DirExists(t, other, "another kind is left to its own runs")
}
