package benchcli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Settling: a server keeps working after the run that gave it the work
// (InnoDB purges and flushes for seconds after a bulk load), which would be
// charged to the next sample; so every sample waits until the machine is
// idle first (docs/decisions/0016-bench-samples-wait-for-quiet.md).
const (
	settleWindow = 200 * time.Millisecond
	// settleBusy is the share of all cores that may be busy for the machine
	// to count as quiet: a core's worth of background work is 0.5 here.
	settleBusy = 0.2
)

// cpuTimes is the first line of /proc/stat: busy and all jiffies.
type cpuTimes struct{ busy, total uint64 }

// parseProcStat reads the aggregate "cpu" line of /proc/stat. Idle and
// iowait count as idle: a disk still writing is not a core taken from
// the next sample.
func parseProcStat(s string) (cpuTimes, error) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var t cpuTimes
	for i, v := range f[1:] {
		if i >= 8 { // guest times are counted in user already
			break
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("/proc/stat: %w", err)
		}
		t.total += n
		if i != 3 && i != 4 { // idle, iowait
			t.busy += n
		}
	}
	return t, nil
}

func readProcStat() (cpuTimes, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return cpuTimes{}, err
	}
	return parseProcStat(line)
}

// settler waits for a quiet machine.
type settler struct {
	max    time.Duration // 0: never wait
	read   func() (cpuTimes, error)
	sleep  func(context.Context, time.Duration) error
	waited time.Duration // in all, for the log
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// wait returns once one window had at most settleBusy of the cores busy,
// or after s.max. It reports how long it waited and whether it gave up.
// Where the machine's load cannot be read (no /proc/stat, not readable)
// it does not wait: settling is a courtesy to the numbers, never a reason
// to stop the benchmark.
func (s *settler) wait(ctx context.Context) (time.Duration, bool, error) {
	if s.max <= 0 {
		return 0, false, nil
	}
	prev, err := s.read()
	if err != nil {
		return 0, false, nil
	}
	var waited time.Duration
	for {
		if err := s.sleep(ctx, settleWindow); err != nil {
			return waited, false, err
		}
		waited += settleWindow
		cur, err := s.read()
		if err != nil {
			return waited, false, nil
		}
		quiet := cur.total <= prev.total ||
			float64(cur.busy-prev.busy) <= settleBusy*float64(cur.total-prev.total)
		prev = cur
		if quiet || waited >= s.max {
			s.waited += waited
			return waited, !quiet, nil
		}
	}
}
