package cli_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/internal/cli"
)

// --as-of takes a plain date as its midnight in UTC.
func TestAsOfDate(t *testing.T) {
	t.Parallel()
	path := eventsJob(t)
	code, out, errOut := run(t, "run", path, "--date", "2026-11-28", "--as-of", "2026-11-28")
	require.Equal(t, 75, code, errOut)
	require.Contains(t, out, "not closed yet: it closes at 2026-11-29T00:00:00Z")
	code, out, errOut = run(t, "run", path, "--date", "2026-11-28", "--as-of", "2026-11-29")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "ev 2026-11-28: loaded", "closed at its end: midnight UTC of the date")
	code, _, errOut = run(t, "run", path, "--date", "2026-11-28", "--as-of", "2026-11-31")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--as-of "2026-11-31" is neither an RFC 3339 time (like 2026-11-29T06:00:00Z) nor a date (like 2026-11-30, its midnight UTC)`)
}

// IDEM_* variables give the settings among the flags; the command line
// wins over them. (Not parallel: the variables are the process's.)
func TestFlagsFromEnvironment(t *testing.T) {
	path := eventsJob(t)
	t.Setenv("IDEM_AS_OF", "2026-11-28")
	code, out, errOut := run(t, "run", path, "--date", "2026-11-28")
	require.Equal(t, 75, code, errOut)
	require.Contains(t, out, "not closed yet", "IDEM_AS_OF applies")
	code, out, errOut = run(t, "run", path, "--date", "2026-11-28", "--as-of", "2026-11-30T00:00:00Z")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "loaded", "the flag wins")

	t.Setenv("IDEM_JSON", "true")
	code, out, errOut = run(t, "status", path, "--from", "2026-11-28", "--to", "2026-11-28")
	require.Equal(t, 0, code, errOut)
	require.True(t, strings.HasPrefix(out, `{"partition":"2026-11-28"`), out)
	code, out, _ = run(t, "status", path, "--from", "2026-11-28", "--to", "2026-11-28", "--json=false")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(out, "2026-11-28  loaded"), out)

	t.Setenv("IDEM_LOCK_TIMEOUT", "soon")
	code, out, errOut = run(t, "status", path)
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Contains(t, errOut, `environment variable IDEM_LOCK_TIMEOUT="soon" (for --lock-timeout)`)

	// What names the work is never taken from the environment.
	t.Setenv("IDEM_LOCK_TIMEOUT", "") // empty: unset
	t.Setenv("IDEM_DATE", "2026-11-28")
	t.Setenv("IDEM_FORCE", "true")
	code, _, errOut = run(t, "run", path)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--date is required")
	require.Empty(t, cli.EnvVar("date"))
	require.Empty(t, cli.EnvVar("force"))
	require.Equal(t, "IDEM_LOCK_TIMEOUT", cli.EnvVar("lock-timeout"))
}

// Every command's help lists the exit codes it can give.
func TestHelpListsExitCodes(t *testing.T) {
	t.Parallel()
	for cmd, codes := range map[string][]string{
		"run":      {"0 ", "1 ", "2 ", "75 ", "130 "},
		"backfill": {"0 ", "1 ", "2 ", "75 ", "130 "},
		"plan":     {"0 ", "1 ", "2 ", "75 ", "130 "},
		"verify":   {"0 ", "1 ", "2 ", "3 ", "75 ", "130 "},
		"status":   {"0 ", "2 ", "3 ", "75 "},
		"checksum": {"0 ", "1 ", "2 ", "75 "},
		"show":     {"0 ", "1 ", "2 ", "75 "},
		"lint":     {"0 ", "2 "},
	} {
		code, out, errOut := run(t, cmd, "--help")
		require.Equal(t, 0, code, errOut)
		_, exits, ok := strings.Cut(out, "\nExit: ")
		require.True(t, ok, "%s --help has no Exit: paragraph:\n%s", cmd, out)
		exits, _, _ = strings.Cut(exits, "\n\n")
		exits = strings.Join(strings.Fields(exits), " ")
		for _, c := range codes {
			require.Contains(t, exits, c, "%s --help: exit %s", cmd, c)
		}
	}
}
