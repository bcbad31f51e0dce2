// Package peakrss runs a command and reads its own peak resident memory
// and wall time.
//
// Linux's ru_maxrss of a child does not start at zero: exec records the
// high-water mark of the address space it replaces, and Go's os/exec
// starts a child sharing its parent's (CLONE_VM), so the child's figure is
// at least the parent's peak (docs/decisions/0018-peakrss-fresh-copy.md).
// So the command is started by a fresh copy of this binary, whose own few
// MiB are then the floor, and which reports the command's figures back on
// a pipe.
//
// A binary using Run must call Serve first thing in main (tests: in
// TestMain).
package peakrss

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// serveArg marks the measuring copy's command line.
const serveArg = "__peakrss_measure"

// Sample is one command's run.
type Sample struct {
	Secs float64 `json:"secs"` // wall time, from start to exit
	KiB  int64   `json:"kib"`  // peak resident memory
	Code int     `json:"code"` // exit code; -1 when killed by a signal
}

// Serve runs the measuring copy's work and exits, when this process is
// one; else it returns at once.
func Serve() {
	if len(os.Args) < 3 || os.Args[1] != serveArg {
		return
	}
	os.Exit(serve(os.Args[2], os.Args[3:]))
}

func serve(name string, args []string) int {
	syscall.CloseOnExec(3) // the command must not hold the report's pipe open
	report := os.NewFile(3, "peakrss report")
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = childAttr() // killed with this copy, which a cancelled Run kills
	start := time.Now()
	err := cmd.Run()
	s := Sample{Secs: time.Since(start).Seconds()}
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		return 127
	}
	s.KiB = peakKiB(cmd.ProcessState)
	s.Code = cmd.ProcessState.ExitCode()
	if err := json.NewEncoder(report).Encode(s); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss: reporting:", err)
		return 127
	}
	return max(s.Code, 0)
}

// Run runs cmd (its Path, Args, Dir, Env and standard streams) through a
// copy of this binary and returns its wall time and peak memory. The
// error is cmd's (an *exec.ExitError when it failed) or the measuring's.
func Run(ctx context.Context, cmd *exec.Cmd) (Sample, error) {
	self, err := os.Executable()
	if err != nil {
		return Sample{}, err
	}
	m := exec.CommandContext(ctx, self, append([]string{serveArg, cmd.Path}, cmd.Args[1:]...)...)
	m.Dir, m.Env = cmd.Dir, cmd.Env
	m.Stdin, m.Stdout, m.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	pr, pw, err := os.Pipe()
	if err != nil {
		return Sample{}, err
	}
	defer pr.Close()
	m.ExtraFiles = []*os.File{pw}
	err = m.Start()
	pw.Close() // the copy holds it now
	if err != nil {
		return Sample{}, err
	}
	var s Sample
	derr := json.NewDecoder(pr).Decode(&s)
	werr := m.Wait()
	switch {
	case derr != nil:
		return Sample{}, errors.Join(fmt.Errorf("peakrss: no report from %s: %w", cmd.Path, derr), werr)
	case werr != nil:
		return s, werr
	case s.Code < 0:
		return s, fmt.Errorf("%s: killed by a signal", cmd.Path)
	case s.Code != 0:
		return s, fmt.Errorf("%s: exit status %d", cmd.Path, s.Code)
	}
	return s, nil
}
