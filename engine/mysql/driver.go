package mysql

import (
	"context"
	"database/sql/driver"
	"reflect"
)

// MariaDB and MySQL have no boolean type: BOOLEAN is TINYINT(1), whose
// width the protocol sends but the driver does not expose, so a boolean
// could not be told from a small integer when read back. idem stores
// booleans as BIT(1) (numeric in every expression, 0 or 1) and this thin
// wrapper around the driver reads BIT columns as BOOLEAN, their values as
// true and false: so `idem plan`, checksums and schema checks see the
// same type and the same text as on DuckDB and PostgreSQL. Everything
// else passes through unchanged.

type boolConnector struct{ driver.Connector }

func (c boolConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &boolConn{conn}, nil
}

// the driver's connection implements all of these.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

type boolConn struct{ driver.Conn }

func (c *boolConn) inner() innerConn { return c.Conn.(innerConn) }

func (c *boolConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *boolConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.inner().PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &boolStmt{s}, nil
}

func (c *boolConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner().BeginTx(ctx, opts)
}

func (c *boolConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.inner().ExecContext(ctx, query, args)
}

func (c *boolConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.inner().QueryContext(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return wrapRows(r), nil
}

func (c *boolConn) Ping(ctx context.Context) error              { return c.inner().Ping(ctx) }
func (c *boolConn) ResetSession(ctx context.Context) error      { return c.inner().ResetSession(ctx) }
func (c *boolConn) IsValid() bool                               { return c.inner().IsValid() }
func (c *boolConn) CheckNamedValue(nv *driver.NamedValue) error { return c.inner().CheckNamedValue(nv) }
func (c *boolConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}
func (c *boolConn) Query(string, []driver.Value) (driver.Rows, error) { return nil, driver.ErrSkip }

type innerStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
	driver.NamedValueChecker
}

type boolStmt struct{ driver.Stmt }

func (s *boolStmt) inner() innerStmt { return s.Stmt.(innerStmt) }

func (s *boolStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.inner().ExecContext(ctx, args)
}

func (s *boolStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.inner().QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	return wrapRows(r), nil
}

func (s *boolStmt) CheckNamedValue(nv *driver.NamedValue) error { return s.inner().CheckNamedValue(nv) }

type innerRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeScanType
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsNextResultSet
}

type boolRows struct {
	innerRows
	bit []bool // the columns of type BIT
}

func wrapRows(r driver.Rows) driver.Rows {
	in, ok := r.(innerRows)
	if !ok {
		return r
	}
	b := &boolRows{innerRows: in}
	for i := range in.Columns() {
		if in.ColumnTypeDatabaseTypeName(i) == "BIT" {
			if b.bit == nil {
				b.bit = make([]bool, len(in.Columns()))
			}
			b.bit[i] = true
		}
	}
	if b.bit == nil {
		return in
	}
	return b
}

func (r *boolRows) ColumnTypeDatabaseTypeName(i int) string {
	if r.bit[i] {
		return "BOOLEAN"
	}
	return r.innerRows.ColumnTypeDatabaseTypeName(i)
}

func (r *boolRows) ColumnTypeScanType(i int) reflect.Type {
	if r.bit[i] {
		return reflect.TypeFor[bool]()
	}
	return r.innerRows.ColumnTypeScanType(i)
}

func (r *boolRows) Next(dest []driver.Value) error {
	if err := r.innerRows.Next(dest); err != nil {
		return err
	}
	for i, isBit := range r.bit {
		if !isBit || dest[i] == nil {
			continue
		}
		if b, ok := dest[i].([]byte); ok {
			v := false
			for _, x := range b {
				v = v || x != 0
			}
			dest[i] = v
		}
	}
	return nil
}
