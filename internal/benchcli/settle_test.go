package benchcli

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseProcStat(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	got, err := parseProcStat("cpu  100 5 20 1000 50 1 2 3 7 9\ncpu0 1 2 3 4\n")
	require.NoError(t, err)
	require.Equal(t, cpuTimes{busy: 100 + 5 + 20 + 1 + 2 + 3, total: 100 + 5 + 20 + 1000 + 50 + 1 + 2 + 3}, got)
	_, err = parseProcStat("intr 1 2 3\n")
	require.Error(t, err)
	_, err = parseProcStat("cpu 1 2 x 4 5\n")
	require.Error(t, err)
}

// fakeCPU replays /proc/stat readings: each step adds busy jiffies of 100.
func fakeCPU(busyPerWindow ...uint64) func() (cpuTimes, error) {
	var t cpuTimes
	i := 0
	return func() (cpuTimes, error) {
		if i > 0 {
			b := busyPerWindow[min(i-1, len(busyPerWindow)-1)]
			t.busy += b
			t.total += 100
		}
		i++
		return t, nil
	}
}

func TestSettlerWaitsForQuiet(t *testing.T) {
	noSleep := func(context.Context, time.Duration) error { return nil }
	ctx := context.Background()

	// Busy (60%, 45%), then quiet (10%): three windows.
	s := &settler{max: time.Minute, read: fakeCPU(60, 45, 10), sleep: noSleep}
	d, gaveUp, err := s.wait(ctx)
	require.NoError(t, err)
	require.False(t, gaveUp)
	require.Equal(t, 3*settleWindow, d)
	require.Equal(t, d, s.waited)

	// Quiet at once: one window.
	s = &settler{max: time.Minute, read: fakeCPU(20), sleep: noSleep}
	d, gaveUp, err = s.wait(ctx)
	require.NoError(t, err)
	require.False(t, gaveUp)
	require.Equal(t, settleWindow, d)

	// Never quiet: gives up at max, and says so.
	s = &settler{max: time.Second, read: fakeCPU(90), sleep: noSleep}
	d, gaveUp, err = s.wait(ctx)
	require.NoError(t, err)
	require.True(t, gaveUp)
	require.Equal(t, time.Second, d)

	// Off: reads nothing.
	s = &settler{read: func() (cpuTimes, error) { t.Fatal("read"); return cpuTimes{}, nil }}
	d, _, err = s.wait(ctx)
	require.NoError(t, err)
	require.Zero(t, d)

	// No /proc/stat (not Linux), or not readable: does not wait.
	for _, rerr := range []error{os.ErrNotExist, os.ErrPermission} {
		s = &settler{max: time.Minute, read: func() (cpuTimes, error) { return cpuTimes{}, rerr }, sleep: noSleep}
		d, _, err = s.wait(ctx)
		require.NoError(t, err)
		require.Zero(t, d)
	}

	// Cancelled: the context's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	s = &settler{max: time.Minute, read: fakeCPU(90), sleep: sleepCtx}
	_, _, err = s.wait(cctx)
	require.ErrorIs(t, err, context.Canceled)
}

func TestReadProcStat(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat on this system: the settler does not wait here")
	}
	a, err := readProcStat()
	require.NoError(t, err)
	require.Positive(t, a.total)
	require.LessOrEqual(t, a.busy, a.total)
}
