package ledger

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A job's runs are ordered by job_seq whatever their finished_at; runs an
// older idem recorded (job_seq 0) come before every numbered one and are
// ordered by finished_at among themselves; what cannot be told apart is a
// tie, and a tie counts every run in it.
func TestRunsOrderedAsRecorded(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	later := at.Add(24 * time.Hour)
	require.Equal(t, 1, recorded(2, at, 1, later), "job_seq decides, not a clock ahead")
	require.Equal(t, -1, recorded(1, later, 2, at))
	require.Equal(t, 1, recorded(1, at, 0, later), "a numbered run was recorded after an older idem's")
	require.Equal(t, 1, recorded(0, later, 0, at), "older idem's runs by finished_at")
	require.Equal(t, 0, recorded(0, at, 0, at))
	require.Equal(t, 0, recorded(3, at, 3, later), "two partitions' runs recorded at once")

	var l latestRuns
	for _, r := range []struct {
		seq   int64
		at    time.Time
		other bool
	}{{0, later, false}, {1, at, true}, {2, at, false}, {0, later.Add(time.Hour), true}} {
		l.add(r.seq, r.at, r.other)
	}
	require.False(t, l.other, "the latest is job_seq 2, under the definition")
	l.add(2, later, true)
	require.True(t, l.other, "a tie on job_seq counts the other run too")

	runs := map[string]Entry{
		"a": {Partition: "a", Strategy: "merge", JobSeq: 1, FinishedAt: later},
		"b": {Partition: "b", Strategy: "merge", JobSeq: 2, FinishedAt: at},
		"c": {Partition: "c", Strategy: "partition", JobSeq: 3, FinishedAt: at},
	}
	last := Latest(runs, "merge")
	require.Len(t, last, 1)
	require.Equal(t, "b", last[0].Partition)
}
