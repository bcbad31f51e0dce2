//go:build !linux

package peakrss

import (
	"os"
	"syscall"
)

func childAttr() *syscall.SysProcAttr { return nil }

// peakKiB is 0 off Linux: idem-bench measures on Linux (it reads
// /proc/stat too), and the unit of ru_maxrss differs elsewhere.
func peakKiB(*os.ProcessState) int64 { return 0 }
