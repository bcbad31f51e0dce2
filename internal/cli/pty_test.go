//go:build unix

package cli_test

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/enginetest"
)

// stderrOn runs the idem binary with its stderr on a pseudo-terminal (its
// stdout a pipe, as a scheduler's would be) and returns the exit code,
// stdout and all the terminal showed.
func stderrOn(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	// A wide terminal: the bar is drawn to its width.
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 200}))
	var screen bytes.Buffer
	read := make(chan error, 1)
	go func() { // the terminal must be read, or a full buffer blocks idem's writes
		_, err := io.Copy(&screen, ptmx)
		read <- err
	}()
	var stdout bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &stdout, tty
	err = cmd.Run()
	tty.Close() // the last writer gone, the reader ends (EIO on Linux)
	if rerr := <-read; rerr != nil && !errors.Is(rerr, syscall.EIO) {
		require.NoError(t, rerr)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, stdout.String(), screen.String()
}

// The progress display appears when stderr is a terminal, behind the
// password redactor every output passes, for runs and for backfills; never
// with --json, and never when stderr is a pipe.
func TestProgressOnAPseudoTerminal(t *testing.T) {
	t.Parallel()
	bin := enginetest.Binary(t)
	path := eventsJob(t)

	code, out, screen := stderrOn(t, bin, "run", path, "--date", "2026-11-28")
	require.Equal(t, 0, code, screen)
	require.Contains(t, screen, "2026-11-28: reading 1 files, ", "the run's step, drawn on the terminal")
	require.NotContains(t, out, "reading", "progress never goes to stdout")
	require.Contains(t, out, "ev 2026-11-28: loaded")

	code, _, screen = stderrOn(t, bin, "backfill", path, "--from", "2026-11-27", "--to", "2026-11-28", "--force")
	require.Equal(t, 0, code, screen)
	require.Contains(t, screen, "backfill: 1 rows", "partitions done, with their rows")
	require.Contains(t, screen, "1/2")

	code, out, screen = stderrOn(t, bin, "backfill", path, "--from", "2026-11-27", "--to", "2026-11-28", "--force", "--json")
	require.Equal(t, 0, code, screen)
	require.NotContains(t, screen, "backfill:", "--json draws no progress")
	require.Contains(t, out, `"summary":true`)

	// Without a terminal: stderr is a pipe.
	for _, args := range [][]string{
		{"run", path, "--date", "2026-11-28", "--force"},
		{"backfill", path, "--from", "2026-11-27", "--to", "2026-11-28", "--force"},
	} {
		code, out, errOut := enginetest.RunBinary(t, nil, args...)
		require.Equal(t, 0, code, errOut)
		require.NotEmpty(t, out)
		require.NotContains(t, errOut, "reading 1 files", "%v", args)
		require.NotContains(t, errOut, "backfill:", "%v", args)
		require.NotContains(t, errOut, "\r", "%v: no line is redrawn in a log", args)
	}
}
