package clickhouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/source"
	"github.com/idemdata/idem/source/filereader"
)

// Input files reach embedded ClickHouse as Parquet: the embedded DuckDB
// every engine shares (source/filereader) reads them, typed exactly as the
// DuckDB engine stages them, and writes one Parquet file, which ClickHouse
// reads with file() into the staging table. Memory stays bounded by the
// reader's spilling, and ClickHouse parses Parquet in parallel.

// LoadFiles loads the input files into a new session table stage.
func (d *DB) LoadFiles(ctx context.Context, tx *sql.Tx, stage string, in engine.FileInput) error {
	if len(in.Paths) == 0 {
		return errors.New("no input files")
	}
	rd, err := filereader.Open(ctx)
	if err != nil {
		return err
	}
	defer rd.Close()
	src, err := rd.Describe(ctx, in, chTypes{})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "idem-chdb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pq := filepath.Join(dir, "input.parquet")
	if err := src.WriteParquet(ctx, pq); err != nil {
		return err
	}
	// The runner stages outside its (empty) transaction on this engine.
	var ex engine.Querier = d.conn
	if tx != nil {
		ex = tx
	}
	q := Dialect{}
	rec := func(s string) {
		if in.Record != nil {
			in.Record(s)
		}
	}
	rec(engine.LoadNote(in.Paths, q.Ident(stage), "via Parquet (the embedded DuckDB reads the files and writes their rows to one Parquet file, which ClickHouse reads)"))
	defs := make([]string, len(src.Columns))
	for i, c := range src.Columns {
		typ := c.Type
		if c.Unknown && !strings.HasPrefix(typ, "Nullable(") { // the job's type, as written
			typ = "Nullable(" + typ + ")"
		}
		defs[i] = q.Ident(c.Name) + " " + typ
	}
	stmts := []string{
		"DROP TABLE IF EXISTS " + q.Ident(stage),
		fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s) ENGINE = Memory", q.Ident(stage), strings.Join(defs, ", ")),
	}
	for _, s := range stmts {
		rec(s)
		if _, err := ex.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("creating the staging table: %w", err)
		}
	}
	// The file's path is the run's own scratch file, not the input's: it
	// is not recorded, so plans and golden files do not depend on it.
	ins := fmt.Sprintf("INSERT INTO %s SELECT * FROM file(%s, Parquet)", q.Ident(stage), q.String(pq))
	rec(fmt.Sprintf("INSERT INTO %s SELECT * FROM file(<the Parquet file>, Parquet)", q.Ident(stage)))
	if _, err := ex.ExecContext(ctx, ins); err != nil {
		return fmt.Errorf("loading the staged rows: %w", err)
	}
	if in.Target.Name != "" {
		return toTargetTypes(ctx, ex, stage, in.Target, rec)
	}
	return nil
}

// toTargetTypes converts the staged columns to the existing target's
// types, as an INSERT into it would, but strictly: a value the target's
// type cannot hold (an unparsable date, an integer out of range) is an
// error, which the runner locates by file and line. ClickHouse's own
// conversions would turn it into NULL, or wrap it around.
func toTargetTypes(ctx context.Context, q engine.Querier, stage string, target engine.Table, rec func(string)) error {
	d := Dialect{}
	exists, args := d.TableExists(target)
	var one int
	if err := q.QueryRowContext(ctx, exists, args...).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	targetCols, err := columnTypes(ctx, q, d.Table(target))
	if err != nil {
		return err
	}
	want := map[string]string{}
	for _, c := range targetCols {
		want[c.Name] = c.Type
	}
	have, err := columnTypes(ctx, q, d.Ident(stage))
	if err != nil {
		return err
	}
	for _, c := range have {
		// Only the kinds the runner can locate a bad value of (integers,
		// dates, timestamps); other changes are the runner's to refuse.
		typ, ok := want[c.Name]
		if !ok || typ == c.Type || source.KindOfType(typ) == source.KindOther {
			continue
		}
		check := fmt.Sprintf("SELECT toString(%s) FROM %s WHERE %s IS NOT NULL AND %s LIMIT 1",
			d.Ident(c.Name), d.Ident(stage), d.Ident(c.Name), unreadable(d.Ident(c.Name), c.Type, typ))
		rec(check)
		var bad string
		switch err := q.QueryRowContext(ctx, check).Scan(&bad); {
		case err == nil:
			return fmt.Errorf("column %q: %q cannot be read as %s, the target's type", c.Name, bad, typ)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		alter := fmt.Sprintf("ALTER TABLE %s MODIFY COLUMN %s %s", d.Ident(stage), d.Ident(c.Name), typ)
		rec(alter)
		if _, err := q.ExecContext(ctx, alter); err != nil {
			return err
		}
	}
	return nil
}

// unreadable holds when col's value (of type from) is no value of type to.
// Text read as a date must read back as itself: ClickHouse reads
// 2024-13-45 as 1900-01-01.
func unreadable(col, from, to string) string {
	d := Dialect{}
	if BaseType(from) == "String" {
		switch source.KindOfType(to) {
		case source.KindDate:
			return fmt.Sprintf("toString(toDate32OrNull(%s)) IS DISTINCT FROM trim(%s)", col, col)
		case source.KindTimestamp:
			return fmt.Sprintf("parseDateTime64BestEffortOrNull(%s, 6, 'UTC') IS NULL", col)
		}
	}
	return fmt.Sprintf("accurateCastOrNull(%s, %s) IS NULL", col, d.String(BaseType(to)))
}

// columnTypes reads a table's columns and their types.
func columnTypes(ctx context.Context, q engine.Querier, table string) ([]engine.Column, error) {
	rows, err := q.QueryContext(ctx, "SELECT * FROM "+table+" LIMIT 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]engine.Column, len(types))
	for i, t := range types {
		cols[i] = engine.Column{Name: t.Name(), Type: t.DatabaseTypeName()}
	}
	return cols, nil
}

// chTypes maps the reader's (DuckDB's) types to ClickHouse's: every column
// Nullable, so a NULL stays NULL.
type chTypes struct{}

func (chTypes) Type(reader string) (string, bool) {
	t := strings.ToUpper(strings.TrimSpace(reader))
	if filereader.IsNested(reader) {
		return "Nullable(String)", true
	}
	base, args, _ := strings.Cut(t, "(")
	simple := map[string]string{
		"BOOLEAN": "Bool", "TINYINT": "Int8", "SMALLINT": "Int16", "INTEGER": "Int32", "BIGINT": "Int64",
		"HUGEINT": "Int128", "UTINYINT": "UInt8", "USMALLINT": "UInt16", "UINTEGER": "UInt32", "UBIGINT": "UInt64",
		"UHUGEINT": "UInt128", "FLOAT": "Float32", "DOUBLE": "Float64", "VARCHAR": "String", "DATE": "Date32",
		"TIMESTAMP": "DateTime64(6)", "TIMESTAMP WITH TIME ZONE": "DateTime64(6, 'UTC')", "TIMESTAMPTZ": "DateTime64(6, 'UTC')",
		"TIMESTAMP_NS": "DateTime64(9)", "TIMESTAMP_MS": "DateTime64(3)", "TIMESTAMP_S": "DateTime64(0)", "UUID": "UUID",
	}
	switch {
	case base == "DECIMAL":
		return "Nullable(Decimal(" + args + ")", false
	case simple[t] != "":
		text := t == "HUGEINT" || t == "UHUGEINT"
		return "Nullable(" + simple[t] + ")", text
	}
	return "Nullable(String)", true
}

// CSVText: the rows always travel as Parquet.
func (chTypes) CSVText(string) bool { return false }

// CheckType reports whether a `columns:` type can be used: ClickHouse
// knows it (it is staged as written), or the reader does (DuckDB's names,
// mapped by chTypes).
func (d *DB) CheckType(ctx context.Context, typ string) error {
	_, err := d.conn.ExecContext(ctx, "SELECT CAST(NULL AS Nullable("+typ+"))")
	if err == nil {
		return nil
	}
	reader, rerr := sql.Open("duckdb", "")
	if rerr != nil {
		return rerr
	}
	defer reader.Close()
	if duckdb.KnowsType(ctx, reader, typ) {
		return nil
	}
	return err
}

var _ engine.TypeChecker = (*DB)(nil)
