package duckdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	bindings "github.com/duckdb/duckdb-go-bindings"
	duck "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

var _ engine.SourceReader = (*DB)(nil)

// ReadSource runs query as a source's: the file was opened with
// access_mode READ_ONLY (no statement can write it), and the query runs in
// one transaction, whose snapshot holds for the whole read. It runs on a
// connection of its own to the same database (sourceConn), whose result
// DuckDB streams a chunk at a time: the driver's rows take the whole result
// before the first row.
func (d *DB) ReadSource(ctx context.Context, query string) (engine.SourceRows, error) {
	if !d.readOnly { // the instance shared below is the read-only one only then
		return nil, errors.New("duckdb: a source database is read through OpenReadOnly")
	}
	c, err := connectSource(d.path)
	if err != nil {
		return nil, err
	}
	s := &sourceRows{c: c, ctx: ctx}
	s.stop = context.AfterFunc(ctx, s.interrupt)
	if err := s.start(query); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// sourceConn is a connection to the database instance the driver opened:
// the driver keeps its file databases in an instance cache, which gives
// that instance back for the same path and options, so the read sees
// what the DB's own connection does, under the same file lock.
type sourceConn struct {
	db   mapping.Database
	conn mapping.Connection
}

func connectSource(path string) (*sourceConn, error) {
	var cfg mapping.Config
	if mapping.CreateConfig(&cfg) == mapping.StateError {
		return nil, errors.New("duckdb: creating a configuration failed")
	}
	defer mapping.DestroyConfig(&cfg)
	// The options the driver opened the file with (open's DSN, and the
	// driver's own duckdb_api).
	for _, o := range [][2]string{{"duckdb_api", "go"}, {"access_mode", "READ_ONLY"}} {
		if mapping.SetConfig(cfg, o[0], o[1]) == mapping.StateError {
			return nil, fmt.Errorf("duckdb: setting %s=%s failed", o[0], o[1])
		}
	}
	c := &sourceConn{}
	var msg string
	if mapping.GetOrCreateFromCache(duck.GetInstanceCache(), path, &c.db, cfg, &msg) == mapping.StateError {
		mapping.Close(&c.db)
		return nil, fmt.Errorf("opening duckdb %s to read it: %s", path, msg)
	}
	if mapping.Connect(c.db, &c.conn) == mapping.StateError {
		mapping.Close(&c.db)
		return nil, fmt.Errorf("connecting to duckdb %s to read it", path)
	}
	return c, nil
}

// exec runs one statement, its result discarded.
func (c *sourceConn) exec(q string) error {
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if mapping.Query(c.conn, q, &res) == mapping.StateError {
		return errors.New(mapping.ResultError(&res))
	}
	return nil
}

// stream runs query's statements (as the driver does: each but the last
// for its effect) and returns the last one's result, streamed.
func (c *sourceConn) stream(query string) (mapping.Result, error) {
	var res mapping.Result
	var ext mapping.ExtractedStatements
	defer mapping.DestroyExtracted(&ext)
	n := mapping.ExtractStatements(c.conn, query, &ext)
	if n == 0 {
		return res, errors.New(mapping.ExtractStatementsError(ext))
	}
	for i := range n {
		var st mapping.PreparedStatement
		if mapping.PrepareExtractedStatement(c.conn, ext, i, &st) == mapping.StateError {
			err := errors.New(mapping.PrepareError(st))
			mapping.DestroyPrepare(&st)
			return res, err
		}
		err := execute(st, i == n-1, &res)
		mapping.DestroyPrepare(&st)
		if err != nil || i == n-1 {
			return res, err
		}
		mapping.DestroyResult(&res)
	}
	return res, nil
}

// execute runs st into res, as a streaming result when streamed.
func execute(st mapping.PreparedStatement, streamed bool, res *mapping.Result) error {
	if !streamed {
		if mapping.ExecutePrepared(st, res) == mapping.StateError {
			return errors.New(mapping.ResultError(res))
		}
		return nil
	}
	var pending mapping.PendingResult
	defer mapping.DestroyPending(&pending)
	// Deprecated in DuckDB's C API, and yet its only way to a streaming result.
	if bindings.PendingPreparedStreaming(st, &pending) == mapping.StateError {
		return errors.New(mapping.PendingError(pending))
	}
	if mapping.ExecutePending(pending, res) == mapping.StateError {
		return errors.New(mapping.ResultError(res))
	}
	return nil
}

// sourceRows are a source query's rows, fetched from DuckDB's streaming
// result a chunk (2048 rows) at a time.
type sourceRows struct {
	c     *sourceConn
	ctx   context.Context
	stop  func() bool // ends the interrupt on ctx's end
	res   mapping.Result
	chunk mapping.DataChunk
	n, i  int // the chunk's rows, the next one
	cols  []input.Column
	vecs  []vector
	ended bool // the result has no more chunks
	err   error
	mu    sync.Mutex // Close waits for an interrupt under way
	done  bool       // closed: the connection is gone
}

// interrupt stops the query running on the connection, when ctx ends.
func (s *sourceRows) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		mapping.Interrupt(s.c.conn)
	}
}

// start sets the session up, begins the snapshot's transaction and runs
// query, typing its columns (or refusing them).
func (s *sourceRows) start(query string) error {
	for _, q := range append(sessionSettings(), "BEGIN TRANSACTION") {
		if err := s.c.exec(q); err != nil {
			return s.failed(err)
		}
	}
	var err error
	if s.res, err = s.c.stream(query); err != nil {
		return s.failed(err)
	}
	var refused []error
	for i := range mapping.ColumnCount(&s.res) {
		name := mapping.ColumnName(&s.res, i)
		lt := mapping.ColumnLogicalType(&s.res, i)
		t, err := sourceType(name, typeName(lt))
		get := getter(lt)
		if err == nil && get == nil { // sourceType took a type getter cannot read
			err = fmt.Errorf("duckdb: column %q is %s, which the source reader cannot read", name, typeName(lt))
		}
		if err != nil {
			refused = append(refused, err)
		}
		s.cols = append(s.cols, input.Column{Name: name, Type: t, Fixed: true})
		s.vecs = append(s.vecs, vector{get: get})
		mapping.DestroyLogicalType(&lt)
	}
	return errors.Join(refused...)
}

// failed is err, with why the query stopped when ctx ended.
func (s *sourceRows) failed(err error) error {
	if cerr := s.ctx.Err(); cerr != nil {
		return fmt.Errorf("%w (%w)", cerr, err)
	}
	return err
}

func (s *sourceRows) Columns() []input.Column { return s.cols }

func (s *sourceRows) Next(dest []any) bool {
	for s.i == s.n {
		if !s.fetch() {
			return false
		}
	}
	for j := range s.vecs {
		dest[j] = s.vecs[j].value(s.i)
	}
	s.i++
	return true
}

// fetch takes the next chunk, DuckDB running the query as far as it needs
// to fill it; at the end of the rows, or on the query's error, none.
func (s *sourceRows) fetch() bool {
	if s.err != nil || s.ended {
		return false
	}
	mapping.DestroyDataChunk(&s.chunk)
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return false
	}
	s.chunk = mapping.FetchChunk(s.res)
	if s.chunk.Ptr == nil {
		if msg := mapping.ResultError(&s.res); msg != "" {
			s.err = s.failed(errors.New(msg))
		}
		s.ended = true
		return false
	}
	s.n, s.i = int(mapping.DataChunkGetSize(s.chunk)), 0
	for j := range s.vecs {
		v := mapping.DataChunkGetVector(s.chunk, mapping.IdxT(j))
		s.vecs[j].data, s.vecs[j].valid = mapping.VectorGetData(v), mapping.VectorGetValidity(v)
	}
	return true
}

func (s *sourceRows) Err() error { return s.err }

// Close ends the read: disconnecting rolls the transaction back.
func (s *sourceRows) Close() error {
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	s.done = true
	mapping.DestroyDataChunk(&s.chunk)
	mapping.DestroyResult(&s.res)
	mapping.Disconnect(&s.c.conn)
	mapping.Close(&s.c.db)
	return nil
}

// sourceTypes are the reader's types of DuckDB's types that ReaderType
// does not know: unsigned integers take the next wider type, a UUID and
// an ENUM are their text.
var sourceTypes = map[string]input.Type{
	"UTINYINT": {Kind: input.Int, Bits: 16}, "USMALLINT": {Kind: input.Int, Bits: 32},
	"UINTEGER": input.BigIntType, "UBIGINT": input.DecimalType(20, 0),
	"UUID": input.TextType, "ENUM": input.TextType,
}

// sourceType maps result column col, of type name (typeName's), onto the
// reader's type, refusing the types no reader type holds faithfully.
func sourceType(col, name string) (input.Type, error) {
	name = strings.ToUpper(name)
	if t, ok := sourceTypes[name]; ok {
		return t, nil
	}
	hint := "cast it in source.query (to VARCHAR, DECIMAL, TIMESTAMPTZ…)"
	if name == "JSON" {
		hint = "cast it to VARCHAR in source.query, and declare it JSON under columns:"
	} else if t, ok := (Dialect{}).ReaderType(name); ok {
		return t, nil
	}
	return input.Type{}, fmt.Errorf("%w: column %q is %s, which idem reads into no target type faithfully; %s",
		engine.ErrSourceType, col, name, hint)
}
