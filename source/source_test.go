package source

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestFilesSortedRelativeNoMatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := write(t, dir, "in/b.csv", "b")
	a := write(t, dir, "in/a.csv", "a")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "in", "dir.csv"), 0o755))
	got, err := Files(dir, []string{"in/*.csv"})
	require.NoError(t, err)
	require.Equal(t, []string{a, b}, got, "sorted, directories left out")

	got, err = Files(dir, []string{"missing/*.csv"})
	require.NoError(t, err)
	require.Empty(t, got, "no match is an empty input, not an error")

	_, err = Files(dir, []string{"in/[.csv"})
	require.Error(t, err)

	got, err = Files(dir, []string{"in/b*.csv", "in/*.csv", "missing/*"})
	require.NoError(t, err)
	require.Equal(t, []string{a, b}, got, "a file two globs match is read once")
}

func TestFingerprintFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := write(t, dir, "a.csv", "id\n1\n")
	b := write(t, dir, "b.csv", "id\n2\n")
	renamed := write(t, dir, "other-name.csv", "id\n1\n")
	changed := write(t, dir, "c.csv", "id\n3\n")

	ab, err := FingerprintFiles([]string{a, b})
	require.NoError(t, err)
	ba, err := FingerprintFiles([]string{b, a})
	require.NoError(t, err)
	require.Equal(t, ab, ba, "order does not count")

	rb, err := FingerprintFiles([]string{renamed, b})
	require.NoError(t, err)
	require.Equal(t, ab, rb, "names do not count, bytes do")

	ac, err := FingerprintFiles([]string{a, changed})
	require.NoError(t, err)
	require.NotEqual(t, ab, ac)

	aab, err := FingerprintFiles([]string{a, a, b})
	require.NoError(t, err)
	require.NotEqual(t, ab, aab, "a file listed twice loads twice")

	none, err := FingerprintFiles(nil)
	require.NoError(t, err)
	require.NotEqual(t, ab, none)

	_, err = FingerprintFiles([]string{filepath.Join(dir, "gone.csv")})
	require.Error(t, err)
}

func TestRunIDDeterministic(t *testing.T) {
	t.Parallel()
	id := RunID("job", "2026-11-28", "def", "fp")
	require.Equal(t, id, RunID("job", "2026-11-28", "def", "fp"))
	require.Len(t, id, 24)
	for _, other := range []string{
		RunID("job2", "2026-11-28", "def", "fp"),
		RunID("job", "2026-11-29", "def", "fp"),
		RunID("job", "2026-11-28", "def2", "fp"),
		RunID("job", "2026-11-28", "def", "fp2"),
		RunID("job", "2026-11-28d", "ef", "fp"), // fields are separated
	} {
		require.NotEqual(t, id, other)
	}
	require.Equal(t, FingerprintRows(3, "abc"), FingerprintRows(3, "abc"))
	require.NotEqual(t, FingerprintRows(3, "abc"), FingerprintRows(4, "abc"))
}
