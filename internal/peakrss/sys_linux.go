package peakrss

import (
	"os"
	"syscall"
)

// childAttr kills the measured command when the copy measuring it dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// peakKiB is an exited process's peak resident memory.
func peakKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss // KiB on Linux
	}
	return 0
}
