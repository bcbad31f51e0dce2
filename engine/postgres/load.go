package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/source"
	"github.com/idemdata/idem/source/filereader"
)

// Input files reach PostgreSQL in one of two ways, both with memory bounded
// whatever the file size:
//
//   - CSV whose dialect PostgreSQL parses the same way DuckDB does is streamed
//     as raw bytes into COPY … FROM STDIN (FORMAT csv): the server parses it.
//     DuckDB only sniffs the column types, from a sample.
//   - Anything else (JSON lines, Parquet, CSV with custom date formats or
//     other quirks) is read by an embedded DuckDB (source/filereader) into a
//     scratch database file and streamed, in batches of rows, with binary
//     COPY.
//
// Either way the columns and their types are DuckDB's, exactly as the DuckDB
// engine would stage them (explicit `columns:` types included), mapped to
// PostgreSQL types (pgTypes). See BENCHMARKS.md for why raw CSV goes first.

// LoadFiles streams the input files into a new temporary table stage, in tx.
func (d *DB) LoadFiles(ctx context.Context, tx *sql.Tx, stage string, in engine.FileInput) error {
	if len(in.Paths) == 0 {
		return errors.New("no input files")
	}
	rd, err := filereader.Open(ctx)
	if err != nil {
		return err
	}
	defer rd.Close()
	// What runs on the server is recorded (for golden files and `idem
	// plan`); the embedded reader's queries are not: they touch no target.
	rec := func(q string) {
		if in.Record != nil {
			in.Record(q)
		}
	}
	// Raw CSV starts from the types of the reader's sample, and its check
	// of every row runs beside COPY (the server's CPU and this process's
	// at once); the rows path needs the types of every row first.
	resolved := in.Format != "csv" || d.csvRows
	describe := rd.DescribeSample
	if resolved {
		describe = rd.Describe
	}
	src, err := describe(ctx, in, pgTypes{})
	if err != nil {
		return err
	}
	var raw *filereader.CSVDialect
	for {
		if raw, err = d.rawDialect(ctx, src, in); err != nil {
			return err
		}
		if raw == nil && !resolved {
			if src, err = rd.Describe(ctx, in, pgTypes{}); err != nil {
				return err
			}
			resolved = true
			continue
		}
		held, err := d.stageFiles(ctx, tx, stage, in, src, raw, resolved, rec)
		if err != nil || held {
			if err != nil {
				return err
			}
			break
		}
		// The sample's types do not hold for every row: the staged rows
		// are gone with the savepoint; read the files with the full types.
		if src, err = rd.Describe(ctx, in, pgTypes{}); err != nil {
			return err
		}
		resolved = true
	}
	return d.typeStaged(ctx, tx, stage, in, src.Columns, raw, rec)
}

// rawDialect is how COPY parses src's files as raw CSV, or nil when it
// cannot read them as the reader does.
func (d *DB) rawDialect(ctx context.Context, src *filereader.Input, in engine.FileInput) (*filereader.CSVDialect, error) {
	if in.Format != "csv" || d.csvRows {
		return nil, nil
	}
	raw, err := src.CSV(ctx)
	if err != nil || raw == nil {
		return nil, err
	}
	// PostgreSQL rounds a time's digits past the microsecond, where every
	// other reader drops them: 23:59:59.9999999 would be the next day's
	// midnight, in another partition.
	sub, err := source.FilesHoldSubMicroseconds(in.Paths)
	if err != nil || sub {
		return nil, err
	}
	return raw, nil
}

// rawSavepoint is where a raw load whose sample's types do not hold rolls
// back to.
const rawSavepoint = "idem_raw"

// stageFiles creates stage with src's columns and loads the files into it:
// raw CSV when raw is set, else the reader's rows. Unless resolved, the
// reader checks every row beside the raw load, inside a savepoint: when
// the types do not hold, it rolls back to it and reports false (the
// staged rows of the wrong types are gone, and so is the error a value
// of another type made COPY raise).
func (d *DB) stageFiles(ctx context.Context, tx *sql.Tx, stage string, in engine.FileInput, src *filereader.Input, raw *filereader.CSVDialect, resolved bool, rec func(string)) (bool, error) {
	dl := Dialect{}
	cols := src.Columns
	if raw != nil {
		rec(engine.LoadNote(in.Paths, dl.Ident(stage), "via COPY FROM STDIN (raw CSV: the server parses the files' bytes)"))
	} else {
		rec(engine.LoadNote(in.Paths, dl.Ident(stage), fmt.Sprintf(
			"via COPY FROM STDIN (binary rows: the embedded DuckDB reads the files and sends their rows in batches of %d)", filereader.BatchRows)))
	}
	exec := func(q string) error {
		rec(q)
		_, err := tx.ExecContext(ctx, q)
		return err
	}
	if !resolved {
		if err := exec("SAVEPOINT " + rawSavepoint); err != nil {
			return false, err
		}
	}
	defs := make([]string, len(cols))
	for i, c := range cols {
		typ := c.Type
		if raw == nil && c.Text {
			typ = "TEXT"
		}
		defs[i] = dl.Ident(c.Name) + " " + typ
	}
	if err := exec(fmt.Sprintf("CREATE TEMP TABLE %s (%s)", dl.Ident(stage), strings.Join(defs, ", "))); err != nil {
		return false, fmt.Errorf("creating the staging table: %w", err)
	}
	held := checkBeside(ctx, src, resolved)
	err := d.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if raw != nil {
			_, err := copyCSV(ctx, pc.PgConn(), dl.Ident(stage), in.Paths, cols, raw, rec)
			return err
		}
		_, err := copyRows(ctx, pc, pgx.Identifier{stage}, src, rec)
		return err
	})
	herr := <-held
	switch {
	case err != nil && lostConnection(err) != nil:
		return false, err
	case errors.Is(herr, errTypesChanged):
		return false, exec("ROLLBACK TO SAVEPOINT " + rawSavepoint)
	case herr != nil:
		return false, herr // the input's error, as the reader names it
	case err != nil:
		return false, err
	case !resolved:
		return true, exec("RELEASE SAVEPOINT " + rawSavepoint)
	}
	return true, nil
}

// checkBeside starts the reader's check that the sample's types hold for
// every row, unless they were read from every row (resolved); its answer
// comes on the channel: nil, errTypesChanged, or the input's error.
func checkBeside(ctx context.Context, src *filereader.Input, resolved bool) <-chan error {
	held := make(chan error, 1)
	if resolved {
		held <- nil
		return held
	}
	go func() {
		ok, err := src.Resolve(ctx)
		if err == nil && !ok {
			err = errTypesChanged
		}
		held <- err
	}()
	return held
}

// errTypesChanged: the types of the sample do not hold for every row.
var errTypesChanged = errors.New("the input's types differ from its sample's")

// typeStaged gives the staged columns their final types.
func (d *DB) typeStaged(ctx context.Context, tx *sql.Tx, stage string, in engine.FileInput, cols []filereader.Column, raw *filereader.CSVDialect, rec func(string)) error {
	dl := Dialect{}
	var err error
	// The staged columns get their final types in one ALTER (one rewrite,
	// and only when a type changes): on the rows path, text columns become
	// their type; and where the target exists, every column becomes the
	// target's type. An INSERT would cast to the target's types anyway, but
	// PostgreSQL has no implicit cast from text: a column empty in a whole
	// file, which DuckDB infers as VARCHAR, could not go into a BIGINT.
	final := map[string]string{}
	for _, c := range cols {
		if raw == nil && c.Text && !strings.EqualFold(c.Type, "TEXT") {
			final[c.Name] = c.Type
		}
	}
	var target map[string]string
	if in.Target.Name != "" {
		if target, err = columnTypes(ctx, tx, dl.Table(in.Target), rec); err != nil {
			return err
		}
		maps.Copy(final, target)
	}
	if len(final) == 0 {
		return nil
	}
	staged, err := columnTypes(ctx, tx, dl.Ident(stage), rec)
	if err != nil {
		return err
	}
	var alter []string
	for _, c := range cols {
		t, ok := final[c.Name]
		if !ok || t == staged[c.Name] {
			continue
		}
		// A cast that would lose or misread values (text into a date,
		// decimals into an integer) is left undone, so the runner reports
		// the type change with both types, as on every engine; a column
		// empty in the whole input has no values to lose.
		from := staged[c.Name]
		if raw == nil && c.Text { // text in transit only: compare its real type
			from = c.Type
		}
		if _, fromTarget := target[c.Name]; fromTarget && engine.TypeChange(c.Name, from, t) != "" {
			var n int64
			q := fmt.Sprintf("SELECT count(%s) FROM %s", dl.Ident(c.Name), dl.Ident(stage))
			rec(q)
			if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
		}
		alter = append(alter, fmt.Sprintf("ALTER COLUMN %s TYPE %s USING CAST(%s AS %s)", dl.Ident(c.Name), t, dl.Ident(c.Name), t))
	}
	if len(alter) > 0 {
		q := fmt.Sprintf("ALTER TABLE %s %s", dl.Ident(stage), strings.Join(alter, ", "))
		rec(q)
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("typing the staged columns: %w", err)
		}
	}
	return nil
}

// columnTypes returns a table's column types as PostgreSQL spells them
// (format_type: "bigint", "numeric(12,2)"), or none if it does not exist.
func columnTypes(ctx context.Context, tx *sql.Tx, table string, rec func(string)) (map[string]string, error) {
	const q = `SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute AS a
WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`
	rec(q)
	rows, err := tx.QueryContext(ctx, q, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		types[name] = typ
	}
	return types, rows.Err()
}

// pgTypes is PostgreSQL's side of the file reader.
type pgTypes struct{}

func (pgTypes) Type(duck string) (string, bool) { return pgType(duck) }

func (pgTypes) CSVText(typ string) bool {
	base, _, _ := strings.Cut(typ, "(")
	return slices.Contains(csvTypes, base)
}

var decimalRE = regexp.MustCompile(`^DECIMAL\((\d+),\s*(\d+)\)$`)

// pgType maps a DuckDB type to a PostgreSQL type, and says whether values
// travel as text (pgx binds the others natively).
func pgType(duck string) (pg string, text bool) {
	t := strings.ToUpper(duck)
	switch t {
	case "BOOLEAN":
		return "BOOLEAN", false
	case "TINYINT", "UTINYINT", "SMALLINT":
		return "SMALLINT", false
	case "USMALLINT", "INTEGER":
		return "INTEGER", false
	case "UINTEGER", "BIGINT":
		return "BIGINT", false
	case "UBIGINT", "HUGEINT", "UHUGEINT", "BIGNUM", "VARINT":
		return "NUMERIC", true
	case "FLOAT":
		return "REAL", false
	case "DOUBLE":
		return "DOUBLE PRECISION", false
	case "VARCHAR":
		return "TEXT", false
	case "DATE":
		return "DATE", false
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
		return "TIMESTAMP", false
	case "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ":
		return "TIMESTAMPTZ", false
	case "BLOB":
		return "BYTEA", false
	case "TIME":
		return "TIME", true
	case "TIME WITH TIME ZONE", "TIMETZ":
		return "TIMETZ", true
	case "INTERVAL":
		return "INTERVAL", true
	case "UUID":
		return "UUID", true
	case "JSON":
		return "JSONB", true
	}
	if m := decimalRE.FindStringSubmatch(t); m != nil {
		return "NUMERIC(" + m[1] + "," + m[2] + ")", false
	}
	if filereader.IsNested(t) {
		return "JSONB", true
	}
	return "TEXT", true // ENUM, BIT and the rest: their text
}

// csvTypes are the PostgreSQL types whose text input accepts what DuckDB's
// CSV reader accepts for the same column (ISO dates and times, plain
// numbers, true/false).
var csvTypes = []string{"BOOLEAN", "SMALLINT", "INTEGER", "BIGINT", "REAL", "DOUBLE PRECISION", "TEXT",
	"DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIME", "UUID", "NUMERIC"}

// copyCSV streams each file's bytes into COPY. Each file's own header gives
// its column order. A quoted empty field is NULL, as in DuckDB.
func copyCSV(ctx context.Context, pc *pgconn.PgConn, table string, paths []string, cols []filereader.Column, cd *filereader.CSVDialect, rec func(string)) (int64, error) {
	dl := Dialect{}
	all := make([]string, len(cols))
	for i, c := range cols {
		all[i] = dl.Ident(c.Name)
	}
	quote := cd.Quote
	if quote == "" {
		// DuckDB saw no quoting, so it reads a " as a plain character;
		// COPY then needs a quote character that never occurs in text.
		quote = "\x01"
	}
	opts := fmt.Sprintf("FORMAT csv, HEADER true, DELIMITER %s, QUOTE %s", dl.String(cd.Delim), dl.String(quote))
	if cd.Escape != "" {
		opts += ", ESCAPE " + dl.String(cd.Escape)
	}
	opts += ", FORCE_NULL (" + strings.Join(all, ", ") + ")"
	var n int64
	for _, p := range paths {
		h, err := filereader.Header(p, cd.Delim[0])
		if err != nil {
			return n, err
		}
		list := make([]string, len(h))
		for i, c := range h {
			list[i] = dl.Ident(c)
		}
		f, err := os.Open(p)
		if err != nil {
			return n, err
		}
		q := fmt.Sprintf("COPY %s (%s) FROM STDIN (%s)", table, strings.Join(list, ", "), opts)
		rec(q)
		tag, err := pc.CopyFrom(ctx, f, q)
		f.Close()
		if err != nil {
			return n, copyError(p, err)
		}
		n += tag.RowsAffected()
	}
	return n, nil
}

// copyError names the file, and the line and column the server names.
func copyError(path string, err error) error {
	if lostConnection(err) != nil { // not the file's fault: keep the cause for Interpret
		return fmt.Errorf("%s: %w", path, err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Where != "" {
		return fmt.Errorf("%s: %s (%s)", path, pe.Message, pe.Where)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// copyRows has the reader read the files into its scratch file, then
// streams the rows in batches with binary COPY: one batch at a time is in
// memory.
func copyRows(ctx context.Context, pc *pgx.Conn, table pgx.Identifier, src *filereader.Input, rec func(string)) (int64, error) {
	rows, err := src.Rows(ctx)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	// The statement pgx sends for CopyFrom, in this package's spelling.
	dl := Dialect{}
	names := make([]string, len(src.Columns))
	quoted := make([]string, len(src.Columns))
	for i, c := range src.Columns {
		names[i], quoted[i] = c.Name, dl.Ident(c.Name)
	}
	rec(fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", table.Sanitize(), strings.Join(quoted, ", ")))
	n, err := pc.CopyFrom(ctx, table, names, pgRows{rows})
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Where != "" && lostConnection(err) == nil {
			return n, fmt.Errorf("%s (%s)", pe.Message, pe.Where)
		}
		return n, err
	}
	return n, nil
}

// pgRows feeds CopyFrom from the reader, with its decimals as pgx binds
// them.
type pgRows struct{ *filereader.Rows }

func (r pgRows) Values() ([]any, error) {
	vals, err := r.Rows.Values()
	for i, v := range vals {
		if x, ok := v.(filereader.Decimal); ok {
			vals[i] = pgtype.Numeric{Int: x.Value, Exp: -int32(x.Scale), Valid: true}
		}
	}
	return vals, err
}
