package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// A run that failed after its rows were put in place (no transactions:
// ClickHouse) does not say the target is unchanged.
func TestFailedAfterRowsInPlaceSaysSo(t *testing.T) {
	j := &job.Job{Name: "j"}
	var out strings.Builder
	for _, tc := range []struct {
		err, want string
	}{
		{"boom", "failed; the target is unchanged"},
		{"writing the ledger: boom (" + runner.ErrUnrecorded.Error() + ")", "failed after its rows were put in place"},
	} {
		out.Reset()
		printResult(&out, io.Discard, j, runner.Result{Job: "j", Partition: "2026-11-28", Action: runner.ActionFailed, Error: tc.err}, false)
		require.Contains(t, out.String(), tc.want)
	}
	require.NotContains(t, out.String(), "unchanged")
}
