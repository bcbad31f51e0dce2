package peakrss

import "syscall"

// childAttr kills the measured command when the copy measuring it dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
