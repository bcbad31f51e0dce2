package filereader

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Scratch folders (idem-load-*) hold the embedded reader's database while
// a load runs. A run killed with -9 cannot remove its own, so each run
// removes those whose process is gone before making its own.
const scratchPrefix = "idem-load-"

// pidFile names the process that owns a scratch folder.
const pidFile = "pid"

// newScratchDir makes this run's scratch folder, after removing stale ones.
func newScratchDir() (string, error) {
	removeStaleScratch(os.TempDir(), time.Now())
	dir, err := os.MkdirTemp("", scratchPrefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// staleAfter is how old a scratch folder without a pid file must be to be
// taken for a leftover (one being created this instant has none yet).
const staleAfter = time.Hour

// removeStaleScratch removes scratch folders under tmp whose process no
// longer runs. Best effort: a folder it cannot judge or remove is left.
func removeStaleScratch(tmp string, now time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, scratchPrefix+"*"))
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, pidFile))
		if err != nil {
			if now.Sub(st.ModTime()) > staleAfter {
				os.RemoveAll(d)
			}
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(d)
	}
}
