//go:build unix

package cli

import (
	"os"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/job"
)

// Every output passes the password redactor: a terminal under it is still
// a terminal, a pipe under it still none.
func TestTerminalUnderTheRedactor(t *testing.T) {
	t.Parallel()
	red := job.NewRedactor("postgres://u:secret@h/db")
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	defer tty.Close()
	require.True(t, isTerminal(tty))
	require.True(t, isTerminal(red.Writer(tty)))
	require.True(t, isTerminal(red.Writer(red.Writer(tty))))

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	require.False(t, isTerminal(red.Writer(w)))
}
