//go:build unix

package scratch

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid names a running process (signal 0
// checks without sending anything; EPERM means it runs as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
