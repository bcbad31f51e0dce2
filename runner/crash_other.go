//go:build !unix

package runner

import "os"

// killSelf ends the process at once, with no deferred cleanup and no
// rollback: on Windows TerminateProcess, the nearest thing to kill -9.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	os.Exit(137) // if the kill did not take, still never return
}
