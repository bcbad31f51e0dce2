package postgres_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

// A session the server ended is a lost connection (exit 1, "run it
// again"), in the words of the connection, whatever step was running: not
// a bad input line, not a lock. Other errors keep their own words.
func TestInterpretLostConnection(t *testing.T) {
	t.Parallel()
	url := freshDatabase(t)
	ctx := t.Context()
	a, b := open(t, url), open(t, url)
	var pid int64
	require.NoError(t, a.Conn().QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid))
	var ended bool
	require.NoError(t, b.Conn().QueryRowContext(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ended))
	require.True(t, ended)

	for _, q := range []string{"SELECT 1", "SELECT 2"} { // the first reads the server's goodbye, the next finds the socket closed
		_, err := a.Conn().ExecContext(ctx, q)
		require.Error(t, err)
		got := a.Interpret(fmt.Errorf("reading in/orders.csv: %w", err))
		require.ErrorIs(t, got, engine.ErrConnLost, "%v", err)
		require.NotContains(t, got.Error(), "reading in/orders.csv")
		require.Contains(t, got.Error(), "run it again")
	}

	_, err := b.Conn().ExecContext(ctx, "SELECT 1/0")
	require.Error(t, err)
	require.NotErrorIs(t, b.Interpret(err), engine.ErrConnLost)
}
