//go:build unix

package duckdb

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockFolder takes an exclusive flock on the folder dir while a database
// file in it is created, so that creators take turns (processes and
// goroutines alike: flock belongs to the open folder, not the process).
// Where the folder cannot be locked (a file system without flock), it
// returns a no-op: creation is then as racy as DuckDB's own.
func lockFolder(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}, nil
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return func() {}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// abandoned reports whether no process holds DuckDB's lock on the file at
// path (a whole-file fcntl lock, taken by every DuckDB that opens it). The
// probe's lock goes with its descriptor.
func abandoned(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	return unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk) == nil
}
