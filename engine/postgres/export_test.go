package postgres

import (
	"context"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/source/filereader"
)

// SetCopyMode forces how this DB sends CSV to the server: "auto" (raw
// bytes where the server parses them as DuckDB does) or "rows" (always rows
// read by DuckDB); for tests and benchmarks.
func (d *DB) SetCopyMode(mode string) {
	switch mode {
	case "auto", "rows":
		d.csvRows = mode == "rows"
	default:
		panic("copy mode " + mode + " is not auto or rows")
	}
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
