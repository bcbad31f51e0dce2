package postgres

import (
	"context"

	"github.com/idemdata/idem/engine"
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
	rd, err := newReader(ctx)
	if err != nil {
		return false, err
	}
	defer rd.close()
	_, cols, err := rd.describe(ctx, in)
	if err != nil {
		return false, err
	}
	cd, err := rd.csvCopyable(ctx, in, cols)
	return cd != nil, err
}
