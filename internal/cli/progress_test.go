package cli

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/runner"
)

func TestProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	require.False(t, isTerminal(&bytes.Buffer{}))
	f, err := os.CreateTemp(t.TempDir(), "log")
	require.NoError(t, err)
	defer f.Close()
	require.False(t, isTerminal(f), "a file is not a terminal")

	var nilProgress *progress // what callers hold when stderr is not a terminal
	nilProgress.partitionDone(3)
	nilProgress.clear()
	nilProgress.finish()
	require.Nil(t, nilProgress.stepFunc())
}

func TestProgressDraws(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := newBackfillProgress(&buf, 4, 0)
	p.partitionDone(10)
	p.partitionDone(5)
	require.Contains(t, buf.String(), "backfill: 15 rows")
	require.Contains(t, buf.String(), "2/4")

	buf.Reset()
	r := newRunProgress(&buf, 0)
	r.step(runner.Progress{Partition: "2026-11-28", Step: runner.StepStaging, Files: 2, Bytes: 3 << 20})
	require.Contains(t, buf.String(), "2026-11-28: reading 2 files, 3.0 MiB")
	r.step(runner.Progress{Partition: "2026-11-28", Step: runner.StepStaged, Files: 2, Bytes: 3 << 20, Rows: 1234})
	require.Contains(t, buf.String(), "1234 rows staged (3.0 MiB read)")
	r.finish()
}
