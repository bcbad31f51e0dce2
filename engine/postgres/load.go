package postgres

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemdata/idem/engine"
	duckdbengine "github.com/idemdata/idem/engine/duckdb"
)

// Input files reach PostgreSQL in one of two ways, both with memory bounded
// whatever the file size:
//
//   - CSV whose dialect PostgreSQL parses the same way DuckDB does is streamed
//     as raw bytes into COPY … FROM STDIN (FORMAT csv): the server parses it.
//     DuckDB only sniffs the column types, from a sample.
//   - Anything else (JSON lines, Parquet, CSV with custom date formats or
//     other quirks) is read by an embedded DuckDB into a scratch database
//     file and streamed, in batches of rows, with binary COPY.
//
// Either way the columns and their types are DuckDB's, exactly as the DuckDB
// engine would stage them (explicit `columns:` types included), mapped to
// PostgreSQL types. See BENCHMARKS.md for why raw CSV goes first.

// copyMode chooses how CSV reaches the server; benchmarks set it.
var copyMode = "auto" // auto | rows

// rowBatch is how many rows one DuckDB query materializes on the rows path.
const rowBatch = 100_000

// inColumn is one input column: as DuckDB reads it, and as it is staged.
type inColumn struct {
	name string
	duck string // DuckDB's type
	pg   string // the staged column's type
	// text: on the rows path the value travels as DuckDB's text and the
	// server casts it to pg once loaded (types pgx cannot bind natively, or
	// that DuckDB does not know).
	text bool
	// pgOnly: the job gave a type DuckDB does not know; pg is it, as written.
	pgOnly bool
	// expr is what DuckDB selects for this column on the rows path.
	expr string
}

// LoadFiles streams the input files into a new temporary table stage, in tx.
func (d *DB) LoadFiles(ctx context.Context, tx *sql.Tx, stage string, in engine.FileInput) error {
	if len(in.Paths) == 0 {
		return errors.New("no input files")
	}
	rd, err := newReader(ctx)
	if err != nil {
		return err
	}
	defer rd.close()
	sel, cols, err := rd.describe(ctx, in)
	if err != nil {
		return err
	}
	dl := Dialect{}
	var raw *csvDialect
	if in.Format == "csv" && copyMode == "auto" {
		if raw, err = rd.csvCopyable(ctx, in, cols); err != nil {
			return err
		}
	}
	// What runs on the server is recorded (for golden files and `idem
	// plan`); the embedded reader's queries are not: they touch no target.
	rec := func(q string) {
		if in.Record != nil {
			in.Record(q)
		}
	}
	if raw != nil {
		rec(engine.LoadNote(in.Paths, dl.Ident(stage), "via COPY FROM STDIN (raw CSV: the server parses the files' bytes)"))
	} else {
		rec(engine.LoadNote(in.Paths, dl.Ident(stage), fmt.Sprintf(
			"via COPY FROM STDIN (binary rows: the embedded DuckDB reads the files and sends their rows in batches of %d)", rowBatch)))
	}
	defs := make([]string, len(cols))
	for i, c := range cols {
		typ := c.pg
		if raw == nil && c.text {
			typ = "TEXT"
		}
		defs[i] = dl.Ident(c.name) + " " + typ
	}
	create := fmt.Sprintf("CREATE TEMP TABLE %s (%s)", dl.Ident(stage), strings.Join(defs, ", "))
	rec(create)
	if _, err := tx.ExecContext(ctx, create); err != nil {
		return fmt.Errorf("creating the staging table: %w", err)
	}
	err = d.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if raw != nil {
			return copyCSV(ctx, pc.PgConn(), stage, in.Paths, cols, raw, rec)
		}
		return rd.copyRows(ctx, pc, stage, sel, cols, rec)
	})
	if err != nil {
		return err
	}

	// The staged columns get their final types in one ALTER (one rewrite,
	// and only when a type changes): on the rows path, text columns become
	// their type; and where the target exists, every column becomes the
	// target's type. An INSERT would cast to the target's types anyway, but
	// PostgreSQL has no implicit cast from text: a column empty in a whole
	// file, which DuckDB infers as VARCHAR, could not go into a BIGINT.
	final := map[string]string{}
	for _, c := range cols {
		if raw == nil && c.text && !strings.EqualFold(c.pg, "TEXT") {
			final[c.name] = c.pg
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
		t, ok := final[c.name]
		if !ok || t == staged[c.name] {
			continue
		}
		// A cast that would lose or misread values (text into a date,
		// decimals into an integer) is left undone, so the runner reports
		// the type change with both types, as on every engine; a column
		// empty in the whole input has no values to lose.
		from := staged[c.name]
		if raw == nil && c.text { // text in transit only: compare its real type
			from = c.pg
		}
		if _, fromTarget := target[c.name]; fromTarget && engine.TypeChange(c.name, from, t) != "" {
			var n int64
			q := fmt.Sprintf("SELECT count(%s) FROM %s", dl.Ident(c.name), dl.Ident(stage))
			rec(q)
			if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
		}
		alter = append(alter, fmt.Sprintf("ALTER COLUMN %s TYPE %s USING CAST(%s AS %s)", dl.Ident(c.name), t, dl.Ident(c.name), t))
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

// reader is an embedded DuckDB with a scratch database file, so what it
// materializes can spill to disk instead of growing in memory.
type reader struct {
	dir  string
	db   *sql.DB
	conn *sql.Conn
}

func newReader(ctx context.Context) (*reader, error) {
	dir, err := newScratchDir()
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, "scratch.duckdb"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	rd := &reader{dir: dir, db: db, conn: conn}
	for _, q := range []string{
		// Zoneless text read as TIMESTAMPTZ is UTC, as in the sessions Open
		// makes: both paths read a file the same way.
		"SET TimeZone = 'UTC'",
		// The CSV reader takes a 32 MB buffer per thread that cannot
		// spill: at 128MB a million-row file failed now and then with
		// "could not allocate block of size 30.5 MiB" (internal/faults).
		"SET memory_limit = '512MB'",
		"SET temp_directory = " + duckdbengine.Dialect{}.String(filepath.Join(dir, "tmp")),
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			rd.close()
			return nil, fmt.Errorf("embedded duckdb: %w", err)
		}
	}
	return rd, nil
}

func (rd *reader) close() {
	rd.conn.Close()
	rd.db.Close()
	os.RemoveAll(rd.dir)
}

// describe returns DuckDB's query reading the files and the columns it
// yields. An explicit type DuckDB does not know (JSONB, INET, CITEXT…) is
// read as text and given to PostgreSQL as written.
func (rd *reader) describe(ctx context.Context, in engine.FileInput) (string, []inColumn, error) {
	pgOnly := map[string]string{}
	types := map[string]string{}
	for c, t := range in.Types {
		types[c] = t
		if _, err := rd.conn.ExecContext(ctx, "SELECT CAST(NULL AS "+t+")"); err != nil {
			pgOnly[c] = t
			types[c] = "VARCHAR"
		}
	}
	in.Types = types
	// Types the sniffer's sample gets wrong for later rows are fixed over
	// every row here, before either path: PostgreSQL's TIMESTAMP input, like
	// DuckDB's, drops a UTC offset without a word.
	in, err := duckdbengine.Resolve(ctx, rd.conn, in)
	if err != nil {
		return "", nil, err
	}
	dd := duckdbengine.Dialect{}
	sel, err := dd.SelectFiles(in)
	if err != nil {
		return "", nil, err
	}
	rows, err := rd.conn.QueryContext(ctx, "DESCRIBE "+sel)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	var cols []inColumn
	for rows.Next() {
		var name, typ string
		var null, key, def, extra sql.NullString
		if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
			return "", nil, err
		}
		c := inColumn{name: name, duck: typ}
		if t, ok := pgOnly[name]; ok {
			c.pg, c.text, c.pgOnly = t, true, true
		} else {
			c.pg, c.text = pgType(typ)
		}
		c.expr = dd.Ident(name)
		switch {
		case isNested(typ):
			c.expr = fmt.Sprintf("CAST(to_json(%s) AS VARCHAR)", c.expr)
		case c.text:
			c.expr = fmt.Sprintf("CAST(%s AS VARCHAR)", c.expr)
		}
		cols = append(cols, c)
	}
	return sel, cols, rows.Err()
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
	if isNested(t) {
		return "JSONB", true
	}
	return "TEXT", true // ENUM, BIT and the rest: their text
}

func isNested(duck string) bool {
	t := strings.ToUpper(duck)
	return strings.HasSuffix(t, "]") || strings.HasPrefix(t, "STRUCT") || strings.HasPrefix(t, "MAP") || strings.HasPrefix(t, "UNION")
}

// isoFormat matches the date and timestamp formats DuckDB sniffs for ISO
// 8601 text, which PostgreSQL's input functions read the same way.
var isoFormat = regexp.MustCompile(`^(%Y-%m-%d([ T]%H:%M:%S(\.%[fgn])?(%z)?)?)?$`)

// csvDialect is how COPY must parse the files.
type csvDialect struct {
	delim, quote, escape string
}

// csvTypes are the PostgreSQL types whose text input accepts what DuckDB's
// CSV reader accepts for the same column (ISO dates and times, plain
// numbers, true/false).
var csvTypes = []string{"BOOLEAN", "SMALLINT", "INTEGER", "BIGINT", "REAL", "DOUBLE PRECISION", "TEXT",
	"DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIME", "UUID", "NUMERIC"}

// csvCopyable decides whether the server may parse the files itself: DuckDB
// sniffed a dialect COPY can express, no custom date formats, no skipped
// rows, column types parsed alike, and every file's header naming the
// columns DuckDB found. It returns nil when not.
func (rd *reader) csvCopyable(ctx context.Context, in engine.FileInput, cols []inColumn) (*csvDialect, error) {
	paths := in.Paths
	for _, c := range cols {
		if base, _, _ := strings.Cut(c.pg, "("); !c.pgOnly && !slices.Contains(csvTypes, base) {
			return nil, nil
		}
	}
	var delim, quote, escape string
	var skip int64
	var dateFmt, tsFmt sql.NullString
	dd := duckdbengine.Dialect{}
	opts := ""
	if in.Delim != "" { // as the DuckDB reader reads it
		opts = ", delim = " + dd.String(in.Delim) + `, quote = '"', escape = '"', skip = 0`
	}
	err := rd.conn.QueryRowContext(ctx, "SELECT Delimiter, Quote, Escape, SkipRows, DateFormat, TimestampFormat FROM sniff_csv("+dd.String(in.Paths[0])+opts+")").
		Scan(&delim, &quote, &escape, &skip, &dateFmt, &tsFmt)
	if err != nil {
		return nil, err
	}
	if len(delim) != 1 || skip != 0 || !isoFormat.MatchString(dateFmt.String) || !isoFormat.MatchString(tsFmt.String) {
		return nil, nil
	}
	cd := &csvDialect{delim: delim, quote: quote}
	switch quote {
	case `"`:
	case "", "(empty)":
		// DuckDB saw no quoting, so it reads a " as a plain character;
		// COPY then needs a quote character that never occurs in text.
		cd.quote = "\x01"
	default:
		return nil, nil
	}
	switch escape {
	case "", "(empty)", `"`:
	default:
		if len(escape) != 1 {
			return nil, nil
		}
		cd.escape = escape
	}
	want := make([]string, len(cols))
	for i, c := range cols {
		want[i] = c.name
	}
	sort.Strings(want)
	for _, p := range paths {
		h, err := csvHeader(p, delim[0])
		if err != nil {
			return nil, err
		}
		slices.Sort(h)
		if !slices.Equal(h, want) {
			return nil, nil
		}
	}
	return cd, nil
}

// csvHeader reads a file's first record.
func csvHeader(path string, delim byte) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma = rune(delim)
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, nil // not for encoding/csv: let DuckDB read it
	}
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	}
	return rec, nil
}

// copyCSV streams each file's bytes into COPY. Each file's own header gives
// its column order. A quoted empty field is NULL, as in DuckDB.
func copyCSV(ctx context.Context, pc *pgconn.PgConn, stage string, paths []string, cols []inColumn, cd *csvDialect, rec func(string)) error {
	dl := Dialect{}
	all := make([]string, len(cols))
	for i, c := range cols {
		all[i] = dl.Ident(c.name)
	}
	opts := fmt.Sprintf("FORMAT csv, HEADER true, DELIMITER %s, QUOTE %s", dl.String(cd.delim), dl.String(cd.quote))
	if cd.escape != "" {
		opts += ", ESCAPE " + dl.String(cd.escape)
	}
	opts += ", FORCE_NULL (" + strings.Join(all, ", ") + ")"
	for _, p := range paths {
		h, err := csvHeader(p, cd.delim[0])
		if err != nil {
			return err
		}
		list := make([]string, len(h))
		for i, c := range h {
			list[i] = dl.Ident(c)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		q := fmt.Sprintf("COPY %s (%s) FROM STDIN (%s)", dl.Ident(stage), strings.Join(list, ", "), opts)
		rec(q)
		_, err = pc.CopyFrom(ctx, f, q)
		f.Close()
		if err != nil {
			return copyError(p, err)
		}
	}
	return nil
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

// copyRows has DuckDB read the files into its scratch file, then streams the
// rows in batches with binary COPY: one batch at a time is in memory.
func (rd *reader) copyRows(ctx context.Context, pc *pgx.Conn, stage, sel string, cols []inColumn, rec func(string)) error {
	if _, err := rd.conn.ExecContext(ctx, "CREATE TABLE src AS "+sel); err != nil {
		return duckError(err)
	}
	var total int64
	if err := rd.conn.QueryRowContext(ctx, "SELECT count(*) FROM src").Scan(&total); err != nil {
		return err
	}
	exprs := make([]string, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		exprs[i], names[i] = c.expr, c.name
	}
	src := &batchSource{ctx: ctx, conn: rd.conn, total: total,
		query: "SELECT " + strings.Join(exprs, ", ") + " FROM src WHERE rowid >= $1 AND rowid < $2",
		vals:  make([]any, len(cols)), ptrs: make([]any, len(cols))}
	for i := range src.vals {
		src.ptrs[i] = &src.vals[i]
	}
	defer src.close()
	// The statement pgx sends for CopyFrom, in this package's spelling.
	dl := Dialect{}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = dl.Ident(n)
	}
	rec(fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", dl.Ident(stage), strings.Join(quoted, ", ")))
	if _, err := pc.CopyFrom(ctx, pgx.Identifier{stage}, names, src); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Where != "" && lostConnection(err) == nil {
			return fmt.Errorf("%s (%s)", pe.Message, pe.Where)
		}
		return err
	}
	return nil
}

// batchSource feeds CopyFrom from DuckDB, one rowid range at a time.
type batchSource struct {
	ctx        context.Context
	conn       *sql.Conn
	query      string
	total, lo  int64
	rows       *sql.Rows
	vals, ptrs []any
	err        error
}

func (s *batchSource) Next() bool {
	for {
		if s.rows == nil {
			if s.lo >= s.total {
				return false
			}
			s.rows, s.err = s.conn.QueryContext(s.ctx, s.query, s.lo, s.lo+rowBatch)
			if s.err != nil {
				return false
			}
			s.lo += rowBatch
		}
		if s.rows.Next() {
			if s.err = s.rows.Scan(s.ptrs...); s.err != nil {
				return false
			}
			return true
		}
		if s.err = s.rows.Err(); s.err != nil {
			return false
		}
		s.rows.Close()
		s.rows = nil
	}
}

// Values converts DuckDB's Go values into ones pgx binds.
func (s *batchSource) Values() ([]any, error) {
	out := make([]any, len(s.vals))
	for i, v := range s.vals {
		switch x := v.(type) {
		case int8:
			out[i] = int64(x)
		case int16:
			out[i] = int64(x)
		case int32:
			out[i] = int64(x)
		case uint8:
			out[i] = int64(x)
		case uint16:
			out[i] = int64(x)
		case uint32:
			out[i] = int64(x)
		case duckdb.Decimal:
			out[i] = pgtype.Numeric{Int: x.Value, Exp: -int32(x.Scale), Valid: true}
		default:
			out[i] = v
		}
	}
	return out, nil
}

func (s *batchSource) Err() error { return s.err }

func (s *batchSource) close() {
	if s.rows != nil {
		s.rows.Close()
	}
}

// duckError keeps the part of a DuckDB reader error that says what is wrong
// and where (its first paragraph and the file), not the dump of reader
// options that follows.
func duckError(err error) error {
	msg := err.Error()
	head, rest, found := strings.Cut(msg, "\n\n")
	if !found {
		return err
	}
	head = strings.ReplaceAll(head, "\n", "; ")
	for line := range strings.SplitSeq(rest, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "file = "); ok {
			head += " (file " + f + ")"
			break
		}
	}
	return &condensedError{msg: head, err: err}
}

type condensedError struct {
	msg string
	err error
}

func (e *condensedError) Error() string { return e.msg }
func (e *condensedError) Unwrap() error { return e.err }
