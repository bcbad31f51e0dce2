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
	return nil
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
