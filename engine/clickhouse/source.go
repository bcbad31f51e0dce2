package clickhouse

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse/internal/chdb"
	"github.com/idemdata/idem/input"
)

// ClickHouse as a source database (source.url chdb:PATH or clickhouse://).
// ClickHouse has no transactions: one SELECT reads, for each table, the
// parts it had when the query started (merges and inserts after that do
// not change what the query reads), which is the read's snapshot.
//
// A write through the source is refused by ClickHouse itself: the query
// runs as a subquery (SELECT * FROM (query)), which ClickHouse's parser
// takes only for a SELECT: INSERT, CREATE, ALTER… are syntax errors. On
// top of that, chDB runs it with SETTINGS readonly = 1 on the query (not
// on the session: the process's one session may be the target's, which
// must stay writable; ClickHouse applies a SETTINGS clause inside the
// subquery unchecked, so the query could lower it, but still only read);
// a server gets readonly = 2 with every statement of the source's
// connection (OpenServer's read-only open), which no statement can lower.

var (
	_ engine.SourceReader = (*DB)(nil)
	_ engine.SourceReader = (*Server)(nil)
)

// ReadSource runs query as a source's on chDB. When the source alone
// holds the process's session, the rows stream a block at a time (the
// session runs nothing else meanwhile); a session it shares with a chDB
// target, which writes the rows while they are read, hands over the
// query's whole result at once instead, held in memory while it loads.
func (d *DB) ReadSource(ctx context.Context, query string) (engine.SourceRows, error) {
	q := sourceSelect(query) + " SETTINGS readonly = 1"
	if chdb.CanStream() && d.s.alone() {
		return d.streamSource(ctx, q)
	}
	return readSource(ctx, d.conn, q, sourceType)
}

// ReadSource runs query as a source's on a server, streamed as it sends
// the rows.
func (s *Server) ReadSource(ctx context.Context, query string) (engine.SourceRows, error) {
	return readSource(ctx, s.conn, sourceSelect(query), serverSourceType)
}

func readSource(ctx context.Context, conn *sql.Conn, q string, typeOf func(*sql.ColumnType) (input.Type, error)) (engine.SourceRows, error) {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	src, err := engine.NewSourceRows(rows, func() error { return nil }, typeOf, func(v any) any { return v })
	if err != nil {
		rows.Close()
		return nil, err
	}
	return src, nil
}

// sourceSelect is query as a subquery: only a SELECT parses there. A
// trailing semicolon is dropped, and the query ends on its own line, so a
// closing comment does not swallow the parenthesis.
func sourceSelect(query string) string {
	q := strings.TrimRight(query, " \t\r\n;")
	return "SELECT * FROM (\n" + q + "\n)"
}

// sourceSession refuses, at once, a chdb: source in a folder other than
// the one this process has open (a chdb: target's): chDB opens one folder
// per process, and the source would wait for the run's own target.
func sourceSession(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	sessMu.Lock()
	defer sessMu.Unlock()
	if current != nil && current.path != abs {
		return engine.BadTarget(fmt.Errorf("chdb source %s: this process has chDB open on %s (the target), and chDB opens one folder per process: keep the source's tables in the target's folder (another database there), or read them from a ClickHouse server (clickhouse://)",
			abs, current.path))
	}
	return nil
}

// sourceType maps a result column's ClickHouse type onto the reader's,
// refusing the types no reader type holds faithfully.
func sourceType(ct *sql.ColumnType) (input.Type, error) {
	return sourceTypeOf(ct.Name(), ct.DatabaseTypeName())
}

// sourceTypeOf maps column col of ClickHouse type full (as a result's
// header spells it).
func sourceTypeOf(col, full string) (input.Type, error) {
	typ, _ := unwrapTypes(full)
	name, args, _ := strings.Cut(typ, "(")
	args = strings.TrimSuffix(args, ")")
	if t, ok := sourceTypes[name]; ok {
		return t, nil
	}
	var c chType
	switch name {
	case "Decimal", "Decimal32", "Decimal64", "Decimal128", "Decimal256":
		if c.readDecimal(name, args) == "" {
			if c.precision > input.MaxPrecision {
				return input.Type{Kind: input.Decimal}, nil // any precision: each value as written
			}
			return input.DecimalType(c.precision, c.scale), nil
		}
	case "DateTime", "DateTime64":
		if t, ok := sourceTime(name, args); ok {
			return t, nil
		}
	}
	return input.Type{}, fmt.Errorf("%w: column %q is %s, which idem reads into no target type faithfully; cast it in source.query (toString, toDecimal128, toDateTime64…)",
		engine.ErrSourceType, col, typ)
}

// sourceTypes are the reader's types of ClickHouse's types that take no
// argument, or whose argument does not change it. An unsigned integer
// takes the next wider type; Int128 and UInt128 are DECIMAL(38,0), like
// DuckDB's HUGEINT (a value past 38 digits is refused, naming its row);
// the 256-bit integers are decimals of any precision (each value as
// written: PostgreSQL's NUMERIC, or refused naming the column by a target
// whose decimals have a fixed scale). A UUID and an enum are their text;
// JSON is its text as ClickHouse writes it (its paths sorted, numbers as
// it stores them).
var sourceTypes = map[string]input.Type{
	"Bool": input.BoolType,
	"Int8": {Kind: input.Int, Bits: 8}, "Int16": {Kind: input.Int, Bits: 16}, "Int32": {Kind: input.Int, Bits: 32}, "Int64": input.BigIntType,
	"UInt8": {Kind: input.Int, Bits: 16}, "UInt16": {Kind: input.Int, Bits: 32}, "UInt32": input.BigIntType,
	"UInt64": input.DecimalType(20, 0), "Int128": input.DecimalType(input.MaxPrecision, 0), "UInt128": input.DecimalType(input.MaxPrecision, 0),
	"Int256": {Kind: input.Decimal}, "UInt256": {Kind: input.Decimal},
	"Float32": {Kind: input.Float, Bits: 32}, "Float64": input.DoubleType,
	"String": input.TextType, "UUID": input.TextType, "Enum8": input.TextType, "Enum16": input.TextType,
	"Date": input.DateType, "Date32": input.DateType,
	"JSON": input.JSONType,
}

// sourceTime is the reader's type of a DateTime or DateTime64: a wall
// clock without a zone (read in the sessions' UTC, as ReaderType reads a
// target's), an instant with one; more than 6 digits of a second are read
// when a value has none (a value with nanoseconds is refused, naming its
// row).
func sourceTime(name, args string) (input.Type, bool) {
	p, zone := 0, false
	if name == "DateTime64" {
		ps, _, hasZone := strings.Cut(args, ",")
		n, err := fmt.Sscan(strings.TrimSpace(ps), &p)
		if n != 1 || err != nil || p < 0 || p > 9 {
			return input.Type{}, false
		}
		zone = hasZone
	} else {
		zone = strings.TrimSpace(args) != ""
	}
	k := input.Timestamp
	if zone {
		k = input.TimestampTZ
	}
	return input.Type{Kind: k, Precision: min(p, 6)}, true
}

// serverSourceType is sourceType, but for JSON: clickhouse-go reads a JSON
// column into its own Go value, not ClickHouse's text of it.
func serverSourceType(ct *sql.ColumnType) (input.Type, error) {
	return serverSourceTypeOf(ct.Name(), ct.DatabaseTypeName())
}

func serverSourceTypeOf(col, full string) (input.Type, error) {
	if typ, _ := unwrapTypes(full); strings.HasPrefix(typ, "JSON") {
		return input.Type{}, fmt.Errorf("%w: column %q is %s, which a ClickHouse server sends in a form idem does not read; cast it in source.query (toJSONString) and declare it JSON under columns:",
			engine.ErrSourceType, col, typ)
	}
	return sourceTypeOf(col, full)
}

// alone reports whether one DB holds the session.
func (s *session) alone() bool {
	sessMu.Lock()
	defer sessMu.Unlock()
	return s.refs == 1
}

// streamSource streams q's rows, holding the session until they are
// closed.
func (d *DB) streamSource(ctx context.Context, q string) (engine.SourceRows, error) {
	d.s.mu.Lock()
	st, err := d.s.s.Stream(q, "TabSeparatedWithNamesAndTypes")
	if err != nil {
		d.s.mu.Unlock()
		return nil, &Error{Msg: strings.TrimSpace(err.Error())}
	}
	r := &streamRows{ctx: ctx, st: st, end: d.s.mu.Unlock}
	if err := r.fetch(); err != nil || r.cur == nil {
		r.Close()
		if err == nil { // no output at all: the header comes with the whole result
			return readSource(ctx, d.conn, q, sourceType)
		}
		return nil, err
	}
	var refused []error
	for i, name := range r.cur.names {
		t, err := sourceTypeOf(name, r.cur.types[i])
		if err != nil {
			refused = append(refused, err)
		}
		r.cols = append(r.cols, input.Column{Name: name, Type: t, Fixed: true})
	}
	if len(refused) > 0 {
		r.Close()
		return nil, errors.Join(refused...)
	}
	r.vals = make([]driver.Value, len(r.cols))
	return r, nil
}

// streamRows are a chDB query's rows, read a block at a time; each block
// is whole TabSeparatedWithNamesAndTypes (its header repeated).
type streamRows struct {
	ctx  context.Context
	st   *chdb.Stream
	end  func() // gives the session back
	cur  *rows  // the block being read (nil: none left)
	cols []input.Column
	vals []driver.Value
	err  error
}

// fetch reads the next block into cur (nil after the last).
func (r *streamRows) fetch() error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	out, err := r.st.Next()
	if err != nil {
		return &Error{Msg: strings.TrimSpace(err.Error())}
	}
	r.cur = nil
	if out == nil {
		return nil
	}
	r.cur, err = parseTSV(out)
	return err
}

func (r *streamRows) Columns() []input.Column { return r.cols }

func (r *streamRows) Next(dest []any) bool {
	for r.cur != nil && r.err == nil {
		err := r.cur.Next(r.vals)
		if err == nil {
			for i, v := range r.vals {
				dest[i] = v
			}
			return true
		}
		if err != io.EOF {
			r.err = err
			break
		}
		r.err = r.fetch()
	}
	return false
}

func (r *streamRows) Err() error { return r.err }

func (r *streamRows) Close() error {
	if r.st != nil {
		r.st.Close()
		r.st = nil
		r.end()
	}
	return nil
}
