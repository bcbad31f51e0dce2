package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFingerprintAhead: a hash taken ahead is the hash taken then, used
// once; a file changed after that use is hashed again, and stop forgets a
// hash no one took.
func TestFingerprintAhead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.csv")
	require.NoError(t, os.WriteFile(p, []byte("id\n1\n"), 0o644))
	want, err := fingerprint([]string{p})
	require.NoError(t, err)

	FingerprintAhead([]string{p})
	got, err := Fingerprint([]string{p})
	require.NoError(t, err)
	require.Equal(t, want, got)

	require.NoError(t, os.WriteFile(p, []byte("id\n2\n"), 0o644))
	changed, err := Fingerprint([]string{p})
	require.NoError(t, err)
	require.NotEqual(t, want, changed, "the ahead hash is taken once")

	stop := FingerprintAhead([]string{p})
	stop()
	require.NoError(t, os.WriteFile(p, []byte("id\n3\n"), 0o644))
	again, err := Fingerprint([]string{p})
	require.NoError(t, err)
	require.NotEqual(t, changed, again, "a stopped hash is not used")
	ahead.Lock()
	require.Empty(t, ahead.m)
	ahead.Unlock()

	_, err = Fingerprint([]string{filepath.Join(dir, "missing.csv")})
	require.Error(t, err)
	FingerprintAhead([]string{filepath.Join(dir, "missing.csv")})
	_, err = Fingerprint([]string{filepath.Join(dir, "missing.csv")})
	require.Error(t, err, "an error taken ahead is the run's error")
}
