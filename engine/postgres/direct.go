package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/source/filereader"
)

var _ engine.TxLoader = (*DB)(nil)

// directSavepoint is where a direct load that cannot go on rolls back to,
// leaving the transaction as it found it.
const directSavepoint = "idem_direct"

// LoadFilesInto loads a first load's input straight into the new target,
// created in tx (engine.TxLoader): raw CSV only, COPY into the target
// where LoadFiles copies into a temporary table that the run then copies
// into the target. Anything else is engine.ErrNotBuilt, as is a target
// another run created first, an input with no rows, or one whose sample's
// types do not hold for every row (the reader's full types then need the
// usual staging).
func (d *DB) LoadFilesInto(ctx context.Context, tx *sql.Tx, stage string, into engine.Table, in engine.FileInput) (int64, error) {
	if len(in.Paths) == 0 {
		return 0, engine.ErrNotBuilt
	}
	rd, err := filereader.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	src, raw, err := d.describeInto(ctx, rd, in)
	if err != nil {
		return 0, err
	}
	rec := func(q string) {
		if in.Record != nil {
			in.Record(q)
		}
	}
	exec := func(q string, args ...any) error {
		rec(q)
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	if err := exec("SAVEPOINT " + directSavepoint); err != nil {
		return 0, err
	}
	n, err := d.copyInto(ctx, tx, stage, into, in, src, raw, rec)
	switch {
	case errors.Is(err, engine.ErrNotBuilt):
		return 0, errors.Join(err, exec("ROLLBACK TO SAVEPOINT "+directSavepoint))
	case err != nil:
		return 0, err
	}
	return n, exec("RELEASE SAVEPOINT " + directSavepoint)
}

// describeInto gives the input's columns: for raw CSV the sample's, which
// the reader confirms beside COPY (raw is set); else every row's, and
// engine.ErrNotBuilt where a column travels as text (its type is given by
// an ALTER after the rows, which would rewrite the new table).
func (d *DB) describeInto(ctx context.Context, rd *filereader.Reader, in engine.FileInput) (*filereader.Input, *filereader.CSVDialect, error) {
	if in.Format == "csv" {
		sample, err := rd.DescribeSample(ctx, in, pgTypes{})
		if err != nil {
			return nil, nil, err
		}
		if !d.csvRows {
			raw, err := d.rawDialect(ctx, sample, in)
			if err != nil || raw != nil {
				return sample, raw, err
			}
		}
		// A column the sample sends as text (a job's JSONB) does so
		// whatever the other rows hold: say so before reading them all,
		// which LoadFiles would then do again.
		for _, c := range sample.Columns {
			if c.Text {
				return nil, nil, engine.ErrNotBuilt
			}
		}
	}
	src, err := rd.Describe(ctx, in, pgTypes{})
	if err != nil {
		return nil, nil, err
	}
	for _, c := range src.Columns {
		if c.Text {
			return nil, nil, engine.ErrNotBuilt
		}
	}
	return src, nil, nil
}

// copyInto creates stage and into, and copies the files into into while
// the reader checks every row against the sample's types.
func (d *DB) copyInto(ctx context.Context, tx *sql.Tx, stage string, into engine.Table, in engine.FileInput, src *filereader.Input, raw *filereader.CSVDialect, rec func(string)) (int64, error) {
	dl := Dialect{}
	exec := func(q string) error {
		rec(q)
		_, err := tx.ExecContext(ctx, q)
		return err
	}
	defs := make([]string, len(src.Columns))
	for i, c := range src.Columns {
		defs[i] = dl.Ident(c.Name) + " " + c.Type
	}
	if err := exec(fmt.Sprintf("CREATE TEMP TABLE %s (%s)", dl.Ident(stage), strings.Join(defs, ", "))); err != nil {
		return 0, fmt.Errorf("creating the staging table: %w", err)
	}
	create := dl.CreateTableFrom(into, stage, "")
	if err := exec(create[0]); err != nil { // the creation lock
		return 0, err
	}
	// Under the lock, a target another partition's first run created is
	// committed and seen: its rows are not this run's to place or delete.
	exists := fmt.Sprintf("SELECT to_regclass(%s) IS NOT NULL", dl.String(dl.Table(into)))
	rec(exists)
	var found bool
	if err := tx.QueryRowContext(ctx, exists).Scan(&found); err != nil {
		return 0, err
	}
	if found {
		return 0, engine.ErrNotBuilt
	}
	for _, q := range append(create[1:], in.Indexes...) {
		if err := exec(q); err != nil {
			return 0, fmt.Errorf("creating %s: %w", into.Name, err)
		}
	}
	how := "via COPY FROM STDIN (raw CSV: the server parses the files' bytes), straight into the new table"
	if raw == nil {
		how = fmt.Sprintf("via COPY FROM STDIN (binary rows: the embedded DuckDB reads the files and sends their rows in batches of %d), straight into the new table", filereader.BatchRows)
	}
	rec(engine.LoadNote(in.Paths, dl.Table(into), how))
	held := checkBeside(ctx, src, raw == nil) // without raw, described from every row
	var n int64
	err := d.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		var err error
		if raw == nil {
			table := pgx.Identifier{into.Name}
			if into.Schema != "" {
				table = pgx.Identifier{into.Schema, into.Name}
			}
			n, err = copyRows(ctx, pc, table, src, rec)
			return err
		}
		n, err = copyCSV(ctx, pc.PgConn(), dl.Table(into), in.Paths, src.Columns, raw, rec)
		return err
	})
	herr := <-held
	switch {
	case err != nil && lostConnection(err) != nil:
		return 0, err
	case errors.Is(herr, errTypesChanged):
		return 0, engine.ErrNotBuilt
	case herr != nil:
		return 0, herr // the input's error, as the reader names it
	case err != nil:
		return 0, err
	case n == 0:
		return 0, engine.ErrNotBuilt
	}
	return n, nil
}
