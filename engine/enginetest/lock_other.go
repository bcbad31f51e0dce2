//go:build !unix

package enginetest

import (
	"errors"
	"os"
	"time"
)

// lockFile waits for an exclusive lock on path: a file created
// exclusively, removed by unlock. One left by a killed process is taken
// over after ten minutes, longer than any build.
func lockFile(path string) (unlock func(), err error) {
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > 10*time.Minute {
			os.Remove(path)
			continue
		}
		time.Sleep(100 * time.Millisecond)
	}
}
