//go:build unix

package duckdb

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Creating a database file waits for the folder's lock, so two creators
// never see each other's half-created file.
func TestCreateTakesTurns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "new.duckdb")
	unlock, err := lockFolder(ctx, dir)
	require.NoError(t, err)
	opened := make(chan error, 1)
	go func() {
		db, err := Open(ctx, path, time.Minute)
		if err == nil {
			err = db.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		t.Fatalf("Open returned while the folder was locked: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	require.NoFileExists(t, path, "nothing created while another creator holds the folder")
	unlock()
	require.NoError(t, <-opened)
	require.FileExists(t, path)
}

// An empty file another process holds DuckDB's lock on is being created:
// it is left alone, and Open waits for it as for a lock.
func TestOpenWaitsForCreator(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "held.duckdb")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	require.True(t, abandoned(path), "an empty file nobody holds")

	// fcntl locks are the process's: a child process holds this one.
	holdLock(t, path)
	require.False(t, abandoned(path), "a held file is not abandoned")
	_, err := Open(ctx, path, 500*time.Millisecond)
	require.Error(t, err)
	require.FileExists(t, path, "a file a creator holds is never removed")
}

// holdLock starts this test binary again to hold DuckDB's kind of lock on
// path until the test ends.
func holdLock(t *testing.T, path string) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "IDEM_HOLD_LOCK="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)
}

// TestMain is also holdLock's child: with IDEM_HOLD_LOCK set, it locks
// the file as DuckDB does and keeps the lock until its stdin closes.
// With IDEM_COMMIT_CHILD set, it is commitChild instead.
func TestMain(m *testing.M) {
	if path := os.Getenv("IDEM_COMMIT_CHILD"); path != "" {
		os.Exit(commitChild(path))
	}
	path := os.Getenv("IDEM_HOLD_LOCK")
	if path == "" {
		os.Exit(m.Run())
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		lk := unix.Flock_t{Type: unix.F_WRLCK}
		err = unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}
