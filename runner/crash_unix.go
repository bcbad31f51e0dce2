//go:build unix

package runner

import (
	"os"
	"syscall"
)

// killSelf dies as kill -9 would.
func killSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
