package chdb

import (
	"syscall"
	"unsafe"
)

// ClickHouse installs its own signal handlers when the library loads and
// when a session starts; over Go's they would keep SIGINT and SIGTERM from
// reaching the program (idem would not stop on Ctrl-C), and turn a Go
// nil dereference or a goroutine preemption signal into ClickHouse's crash
// handler. The handlers Go relies on are put back after each; ClickHouse
// keeps the ones only it uses (SIGUSR1, SIGUSR2, SIGPROF: its profilers,
// which sessions turn off anyway).
var goSignals = []syscall.Signal{
	syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGSEGV, syscall.SIGBUS,
	syscall.SIGFPE, syscall.SIGURG, syscall.SIGPIPE, syscall.SIGCHLD,
}

// sigaction is the kernel's struct sigaction on linux/amd64.
type sigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// keepGoSignals runs fn and then restores the handlers of goSignals as
// they were before it.
func keepGoSignals(fn func()) {
	saved := make([]sigaction, len(goSignals))
	for i, s := range goSignals {
		syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(s), 0, uintptr(unsafe.Pointer(&saved[i])), 8, 0, 0)
	}
	defer func() {
		for i, s := range goSignals {
			syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(&saved[i])), 0, 8, 0, 0)
		}
	}()
	fn()
}
