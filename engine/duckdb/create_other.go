//go:build !unix

package duckdb

import "context"

// lockFolder cannot lock a folder here: creating a database file is as
// racy as DuckDB's own open.
func lockFolder(context.Context, string) (func(), error) { return func() {}, nil }

// abandoned cannot probe DuckDB's lock here: an empty file is left to
// DuckDB's own open.
func abandoned(string) bool { return false }
