//go:build !linux

package peakrss

import "syscall"

func childAttr() *syscall.SysProcAttr { return nil }
