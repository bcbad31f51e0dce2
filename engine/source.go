package engine

import (
	"context"
	"database/sql"
	"errors"

	"github.com/idemdata/idem/input"
)

// SourceReader is an optional DB ability of an engine that can be a
// source database (a job's source.url). The DB was opened read-only
// (OpenOptions.ReadOnly: a write through it is refused by the database,
// not merely not attempted); ReadSource runs query in one snapshot, so
// the rows are one state of the database however long they take to read.
type SourceReader interface {
	// ReadSource starts query in a read-only transaction that holds one
	// snapshot, on the pinned connection (DuckDB: a connection of its own
	// to the same database, whose result streams). Each result column is
	// typed by the engine's mapping of its own types onto the reader's; a
	// column of a type no reader type holds faithfully is an error naming
	// it (wrapping ErrSourceType), never narrowed. Close ends the snapshot.
	ReadSource(ctx context.Context, query string) (SourceRows, error)
}

// SourceRows is a source query's rows, streamed as the database sends
// them. An engine's rows may also be input.ValueRows (PostgreSQL's are):
// the reader and the fingerprint then take each value typed, unboxed.
type SourceRows interface {
	input.Rows
	Close() error
}

// ErrSourceType marks a source column whose type idem cannot read
// faithfully (bytes, arrays, intervals…): the job must cast it in its
// query. The CLI maps it to exit 2.
var ErrSourceType = errors.New("a source column's type has no faithful target type")

// ErrSourceLost marks a run whose source database's connection ended while
// it read (the server terminated the session, restarted, or the network
// dropped): it wrote nothing, and a later attempt may read it whole. The
// CLI maps it to exit 75.
var ErrSourceLost = errors.New("the connection to the source database was lost")

// NewSourceRows wraps a source query's rows for ReadSource: typeOf maps
// each result column onto the reader's type (or refuses it, naming it),
// norm turns the driver's own value types into the plain ones input.Rows
// promises, and end ends the snapshot once the rows are closed.
func NewSourceRows(rows *sql.Rows, end func() error, typeOf func(*sql.ColumnType) (input.Type, error), norm func(any) any) (SourceRows, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	s := &sourceRows{rows: rows, end: end, norm: norm, ptrs: make([]any, len(cts))}
	var refused []error
	for _, ct := range cts {
		t, err := typeOf(ct)
		if err != nil {
			refused = append(refused, err)
		}
		s.cols = append(s.cols, input.Column{Name: ct.Name(), Type: t, Fixed: true})
	}
	if len(refused) > 0 {
		return nil, errors.Join(refused...)
	}
	return s, nil
}

type sourceRows struct {
	rows *sql.Rows
	end  func() error
	norm func(any) any
	cols []input.Column
	ptrs []any
	err  error
}

func (s *sourceRows) Columns() []input.Column { return s.cols }

func (s *sourceRows) Next(dest []any) bool {
	if !s.rows.Next() {
		return false
	}
	for i := range dest {
		s.ptrs[i] = &dest[i]
	}
	if s.err = s.rows.Scan(s.ptrs...); s.err != nil {
		return false
	}
	for i, v := range dest {
		dest[i] = s.norm(v)
	}
	return true
}

func (s *sourceRows) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.rows.Err()
}

func (s *sourceRows) Close() error {
	return errors.Join(s.rows.Close(), s.end())
}

// ReadInTx runs query in tx, a transaction that holds the source's
// snapshot, and wraps its rows (NewSourceRows); the transaction ends when
// they are closed, or here on an error.
func ReadInTx(ctx context.Context, tx *sql.Tx, query string, typeOf func(*sql.ColumnType) (input.Type, error), norm func(any) any) (SourceRows, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	src, err := NewSourceRows(rows, tx.Rollback, typeOf, norm)
	if err != nil {
		rows.Close()
		tx.Rollback()
		return nil, err
	}
	return src, nil
}
