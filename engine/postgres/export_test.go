package postgres

import (
	"context"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/source/filereader"
)

// SetCopyMode forces how CSV reaches the server ("auto" or "rows"), for
// tests and benchmarks; it returns a func restoring the previous mode. Not
// safe alongside parallel loads: callers are not parallel tests.
func SetCopyMode(mode string) (restore func()) {
	prev := copyMode
	copyMode = mode
	return func() { copyMode = prev }
}

// PGType exposes the DuckDB→PostgreSQL type mapping.
var PGType = pgType

// LockKey exposes the advisory lock key derivation.
var LockKey = lockKey

// CSVCopyable reports whether LoadFiles would stream in's CSV files as raw
// bytes into COPY (rather than rows read by DuckDB).
func CSVCopyable(ctx context.Context, in engine.FileInput) (bool, error) {
	rd, err := filereader.Open(ctx)
	if err != nil {
		return false, err
	}
	defer rd.Close()
	src, err := rd.Describe(ctx, in, pgTypes{})
	if err != nil {
		return false, err
	}
	cd, err := src.CSV(ctx)
	return cd != nil, err
}
