//go:build !(linux && amd64)

package chdb

// keepGoSignals runs fn: libchdb.so is built for linux/amd64 only.
func keepGoSignals(fn func()) { fn() }
