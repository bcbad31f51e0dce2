//go:build !no_duckdb

package idem

// Built unless the no_duckdb tag leaves the engine out of the binary.
import _ "github.com/idemdata/idem/engine/duckdb" // registers duckdb:
