package runner

import (
	"errors"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// Exit codes (SPEC.md), as the CLI exits and a scheduler reads them.
const (
	ExitOK       = 0
	ExitFailed   = 1
	ExitUsage    = 2
	ExitVerify   = 3
	ExitTempFail = 75
	// ExitInterrupted is a run stopped by SIGINT or SIGTERM, rolled back:
	// 128 + SIGINT, as shells report it.
	ExitInterrupted = 130
)

// ExitCode is the exit code a run's error means: a job file's mistake is
// usage, an interrupt its own, a lock held or a server away is "try again
// later", anything else a failure.
func ExitCode(err error) int {
	var je *job.Error
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &je):
		return ExitUsage
	case errors.Is(err, engine.ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, engine.ErrLocked), errors.Is(err, engine.ErrUnavailable), errors.Is(err, ErrInputChanged),
		errors.Is(err, engine.ErrSourceLost):
		return ExitTempFail
	}
	return ExitFailed
}
