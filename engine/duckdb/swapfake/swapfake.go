// Package swapfake is for tests only: it registers the target scheme
// duckdb-swap:PATH, a DuckDB file opened as an engine that claims its DDL
// commits the open transaction (as MySQL's does). It declares
// engine.Swapper, so the runner keeps every DDL statement out of the data
// transaction and changes a table's shape by building a new one and
// swapping it in: the conformance suite runs that path on it before any
// real engine needs it. The idem binary knows the scheme only when built
// with -tags idem_swap_fake (the suite's binary is).
package swapfake

import (
	"context"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
)

// DB is a DuckDB database posing as an engine whose DDL commits.
type DB struct{ *duckdb.DB }

var _ engine.Swapper = DB{}

// Capabilities are DuckDB's, but for its commit: it swaps, as MySQL does.
func (d DB) Capabilities() engine.Capabilities { return engine.Declare(d, engine.CommitSwap) }

// Swap renames built into table's place.
func (DB) Swap(table, built engine.Table, exists bool) []string {
	d := duckdb.Dialect{}
	rename := "ALTER TABLE " + d.Table(built) + " RENAME TO " + d.Ident(table.Name)
	if !exists {
		return []string{rename}
	}
	// DuckDB has no two-table RENAME; one transaction of its DDL is one
	// atomic step, as MySQL's RENAME TABLE a TO b, c TO a is.
	return []string{"BEGIN; DROP TABLE " + d.Table(table) + "; " + rename + "; COMMIT"}
}

// Drop drops t if it exists.
func (DB) Drop(t engine.Table) string { return "DROP TABLE IF EXISTS " + duckdb.Dialect{}.Table(t) }

// Like creates built with table's columns and types.
func (DB) Like(built, table engine.Table) []string {
	d := duckdb.Dialect{}
	return []string{"CREATE TABLE " + d.Table(built) + " AS SELECT * FROM " + d.Table(table) + " LIMIT 0"}
}

func init() {
	real, _ := engine.Lookup("duckdb")
	engine.Register("duckdb-swap", engine.Driver{Name: "duckdb-swap", File: true, Form: "duckdb-swap:PATH", Example: "duckdb-swap:x.duckdb",
		Open: func(ctx context.Context, path string, o engine.OpenOptions) (engine.DB, error) {
			db, err := real.Open(ctx, path, o)
			if err != nil {
				return nil, err
			}
			return DB{db.(*duckdb.DB)}, nil
		}})
}
