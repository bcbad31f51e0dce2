package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
)

// The SQL of source/filereader, the embedded DuckDB through which engines
// that cannot read files themselves read them. It is here, with the rest of
// DuckDB's SQL, so that no package above engine/ writes SQL text.

// ReaderSettings are the statements that set up a reader's session; tmp is
// the folder it spills to.
func ReaderSettings(tmp string) []string {
	return []string{
		// Zoneless text read as TIMESTAMPTZ is UTC, as in the sessions Open
		// makes: every engine reads a file the same way.
		"SET TimeZone = 'UTC'",
		// The CSV reader takes a 32 MB buffer per thread that cannot
		// spill: at 128MB a million-row file failed now and then with
		// "could not allocate block of size 30.5 MiB" (internal/faults).
		"SET memory_limit = '512MB'",
		"SET temp_directory = " + Dialect{}.String(tmp),
	}
}

// KnowsType reports whether DuckDB knows a column type as written.
func KnowsType(ctx context.Context, q engine.Querier, typ string) bool {
	_, err := q.ExecContext(ctx, "SELECT CAST(NULL AS "+typ+")")
	return err == nil
}

// DescribeFiles returns the columns SelectFiles(in) (sel) yields: for one
// CSV file from its sniff (SniffColumns), else by DESCRIBE.
func DescribeFiles(ctx context.Context, q engine.Querier, in engine.FileInput, sel string) ([]engine.Column, error) {
	if cols, _, ok := SniffColumns(ctx, q, in); ok {
		return cols, nil
	}
	return Describe(ctx, q, sel)
}

// Describe returns the columns a query yields.
func Describe(ctx context.Context, q engine.Querier, sel string) ([]engine.Column, error) {
	rows, err := q.QueryContext(ctx, "DESCRIBE "+sel)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []engine.Column
	for rows.Next() {
		var name, typ string
		var null, key, def, extra any
		if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
			return nil, err
		}
		cols = append(cols, engine.Column{Name: name, Type: typ})
	}
	return cols, rows.Err()
}

// csvOptions are the read_csv options of a given dialect: lines up to 32
// MiB (CSVLineOptions), the delimiter read from the header, standard double
// quotes; with no delim, DuckDB sniffs the dialect.
func (d Dialect) csvOptions(delim string) string {
	if delim == "" {
		return CSVLineOptions
	}
	return CSVLineOptions + ", delim = " + d.String(delim) + `, quote = '"', escape = '"', skip = 0`
}

// CSVSniff is what DuckDB's sniffer reads of a CSV file's dialect. Quote and
// Escape may be "" or "(empty)" for none.
type CSVSniff struct {
	Delimiter, Quote, Escape    string
	SkipRows                    int64
	DateFormat, TimestampFormat string
	// NewLine and Comment, set by SniffColumns only, are the line ending
	// (as text: `\n`, `\r\n`) and the comment prefix ("" for none).
	NewLine, Comment string
}

// SniffCSV sniffs a CSV file, with the delimiter given as the readers are
// given it, or guessed when delim is empty.
func SniffCSV(ctx context.Context, q engine.Querier, path, delim string) (CSVSniff, error) {
	d := Dialect{}
	var s CSVSniff
	var dateFmt, tsFmt sql.NullString
	err := q.QueryRowContext(ctx, "SELECT Delimiter, Quote, Escape, SkipRows, DateFormat, TimestampFormat FROM sniff_csv("+d.String(path)+d.csvOptions(delim)+")").
		Scan(&s.Delimiter, &s.Quote, &s.Escape, &s.SkipRows, &dateFmt, &tsFmt)
	s.DateFormat, s.TimestampFormat = dateFmt.String, tsFmt.String
	return s, err
}

// SniffColumns sniffs a one-file CSV input as SelectFiles(in) reads it,
// and returns the columns DESCRIBE of that query gives and the date and
// timestamp formats the read parses with: one sniff of the file, where
// DESCRIBE and a sniff_csv for the formats are two (DESCRIBE binds the
// reader, 80–120 ms for a 60 MB file here; sniff_csv 45). A read of
// several files sniffs the first and is described (ok false), as is a
// file the sniffer refuses: DESCRIBE's error is the one users see.
func SniffColumns(ctx context.Context, q engine.Querier, in engine.FileInput) (cols []engine.Column, s CSVSniff, ok bool) {
	if in.Format != "csv" || len(in.Paths) != 1 {
		return nil, s, false
	}
	d := Dialect{}
	var names, types any
	var dateFmt, tsFmt, newLine, comment sql.NullString
	err := q.QueryRowContext(ctx, "SELECT list_transform(Columns, c -> c.name), list_transform(Columns, c -> c.type), DateFormat, TimestampFormat, NewLineDelimiter, Comment FROM sniff_csv("+
		d.String(in.Paths[0])+", "+d.csvReadOptions(in)+")").Scan(&names, &types, &dateFmt, &tsFmt, &newLine, &comment)
	n, okN := names.([]any)
	t, okT := types.([]any)
	if err != nil || !okN || !okT || len(n) != len(t) || len(n) == 0 {
		return nil, s, false
	}
	for i := range n {
		name, okN := n[i].(string)
		typ, okT := t[i].(string)
		if !okN || !okT {
			return nil, s, false
		}
		cols = append(cols, engine.Column{Name: name, Type: typ})
	}
	s.DateFormat, s.TimestampFormat = dateFmt.String, tsFmt.String
	s.NewLine, s.Comment = newLine.String, comment.String
	if s.Comment == "(empty)" {
		s.Comment = ""
	}
	return cols, s, true
}

// IsNested reports whether a DuckDB type is a list, array, struct, map or
// union.
func IsNested(typ string) bool {
	t := strings.ToUpper(typ)
	return strings.HasSuffix(t, "]") || strings.HasPrefix(t, "STRUCT") || strings.HasPrefix(t, "MAP") || strings.HasPrefix(t, "UNION")
}

// readerTable holds what a reader materialized.
const readerTable = "src"

// Materialize reads sel into the reader's table and returns its row count.
func Materialize(ctx context.Context, q engine.Querier, sel string) (int64, error) {
	if _, err := q.ExecContext(ctx, "CREATE TABLE "+readerTable+" AS "+sel); err != nil {
		return 0, err
	}
	var n int64
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+readerTable).Scan(&n)
	return n, err
}

// RowRange is the query yielding the materialized rows whose rowid is in
// [$1, $2): each column as itself, or as its text where text[i] is set, and
// a nested value as its JSON text.
func RowRange(cols []engine.Column, text []bool) string {
	d := Dialect{}
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = d.Ident(c.Name)
		switch {
		case IsNested(c.Type):
			exprs[i] = fmt.Sprintf("CAST(to_json(%s) AS VARCHAR)", exprs[i])
		case text[i]:
			exprs[i] = fmt.Sprintf("CAST(%s AS VARCHAR)", exprs[i])
		}
	}
	return "SELECT " + strings.Join(exprs, ", ") + " FROM " + readerTable + " WHERE rowid >= $1 AND rowid < $2"
}
