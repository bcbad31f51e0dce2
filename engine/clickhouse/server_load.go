package clickhouse

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/source/filereader"
)

// A server cannot read the client's files (file() reads the server's own
// disk). The embedded DuckDB every engine shares reads them, typed as chDB
// stages them (chTypes), and their rows go to the server in native blocks
// of filereader.BatchRows rows, one INSERT each, on the run's connection:
// memory holds one block, whatever the input's size.

// LoadFiles loads the input files into a new session table stage.
func (s *Server) LoadFiles(ctx context.Context, _ *sql.Tx, stage string, in engine.FileInput) error {
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
	rec := func(q string) {
		if in.Record != nil {
			in.Record(q)
		}
	}
	q := Dialect{}
	rec(engine.LoadNote(in.Paths, q.Ident(stage), fmt.Sprintf(
		"as rows (the embedded DuckDB reads the files; their rows go to the server in native blocks of %d)", filereader.BatchRows)))
	create, alters := serverStage(stage, src.Columns)
	for _, st := range create {
		rec(st)
		if _, err := s.conn.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("creating the staging table: %w", err)
		}
	}
	rows, err := src.Rows(ctx)
	if err != nil {
		return err
	}
	defer rows.Close()
	insert := "INSERT INTO " + q.Ident(stage)
	rec(insert + " -- the rows, in native blocks")
	err = s.conn.Raw(func(dc any) error {
		c := dc.(*serverConn)
		return sendRows(rows, src.Columns, func() (batchSink, error) { return c.openBatch(ctx, insert) }, filereader.BatchRows)
	})
	if err != nil {
		return fmt.Errorf("loading the staged rows: %w", err)
	}
	for _, st := range alters {
		rec(st)
		if _, err := s.conn.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("converting the staged rows: %w", err)
		}
	}
	if in.Target.Name != "" {
		return toTargetTypes(ctx, s.conn, stage, in.Target, rec)
	}
	return nil
}

// serverStage is the DDL creating the staging table for cols, and the
// statements converting its text columns once loaded. A column whose
// values travel as text (Int128, nested values as JSON, a type the job
// gives that the reader does not know) is staged as text and converted by
// the server, as chDB converts Parquet's text when it inserts it.
func serverStage(stage string, cols []filereader.Column) (create, alters []string) {
	q := Dialect{}
	defs := make([]string, len(cols))
	for i, c := range cols {
		typ := c.Type
		if !strings.HasPrefix(typ, "Nullable(") {
			typ = "Nullable(" + typ + ")"
		}
		if c.Text && BaseType(typ) != "String" {
			alters = append(alters, fmt.Sprintf("ALTER TABLE %s MODIFY COLUMN %s %s", q.Ident(stage), q.Ident(c.Name), typ))
			typ = "Nullable(String)"
		}
		defs[i] = q.Ident(c.Name) + " " + typ
	}
	create = []string{
		"DROP TABLE IF EXISTS " + q.Ident(stage),
		fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s) ENGINE = Memory", q.Ident(stage), strings.Join(defs, ", ")),
	}
	return create, alters
}

// rowSource is the reader's rows (*filereader.Rows).
type rowSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

// batchSink is one INSERT's block of rows.
type batchSink interface {
	Append(vals []any) error
	Send() error
}

// sendRows sends src's rows in batches of at most per rows, each opened by
// open and sent before the next is read: one batch is in memory at once.
// No rows, no batch.
func sendRows(src rowSource, cols []filereader.Column, open func() (batchSink, error), per int) error {
	var b batchSink
	n := 0
	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return err
		}
		if b == nil {
			if b, err = open(); err != nil {
				return err
			}
		}
		if err := b.Append(ServerValues(vals, cols)); err != nil {
			return err
		}
		if n++; n == per {
			if err := b.Send(); err != nil {
				return err
			}
			b, n = nil, 0
		}
	}
	if err := src.Err(); err != nil {
		return err
	}
	if b != nil {
		return b.Send()
	}
	return nil
}

// ServerValues converts the reader's values of cols
// (filereader.Rows.Values) to those clickhouse-go appends to the staged
// columns: decimals as shopspring decimals, UUIDs (16 bytes) as UUIDs;
// integers, floats, bools, text and times as they are (clickhouse-go
// converts an int64 to a narrower column's type).
func ServerValues(vals []any, cols []filereader.Column) []any {
	for i, v := range vals {
		switch x := v.(type) {
		case filereader.Decimal:
			vals[i] = decimal.NewFromBigInt(x.Value, -int32(x.Scale))
		case []byte:
			if u, err := uuid.FromBytes(x); err == nil && !cols[i].Text && BaseType(cols[i].Type) == "UUID" {
				vals[i] = u
			}
		}
	}
	return vals
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

func (b *nativeBatch) Send() error {
	if err := b.tx.Commit(); err != nil {
		b.c.broken = b.c.red.Error(err)
		return b.c.broken
	}
	return nil
}
