package duckdb

import "github.com/idemdata/idem/engine"

var _ engine.LockDescriber = (*DB)(nil)

// DescribeLock says how Lock keeps other runs out: there is no lock in
// SQL, so a plan would otherwise not say what a run waits for.
func (*DB) DescribeLock(scope engine.LockScope) string {
	return "the database file is this process's alone since it was opened (DuckDB's file lock); runs in this process take turns on it"
}
