//go:build unix

package clickhouse

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// heldElsewhere reports whether a ClickHouse process holds the folder: it
// holds an exclusive flock on its status file while it runs. The probe
// takes and drops that lock; chDB's own open then decides.
func heldElsewhere(path string) (bool, error) {
	f, err := os.OpenFile(filepath.Join(path, "status"), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("chdb %s: %w", path, err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return true, nil
		}
		return false, fmt.Errorf("chdb %s: %w", path, err)
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false, nil
}
