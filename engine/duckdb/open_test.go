package duckdb_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
)

// RemoveIfUnused removes only a file this Open created and nothing was
// written to.
func TestRemoveIfUnused(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()

	fresh := filepath.Join(dir, "fresh.duckdb")
	db, err := duckdb.Open(ctx, fresh, time.Minute)
	require.NoError(t, err)
	_, err = db.Conn().ExecContext(ctx, "CREATE TEMP TABLE s AS SELECT 1 AS x") // temporary: not kept
	require.NoError(t, err)
	removed, err := db.RemoveIfUnused(ctx)
	require.NoError(t, err)
	require.True(t, removed)
	require.NoFileExists(t, fresh)
	require.NoFileExists(t, fresh+".wal")

	// Written to (as by another process between Open's look and its
	// lock): kept.
	used := filepath.Join(dir, "used.duckdb")
	db, err = duckdb.Open(ctx, used, time.Minute)
	require.NoError(t, err)
	_, err = db.Conn().ExecContext(ctx, "CREATE SCHEMA s")
	require.NoError(t, err)
	removed, err = db.RemoveIfUnused(ctx)
	require.NoError(t, err)
	require.False(t, removed)
	require.FileExists(t, used)

	// An empty database that existed before Open: kept.
	empty := filepath.Join(dir, "empty.duckdb")
	db, err = duckdb.Open(ctx, empty, time.Minute)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	db, err = duckdb.Open(ctx, empty, time.Minute)
	require.NoError(t, err)
	removed, err = db.RemoveIfUnused(ctx)
	require.NoError(t, err)
	require.False(t, removed)
	require.FileExists(t, empty)
}

// OpenReadOnly never creates a file, and nothing run on it writes.
func TestOpenReadOnly(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.duckdb")
	_, err := duckdb.OpenReadOnly(ctx, missing, time.Minute)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NoFileExists(t, missing)
	_, err = duckdb.OpenReadOnly(ctx, ":memory:", time.Minute)
	require.Error(t, err)

	path := filepath.Join(dir, "t.duckdb")
	db, err := duckdb.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	_, err = db.Conn().ExecContext(ctx, "CREATE TABLE t AS SELECT 1 AS x")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	ro, err := duckdb.OpenReadOnly(ctx, path, time.Minute)
	require.NoError(t, err)
	_, err = ro.Conn().ExecContext(ctx, "SELECT 1; DROP TABLE t")
	require.ErrorContains(t, err, "read-only")
	var n int
	require.NoError(t, ro.Conn().QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, 1, n)
	removed, err := ro.RemoveIfUnused(ctx) // it did not create the file
	require.NoError(t, err)
	require.False(t, removed)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after)
}

// The target's connection runs under a memory limit (DuckDB's default is
// 80% of the host's memory), which IDEM_DUCKDB_MEMORY_LIMIT overrides.
func TestMemoryLimit(t *testing.T) {
	ctx := t.Context()
	limit := func() string {
		db, err := duckdb.Open(ctx, filepath.Join(t.TempDir(), "m.duckdb"), time.Minute)
		require.NoError(t, err)
		defer db.Close()
		var v string
		require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&v))
		return v
	}
	t.Setenv("IDEM_DUCKDB_MEMORY_LIMIT", "")
	if runtime.NumCPU() <= 6 {
		require.Equal(t, "366.2 MiB", limit(), "384MB (DuckDB's MB are 10^6 bytes)")
	}
	t.Setenv("IDEM_DUCKDB_MEMORY_LIMIT", "2GB")
	require.Equal(t, "1.8 GiB", limit())
}

// Each run sizes the limit for its work: a load gets less than a merge,
// whose joins over the whole target spill otherwise, and a source
// database's rows streaming in less still; the override stands.
func TestSizeMemory(t *testing.T) {
	ctx := t.Context()
	sized := func(use engine.MemoryUse) string {
		db, err := duckdb.Open(ctx, filepath.Join(t.TempDir(), "m.duckdb"), time.Minute)
		require.NoError(t, err)
		defer db.Close()
		require.NoError(t, db.SizeMemory(ctx, db.Conn(), use))
		var v string
		require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&v))
		return v
	}
	t.Setenv("IDEM_DUCKDB_MEMORY_LIMIT", "")
	if runtime.NumCPU() <= 4 {
		require.Equal(t, "244.1 MiB", sized(engine.MemoryLoad), "256MB for a load")
		require.Equal(t, "366.2 MiB", sized(engine.MemoryMerge), "384MB for a merge")
	}
	require.Equal(t, "61.0 MiB", sized(engine.MemoryStream), "64MB for a source's rows, whatever the cores")
	t.Setenv("IDEM_DUCKDB_MEMORY_LIMIT", "2GB")
	for _, use := range []engine.MemoryUse{engine.MemoryLoad, engine.MemoryMerge, engine.MemoryStream} {
		require.Equal(t, "1.8 GiB", sized(use))
	}
}

// A process's DuckDB instance may already hold more memory than a step's
// limit (tables not yet checkpointed, metadata, another connection's
// temporary tables): the limit a run sets is at least 64 MB above what it
// holds. Below it, DuckDB fails the string allocations of the rows
// streaming in inside a C API call, which aborts the whole process
// (internal/difftest, whose instance stays open for thousands of runs, met
// it with IDEM_DIFF_SEED=3678846543249718 IDEM_DIFF_FILES=8000).
func TestSizeMemoryAboveHeld(t *testing.T) {
	ctx := t.Context()
	t.Setenv("IDEM_DUCKDB_MEMORY_LIMIT", "")
	db, err := duckdb.Open(ctx, filepath.Join(t.TempDir(), "m.duckdb"), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Conn().ExecContext(ctx, "CREATE TEMP TABLE held AS SELECT repeat('x', 1000) || i AS s FROM range(120000) AS t(i)")
	require.NoError(t, err)
	var held int64
	require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT CAST(sum(memory_usage_bytes) AS BIGINT) FROM duckdb_memory()").Scan(&held))
	require.Greater(t, held, int64(100_000_000), "the instance holds more than a stream's 64 MB")

	require.NoError(t, db.SizeMemory(ctx, db.Conn(), engine.MemoryStream))
	var v string
	require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&v))
	limit := sizeOf(t, v)
	require.GreaterOrEqual(t, limit, float64(held+64_000_000)*0.99, "limit %s, held %d bytes", v, held)
	require.Less(t, limit, float64(held+66_000_000), "limit %s, held %d bytes", v, held)

	// A step whose own limit is more than that keeps it: what is held is a
	// floor, not added (a run's appends would raise every later limit).
	if runtime.NumCPU() <= 4 {
		require.NoError(t, db.SizeMemory(ctx, db.Conn(), engine.MemoryLoad))
		require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&v))
		require.Equal(t, "244.1 MiB", v, "256MB for a load, %d bytes held", held)
	}
}

// sizeOf reads a size as DuckDB shows a setting ("244.1 MiB"), in bytes.
func sizeOf(t *testing.T, v string) float64 {
	t.Helper()
	var n float64
	var unit string
	_, err := fmt.Sscanf(v, "%g %s", &n, &unit)
	require.NoError(t, err, v)
	f, ok := map[string]float64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
	require.True(t, ok, v)
	return n * f
}

// An empty file nobody holds (a creator killed before DuckDB wrote its
// header) is created anew at once: DuckDB alone refuses it forever.
func TestOpenEmptyLeftover(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "left.duckdb")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	began := time.Now()
	db, err := duckdb.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	require.Less(t, time.Since(began), 10*time.Second, "did not wait for a header")
	_, err = db.Conn().ExecContext(ctx, "CREATE TABLE t AS SELECT 1 AS x")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	db, err = duckdb.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	var n int
	require.NoError(t, db.Conn().QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, 1, n)
	require.NoError(t, db.Close())
}
