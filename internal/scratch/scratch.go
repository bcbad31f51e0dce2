// Package scratch makes the temporary folders a run needs (ClickHouse's
// spool files of rows, the copy of the input `idem verify` changes). A run killed with -9 cannot remove its own, so
// each folder names its process, and each new one first removes those of
// its kind whose process is gone.
package scratch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// pidFile names the process that owns a scratch folder.
const pidFile = "pid"

// New makes a scratch folder in the temporary folder, named prefix and a
// random suffix (prefix starts with "idem-"), after removing stale ones of
// the same prefix. The caller removes it when done.
func New(prefix string) (string, error) {
	removeStale(os.TempDir(), prefix, time.Now())
	dir, err := os.MkdirTemp("", prefix)
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

// removeStale removes scratch folders named prefix* under tmp whose
// process no longer runs. Best effort: a folder it cannot judge or remove
// is left.
func removeStale(tmp, prefix string, now time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, prefix+"*"))
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
