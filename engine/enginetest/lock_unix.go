//go:build unix

package enginetest

import (
	"os"
	"syscall"
)

// lockFile waits for an exclusive lock on path, held until unlock is
// called or the process ends (a killed test process frees it).
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
