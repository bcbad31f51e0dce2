package idem_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
)

// Library users print errors themselves: Open's and Run's carry no
// password either.
func TestLibraryErrorsCarryNoPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, url := range []string{
		"postgres://adv_u:S3cr3t/p@ss@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgres://adv_u:S3cr3t/p@ss@127.0.0.1:notaport/db",
	} {
		_, err := idem.Open(ctx, url, t.TempDir(), time.Second)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "S3cr3t")
		require.NotContains(t, err.Error(), "ss@127")
		_, err = idem.OpenReadOnly(ctx, url, t.TempDir(), time.Second)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "S3cr3t")
	}
	_, err := idem.Open(ctx, "postgres://adv_u:S3cr3t/p@ss@127.0.0.1:notaport/db", "", time.Second)
	require.ErrorIs(t, err, idem.ErrTarget)

	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`idem: 1
job: orders
target:
  url: 'postgres://adv_u:S3cr3t/p@ss@127.0.0.1:1/db?sslmode=disable&connect_timeout=2'
  table: orders
source:
  files: x.csv
strategy: partition
partition:
  column: day
`), 0o644))
	j, err := idem.Load(path)
	require.NoError(t, err)
	_, err = idem.Run(ctx, j, idem.Options{Date: "2026-11-28", LockTimeout: time.Second})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "S3cr3t")
	require.Contains(t, err.Error(), "adv_u:xxxxx@127.0.0.1:1/db")
}

// The same for ClickHouse servers: a refused connection, a malformed URL,
// and a run's error carry no password.
func TestLibraryErrorsCarryNoPasswordClickHouse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, url := range []string{
		"clickhouse://adv_u:S3cr3t/p@ss@127.0.0.1:1/db?dial_timeout=2s",
		"clickhouses://adv_u:S3cr3t/p@ss@127.0.0.1:1/db",
		"clickhouse://adv_u:S3cr3t/p@ss@127.0.0.1:notaport/db",
		"clickhouse://adv_u:S3cr3t/p@ss@127.0.0.1/db?compress_level=x",
	} {
		_, err := idem.Open(ctx, url, t.TempDir(), time.Second)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "S3cr3t", url)
		require.NotContains(t, err.Error(), "ss@127", url)
		require.Contains(t, err.Error(), "adv_u:xxxxx@127.0.0.1", url)
		_, err = idem.OpenReadOnly(ctx, url, t.TempDir(), time.Second)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "S3cr3t", url)
	}
	_, err := idem.Open(ctx, "clickhouse://adv_u:S3cr3t/p@ss@127.0.0.1:notaport/db", "", time.Second)
	require.ErrorIs(t, err, idem.ErrTarget)

	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`idem: 1
job: orders
target:
  url: 'clickhouse://adv_u:S3cr3t/p@ss@127.0.0.1:1/db'
  table: orders
source:
  files: x.csv
strategy: partition
partition:
  column: day
`), 0o644))
	j, err := idem.Load(path)
	require.NoError(t, err)
	_, err = idem.Run(ctx, j, idem.Options{Date: "2026-11-28", LockTimeout: time.Second})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "S3cr3t")
	require.Contains(t, err.Error(), "adv_u:xxxxx@127.0.0.1:1/db")
}
