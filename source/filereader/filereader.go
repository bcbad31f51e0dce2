// Package filereader reads input files for engines that cannot read them
// the way DuckDB does: an embedded DuckDB, with a scratch database file so
// what it materializes can spill to disk instead of growing in memory.
//
// Every engine thus parses input exactly as the DuckDB engine stages it
// (explicit `columns:` types included). An engine supplies only a type
// mapping (Types) and a bulk sink. The reader describes the input's columns
// (Describe), says whether a CSV file's bytes can go to the engine's own CSV
// loader as they are (Input.CSV), and otherwise yields the rows, in batches
// of BatchRows, with memory bounded whatever the file size (Input.Rows).
//
// It is a package of its own, apart from source, because it needs cgo.
package filereader

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/idemdata/idem/engine"
	duckdbengine "github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/internal/scratch"
)

// BatchRows is how many rows one query of the reader materializes on the
// rows path.
const BatchRows = 100_000

// Types is an engine's side of the reader: its names for the reader's
// (DuckDB's) column types.
type Types interface {
	// Type maps a reader type to the engine's type, and says whether its
	// values travel as text on the rows path (the engine casts them once
	// loaded: types its driver cannot bind natively, nested values as JSON).
	Type(reader string) (typ string, text bool)
	// CSVText reports whether the engine's CSV loader reads a column of
	// the engine type typ from the text DuckDB's CSV reader accepts for it
	// (ISO dates and times, plain numbers, true/false) the same way.
	CSVText(typ string) bool
}

// Column is one input column: as the reader reads it, and as the engine
// stages it.
type Column struct {
	Name   string
	Reader string // the reader's (DuckDB's) type
	Type   string // the engine's type
	// Text: on the rows path the value travels as the reader's text.
	Text bool
	// Unknown: the job gave a type the reader does not know (JSONB, INET,
	// CITEXT…); the reader reads the column as text, and Type is the job's
	// type as written, for the engine to cast to.
	Unknown bool
}

// Reader is an embedded DuckDB with a scratch folder of its own.
type Reader struct {
	dir  string
	db   *sql.DB
	conn *sql.Conn
}

// Open starts a reader; Close removes its scratch folder.
func Open(ctx context.Context) (*Reader, error) {
	dir, err := scratch.New("idem-load-")
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
	rd := &Reader{dir: dir, db: db, conn: conn}
	for _, q := range duckdbengine.ReaderSettings(filepath.Join(dir, "tmp")) {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			rd.Close()
			return nil, fmt.Errorf("embedded duckdb: %w", err)
		}
	}
	return rd, nil
}

// ScratchFile is the path of a file named name in the reader's scratch
// folder: removed with it by Close, and by a later run if this process is
// killed.
func (rd *Reader) ScratchFile(name string) string { return filepath.Join(rd.dir, name) }

// Close ends the reader and removes its scratch folder.
func (rd *Reader) Close() {
	rd.conn.Close()
	rd.db.Close()
	os.RemoveAll(rd.dir)
}

// Input is input files described: their columns, and how to read them.
type Input struct {
	Columns []Column
	in      engine.FileInput // as resolved
	sel     string           // the reader's query of the files
	read    []engine.Column  // what the reader says of sel's columns
	rd      *Reader
	types   Types
	warm    *warmUp // the warm-up whose answers describe took, if any
}

// Describe reads the files' columns and their types, mapped by t. A type
// the job gives that the reader does not know is read as text and handed
// to the engine as written (Column.Unknown).
func (rd *Reader) Describe(ctx context.Context, in engine.FileInput, t Types) (*Input, error) {
	in, unknown := rd.known(ctx, in)
	// Types the sniffer's sample gets wrong for later rows are fixed over
	// every row here, before either path: PostgreSQL's TIMESTAMP input, like
	// DuckDB's, drops a UTC offset without a word.
	in, err := duckdbengine.Resolve(ctx, rd.conn, in)
	if err != nil {
		return nil, err
	}
	return rd.describe(ctx, in, unknown, t, nil)
}

// DescribeSample is Describe with the types the sniffer reads from a
// sample of the rows, without the pass over every row that confirms them:
// for an engine that loads the files' bytes itself while Input.Resolve
// reads every row beside it. What it describes must not be relied on
// until Resolve has said the types hold, or the engine has checked that
// every value has a form the sniffer takes for its column's type.
func (rd *Reader) DescribeSample(ctx context.Context, in engine.FileInput, t Types) (*Input, error) {
	w := warmFor(in)
	in, unknown := rd.known(ctx, in)
	return rd.describe(ctx, in, unknown, t, w)
}

// Resolve reads every row for what a sample can get wrong (see
// duckdb.Resolve) and reports whether the types DescribeSample gave hold.
// When they do not, describe the files again with Describe. An error is
// the input's (a value with a UTC offset in a column declared without
// one). It uses the reader's connection: nothing else may meanwhile.
func (in *Input) Resolve(ctx context.Context) (bool, error) {
	resolved, err := duckdbengine.ResolveDescribed(ctx, in.rd.conn, in.in, slices.Clone(in.read))
	if err != nil {
		return false, err
	}
	return maps.Equal(resolved.Types, in.in.Types) && resolved.Columns == nil, nil
}

// known returns in with the types the job gives that the reader does not
// know read as text, and those types by column.
func (rd *Reader) known(ctx context.Context, in engine.FileInput) (engine.FileInput, map[string]string) {
	unknown := map[string]string{}
	types := map[string]string{}
	for c, typ := range in.Types {
		types[c] = typ
		if !duckdbengine.KnowsType(ctx, rd.conn, typ) {
			unknown[c] = typ
			types[c] = "VARCHAR"
		}
	}
	in.Types = types
	return in, unknown
}

// describe describes in's columns, with the answers of the warm-up w
// where it has them.
func (rd *Reader) describe(ctx context.Context, in engine.FileInput, unknown map[string]string, t Types, w *warmUp) (*Input, error) {
	sel, err := duckdbengine.Dialect{}.SelectFiles(in)
	if err != nil {
		return nil, err
	}
	read, ok := w.described(sel)
	if !ok {
		if read, err = duckdbengine.DescribeFiles(ctx, rd.conn, in, sel); err != nil {
			return nil, err
		}
	}
	cols := make([]Column, len(read))
	for i, r := range read {
		c := Column{Name: r.Name, Reader: r.Type}
		if typ, ok := unknown[r.Name]; ok {
			c.Type, c.Text, c.Unknown = typ, true, true
		} else {
			c.Type, c.Text = t.Type(r.Type)
		}
		cols[i] = c
	}
	return &Input{Columns: cols, in: in, sel: sel, read: read, rd: rd, types: t, warm: w}, nil
}

// IsNested reports whether a reader type is a list, array, struct, map or
// union: the rows path sends such values as their JSON text.
func IsNested(reader string) bool { return duckdbengine.IsNested(reader) }

// Rows has the reader read the files into its scratch database, then yields
// the rows a batch of BatchRows at a time: one batch is in memory at once.
// Each value is as the reader's driver gives it, except that integers are
// int64 and decimals are Decimal; a column with Text set is its text.
// The caller closes Rows.
func (in *Input) Rows(ctx context.Context) (*Rows, error) {
	total, err := duckdbengine.Materialize(ctx, in.rd.conn, in.sel)
	if err != nil {
		return nil, condense(err)
	}
	read := make([]engine.Column, len(in.Columns))
	text := make([]bool, len(in.Columns))
	for i, c := range in.Columns {
		read[i] = engine.Column{Name: c.Name, Type: c.Reader}
		text[i] = c.Text
	}
	r := &Rows{ctx: ctx, conn: in.rd.conn, total: total, query: duckdbengine.RowRange(read, text),
		vals: make([]any, len(read)), ptrs: make([]any, len(read))}
	for i := range r.vals {
		r.ptrs[i] = &r.vals[i]
	}
	return r, nil
}

// Rows is the input's rows, read one rowid range at a time. Its methods
// are those of pgx's CopyFromSource.
type Rows struct {
	ctx        context.Context
	conn       *sql.Conn
	query      string
	total, lo  int64
	rows       *sql.Rows
	vals, ptrs []any
	err        error
}

// Next moves to the next row, reading the next batch when one is done.
func (r *Rows) Next() bool {
	for {
		if r.rows == nil {
			if r.lo >= r.total {
				return false
			}
			r.rows, r.err = r.conn.QueryContext(r.ctx, r.query, r.lo, r.lo+BatchRows)
			if r.err != nil {
				return false
			}
			r.lo += BatchRows
		}
		if r.rows.Next() {
			if r.err = r.rows.Scan(r.ptrs...); r.err != nil {
				return false
			}
			return true
		}
		if r.err = r.rows.Err(); r.err != nil {
			return false
		}
		r.rows.Close()
		r.rows = nil
	}
}

// Decimal is a DECIMAL value: Value × 10^-Scale.
type Decimal struct {
	Value *big.Int
	Scale int
}

// String is the decimal's exact text, with Scale digits after the point,
// for sinks that send text.
func (d Decimal) String() string {
	s := new(big.Int).Abs(d.Value).String()
	if d.Scale > 0 {
		if len(s) <= d.Scale {
			s = strings.Repeat("0", d.Scale-len(s)+1) + s
		}
		s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	}
	if d.Value.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// Values is the current row, in a new slice.
func (r *Rows) Values() ([]any, error) {
	out := make([]any, len(r.vals))
	for i, v := range r.vals {
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
			out[i] = Decimal{Value: x.Value, Scale: int(x.Scale)}
		default:
			out[i] = v
		}
	}
	return out, nil
}

// Err is what stopped Next early, if anything.
func (r *Rows) Err() error { return r.err }

// Close ends the batch being read.
func (r *Rows) Close() {
	if r.rows != nil {
		r.rows.Close()
		r.rows = nil
	}
}

// condense keeps the part of a DuckDB reader error that says what is wrong
// and where (its first paragraph and the file), not the dump of reader
// options that follows.
func condense(err error) error {
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

// WriteParquet has the reader write the input's rows, as Describe typed
// them, to a Parquet file at path: for an engine that reads Parquet itself
// (embedded ClickHouse) faster than it takes rows one batch at a time.
func (in *Input) WriteParquet(ctx context.Context, path string) error {
	d := duckdbengine.Dialect{}
	if _, err := in.rd.conn.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", in.textSel(), d.String(path))); err != nil {
		return condense(err)
	}
	return nil
}

// textSel is the reader's query, with the columns whose values travel as
// text (Column.Text) cast to it.
func (in *Input) textSel() string {
	d := duckdbengine.Dialect{}
	cols := make([]string, len(in.Columns))
	for i, c := range in.Columns {
		cols[i] = d.Ident(c.Name)
		if c.Text {
			cols[i] = "CAST(" + cols[i] + " AS VARCHAR) AS " + d.Ident(c.Name)
		}
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM (" + in.sel + ")"
}
