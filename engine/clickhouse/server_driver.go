package clickhouse

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/idemdata/idem/engine/dsn"
)

// The server path's database/sql driver wraps clickhouse-go's: statements
// are bound by Bind, as chDB's are, and sent without arguments; values
// come back as chDB's driver gives them (int64, float64, bool, time.Time,
// string), so the runner reads both paths alike; and transactions do
// nothing (clickhouse-go's are batch inserts, and its Rollback closes the
// connection with the session's temporary tables).

// errBrokenConn marks a connection left unusable (an insert cut short).
var errBrokenConn = errors.New("the connection to the server is no longer usable")

type serverConnector struct {
	inner driver.Connector
	red   *dsn.Redactor
}

func (c serverConnector) Connect(ctx context.Context) (driver.Conn, error) {
	inner, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, c.red.Error(err)
	}
	return &serverConn{inner: inner, red: c.red}, nil
}

func (c serverConnector) Driver() driver.Driver { return drv{} }

type serverConn struct {
	inner  driver.Conn // clickhouse-go's: one native connection, one session
	red    *dsn.Redactor
	broken error
}

var (
	_ driver.ExecerContext  = (*serverConn)(nil)
	_ driver.QueryerContext = (*serverConn)(nil)
	_ driver.ConnBeginTx    = (*serverConn)(nil)
	_ driver.Pinger         = (*serverConn)(nil)
)

func (c *serverConn) Prepare(q string) (driver.Stmt, error) { return &serverStmt{c: c, q: q}, nil }
func (c *serverConn) Close() error                          { return c.inner.Close() }
func (c *serverConn) Begin() (driver.Tx, error)             { return noTx{}, nil }
func (c *serverConn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	return noTx{}, nil
}

func (c *serverConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return c.red.Error(p.Ping(ctx))
	}
	return nil
}

// bind renders q's $n parameters as chDB's driver does.
func (c *serverConn) bind(q string, args []driver.NamedValue) (string, error) {
	if c.broken != nil {
		return "", fmt.Errorf("%w: %w", errBrokenConn, c.broken)
	}
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	return Bind(q, vals)
}

func (c *serverConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	text, err := c.bind(q, args)
	if err != nil {
		return nil, err
	}
	if _, err := c.inner.(driver.ExecerContext).ExecContext(ctx, text, nil); err != nil {
		return nil, c.red.Error(err)
	}
	return driver.RowsAffected(0), nil
}

func (c *serverConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	text, err := c.bind(q, args)
	if err != nil {
		return nil, err
	}
	rows, err := c.inner.(driver.QueryerContext).QueryContext(ctx, text, nil)
	if err != nil {
		return nil, c.red.Error(err)
	}
	return &serverRows{inner: rows, red: c.red}, nil
}

type serverStmt struct {
	c *serverConn
	q string
}

func (s *serverStmt) Close() error  { return nil }
func (s *serverStmt) NumInput() int { return -1 }
func (s *serverStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.q, named(args))
}
func (s *serverStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), s.q, named(args))
}

// serverRows gives each value as chDB's driver would (see Normalize).
type serverRows struct {
	inner driver.Rows
	red   *dsn.Redactor
	types []string
}

func (r *serverRows) Columns() []string { return r.inner.Columns() }
func (r *serverRows) Close() error      { return r.inner.Close() }

// ColumnTypeDatabaseTypeName is ClickHouse's type name.
func (r *serverRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.inner.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *serverRows) Next(dest []driver.Value) error {
	if err := r.inner.Next(dest); err != nil {
		if err == io.EOF {
			return err
		}
		return r.red.Error(err)
	}
	if r.types == nil {
		r.types = make([]string, len(dest))
		for i := range dest {
			r.types[i] = r.ColumnTypeDatabaseTypeName(i)
		}
	}
	for i, v := range dest {
		dest[i] = Normalize(v, r.types[i])
	}
	return nil
}

// Normalize is a value clickhouse-go read from a column of type typ, as
// chDB's driver reads it from ClickHouse's text: integers int64 (their
// text beyond it), floats float64, Bool bool, dates and times time.Time
// (a DateTime without a zone in UTC, the sessions' zone), NULL nil, and
// everything else (decimals, UUIDs, strings, enums, IPs) its text.
// Nested values (arrays, maps, tuples) are Go's rendering of them, not
// ClickHouse's: idem reads none.
func Normalize(v any, typ string) driver.Value {
	switch x := v.(type) {
	case nil:
		return nil
	case *big.Int: // Int128, Int256 and their unsigned kin
		if x == nil {
			return nil
		}
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case big.Int:
		return Normalize(&x, typ)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		return Normalize(rv.Elem().Interface(), typ)
	}
	switch x := v.(type) {
	case int8, int16, int32, int64, int:
		return rv.Int()
	case uint8, uint16, uint32, uint64, uint:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u)
		}
		return strconv.FormatUint(rv.Uint(), 10)
	case float32:
		// As ClickHouse prints it: the shortest text that reads back.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return f
	case float64, bool, string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		return normalTime(x, typ)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

func normalTime(t time.Time, typ string) time.Time {
	base := BaseType(typ)
	switch {
	case base == "Date" || base == "Date32":
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case strings.HasPrefix(base, "DateTime") && !strings.Contains(base, "'"):
		return t.UTC()
	}
	return t
}
