package clickhouse

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// A server cannot read the client's files (file() reads the server's own
// disk). The reader's rows go to it in native blocks, one INSERT per
// batch of the reader's, on the run's connection: each value appended as
// a Go value of the column's type (serverValue), which clickhouse-go
// encodes in the block as the type's binary form. Memory holds one block,
// whatever the input's size.

var _ engine.RowLoader = (*Server)(nil)

// LoadPath says how the rows travel.
func (*Server) LoadPath() string {
	return fmt.Sprintf("native blocks of up to %d typed rows (clickhouse-go), one INSERT each", input.BatchRows)
}

// LoadRows appends the reader's rows to t in native blocks, on the run's
// pinned connection (q is that connection, or a transaction on it, which
// does nothing on ClickHouse).
func (s *Server) LoadRows(ctx context.Context, _ engine.Querier, t engine.Table, cols []engine.Column, rows *input.Reader, rec func(string)) (int64, error) {
	insert := serverInsert(t, cols)
	if rec != nil {
		rec(insert + " -- the rows, in native blocks")
	}
	var n int64
	err := s.conn.Raw(func(dc any) error {
		c := dc.(*serverConn)
		var err error
		n, err = sendRows(rows, cols, func() (batchSink, error) { return c.openBatch(ctx, insert) })
		return err
	})
	if err != nil {
		return n, fmt.Errorf("inserting the rows into %s: %w", Dialect{}.Table(t), err)
	}
	return n, nil
}

// serverInsert is the INSERT a block goes with.
func serverInsert(t engine.Table, cols []engine.Column) string {
	q := Dialect{}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = q.Ident(c.Name)
	}
	return "INSERT INTO " + q.Table(t) + " (" + strings.Join(names, ", ") + ")"
}

// batchSink is one INSERT's block of rows.
type batchSink interface {
	Append(vals []any) error
	Send() error
	// Abort gives up the block unsent.
	Abort(why error)
}

// sendRows sends the reader's rows, one block per batch, each opened by
// open and sent before the next batch is taken. No rows, no block.
func sendRows(rows *input.Reader, cols []engine.Column, open func() (batchSink, error)) (int64, error) {
	var (
		lc []loadColumn
		n  int64
	)
	for {
		b, err := rows.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if lc == nil {
			if lc, err = loadColumns(cols, b); err != nil {
				return n, err
			}
		}
		if err := checkNulls(lc, b); err != nil {
			return n, err
		}
		if b.Len == 0 {
			continue
		}
		sink, err := open()
		if err != nil {
			return n, err
		}
		if err := fill(sink, lc, b); err != nil {
			sink.Abort(err)
			return n, err
		}
		if err := sink.Send(); err != nil {
			return n, err
		}
		n += int64(b.Len)
	}
}

// fill appends a batch's rows to a block.
func fill(sink batchSink, lc []loadColumn, b *input.Batch) error {
	vals := make([]any, len(lc))
	for i := range b.Len {
		for j := range lc {
			var err error
			if vals[j], err = lc[j].serverValue(b.Cols[j], i); err != nil {
				return err
			}
		}
		if err := sink.Append(vals); err != nil {
			return err
		}
	}
	return nil
}

// nativeBatch is a clickhouse-go batch on the run's own connection,
// through its database/sql face: BeginTx, Prepare of the INSERT (which
// sends it and reads the table's columns), Exec per row, Commit to send.
type nativeBatch struct {
	ctx context.Context
	c   *serverConn
	tx  driver.Tx
	st  driver.StmtExecContext
	arg []driver.NamedValue
}

// openBatch starts an INSERT on the connection. Until it is sent the
// connection holds a half-done INSERT: a failure leaves it unusable.
func (c *serverConn) openBatch(ctx context.Context, insert string) (batchSink, error) {
	if c.broken != nil {
		return nil, fmt.Errorf("%w: %w", errBrokenConn, c.broken)
	}
	tx, err := c.inner.(driver.ConnBeginTx).BeginTx(ctx, driver.TxOptions{})
	if err != nil {
		return nil, c.red.Error(err)
	}
	st, err := c.inner.(driver.ConnPrepareContext).PrepareContext(ctx, insert)
	if err != nil {
		c.broken = c.red.Error(err)
		return nil, c.broken
	}
	return &nativeBatch{ctx: ctx, c: c, tx: tx, st: st.(driver.StmtExecContext)}, nil
}

func (b *nativeBatch) Append(vals []any) error {
	b.arg = b.arg[:0]
	for i, v := range vals {
		b.arg = append(b.arg, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	if _, err := b.st.ExecContext(b.ctx, b.arg); err != nil {
		b.c.broken = b.c.red.Error(err)
		return b.c.broken
	}
	return nil
}

// Abort leaves the connection unusable: it holds the INSERT, which
// clickhouse-go can only end by closing it.
func (b *nativeBatch) Abort(why error) {
	if b.c.broken == nil {
		b.c.broken = fmt.Errorf("an INSERT was cut short: %w", why)
	}
}

func (b *nativeBatch) Send() error {
	if err := b.tx.Commit(); err != nil {
		b.c.broken = b.c.red.Error(err)
		return b.c.broken
	}
	return nil
}
