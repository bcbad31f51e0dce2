package duckdb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idemdata/idem/engine"
)

var _ engine.TxLoader = (*DB)(nil)

// LoadFilesInto loads a first load's input straight into the new target,
// created in tx (engine.TxLoader): one CREATE TABLE … AS SELECT from
// DuckDB's reader, as a bare load inserts, where staging wrote the rows into a
// temporary table and then again into the target. DuckDB has no
// savepoints: an input with no rows is undone by dropping what was made,
// and a target that exists is engine.ErrNotBuilt before anything is made.
func (d *DB) LoadFilesInto(ctx context.Context, tx *sql.Tx, stage string, into engine.Table, in engine.FileInput) (int64, error) {
	dl := Dialect{}
	rec := func(q string) {
		if in.Record != nil {
			in.Record(q)
		}
	}
	exec := func(q string) (sql.Result, error) {
		rec(q)
		return tx.ExecContext(ctx, q)
	}
	sel, err := dl.SelectFiles(in)
	if err != nil {
		return 0, err
	}
	// Another run of this process may have created it (runs of one
	// process take turns per partition, not per table).
	schema := "current_schema()"
	if into.Schema != "" {
		schema = dl.String(into.Schema)
	}
	exists := fmt.Sprintf("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = %s AND table_name = %s", schema, dl.String(into.Name))
	rec(exists)
	var n int64
	if err := tx.QueryRowContext(ctx, exists).Scan(&n); err != nil {
		return 0, err
	}
	if n > 0 {
		return 0, engine.ErrNotBuilt
	}
	// The target is created by the statement that loads it: a statement
	// binding DuckDB's CSV reader costs as much as sniffing the file, so
	// the staging table (the columns only: the checks read them there) is
	// made from the target, not from the files.
	create := dl.CreateTableFrom(into, stage, "")
	for _, q := range create[:len(create)-1] { // the schema
		if _, err := exec(q); err != nil {
			return 0, fmt.Errorf("creating %s: %w", into.Name, err)
		}
	}
	rec(engine.LoadNote(in.Paths, dl.Table(into), "by the next statement: the database reads the files itself, straight into the new table"))
	if _, err := exec(fmt.Sprintf("CREATE TABLE %s AS %s", dl.Table(into), sel)); err != nil {
		return 0, err
	}
	// A CREATE TABLE … AS reports no rows affected.
	count := "SELECT count(*) FROM " + dl.Table(into)
	rec(count)
	if err := tx.QueryRowContext(ctx, count).Scan(&n); err != nil {
		return 0, err
	}
	for _, q := range append([]string{fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT * FROM %s LIMIT 0", dl.Ident(stage), dl.Table(into))}, in.Indexes...) {
		if _, err := exec(q); err != nil {
			return 0, err
		}
	}
	if n > 0 {
		return n, nil
	}
	for _, q := range []string{"DROP TABLE " + dl.Table(into), "DROP TABLE " + dl.Ident(stage)} {
		if _, err := exec(q); err != nil {
			return 0, err
		}
	}
	return 0, engine.ErrNotBuilt
}
