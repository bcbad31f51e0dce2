package clickhouse

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
)

// A fake of clickhouse-go's database/sql connection, at the boundary the
// server path uses: statements (with their arguments), batches (BeginTx,
// PrepareContext of the INSERT, one Exec per row, Commit), Close. It
// checks what the wrapper sends, not what a server does with it.
type fakeCH struct {
	mu      sync.Mutex
	stmts   []string // every statement, in order
	args    int      // arguments passed with any statement (want none)
	batches [][][]any
	open    [][]any // the batch being filled
	inBatch bool
	closed  int
	failRow int // the row whose Exec fails (1-based), 0 for none
	rows    int
	result  map[string][][]any  // canned results by statement
	types   map[string][]string // their columns' ClickHouse types, when given
}

func (f *fakeCH) Connect(context.Context) (driver.Conn, error) { return (*fakeConn)(f), nil }
func (f *fakeCH) Driver() driver.Driver                        { return drv{} }

type fakeConn fakeCH

func (c *fakeConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("prepare outside a batch")
}
func (c *fakeConn) Close() error { c.closed++; return nil }
func (c *fakeConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}
func (c *fakeConn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	if c.inBatch {
		return nil, errors.New("a batch is open")
	}
	c.inBatch = true
	return (*fakeTx)(c), nil
}
func (c *fakeConn) Ping(context.Context) error { return nil }

func (c *fakeConn) ExecContext(_ context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if c.inBatch {
		return nil, errors.New("a statement inside a batch")
	}
	c.stmts = append(c.stmts, q)
	c.args += len(args)
	return driver.RowsAffected(0), nil
}

func (c *fakeConn) QueryContext(_ context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.stmts = append(c.stmts, q)
	c.args += len(args)
	return &fakeResult{rows: c.result[q], types: c.types[q]}, nil
}

func (c *fakeConn) PrepareContext(_ context.Context, q string) (driver.Stmt, error) {
	if !c.inBatch {
		return nil, errors.New("prepare outside a batch")
	}
	c.stmts = append(c.stmts, q)
	c.open = nil
	return (*fakeBatchStmt)(c), nil
}

type fakeBatchStmt fakeCH

func (s *fakeBatchStmt) Close() error                               { return nil }
func (s *fakeBatchStmt) NumInput() int                              { return -1 }
func (s *fakeBatchStmt) Query([]driver.Value) (driver.Rows, error)  { return nil, errors.New("no") }
func (s *fakeBatchStmt) Exec([]driver.Value) (driver.Result, error) { return nil, errors.New("no") }
func (s *fakeBatchStmt) ExecContext(_ context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.rows++
	if s.rows == s.failRow {
		return nil, errors.New("clickhouse [AppendRow]: bad value for user adv_u password " + secretPW)
	}
	row := make([]any, len(args))
	for i, a := range args {
		row[i] = a.Value
	}
	s.open = append(s.open, row)
	return driver.RowsAffected(0), nil
}

type fakeTx fakeCH

func (t *fakeTx) Commit() error {
	t.batches = append(t.batches, t.open)
	t.open, t.inBatch = nil, false
	return nil
}
func (t *fakeTx) Rollback() error {
	return errors.New("clickhouse-go's Rollback closes the connection")
}

type fakeResult struct {
	rows  [][]any
	types []string
	i     int
}

func (r *fakeResult) ColumnTypeDatabaseTypeName(i int) string {
	if i < len(r.types) {
		return r.types[i]
	}
	return ""
}

func (r *fakeResult) Columns() []string {
	if len(r.rows) == 0 {
		return []string{"x"}
	}
	cols := make([]string, len(r.rows[0]))
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i)
	}
	return cols
}
func (r *fakeResult) Close() error { return nil }
func (r *fakeResult) Next(dest []driver.Value) error {
	if r.i >= len(r.rows) {
		return io.EOF
	}
	for i, v := range r.rows[r.i] {
		dest[i] = v
	}
	r.i++
	return nil
}

const secretPW = "S3cr3t-pw"

func openFake(t *testing.T, f *fakeCH) *Server {
	url := "clickhouse://adv_u:" + secretPW + "@h:9000/sales"
	if f.result == nil {
		f.result = map[string][][]any{}
	}
	f.result["SELECT currentDatabase()"] = [][]any{{"sales"}}
	s, err := openServer(t.Context(), url, f, job.NewRedactor(url))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// Statements reach clickhouse-go bound as chDB binds them, with no
// arguments; transactions never reach it (its Rollback would close the
// session).
func TestServerBindsAsChDB(t *testing.T) {
	f := &fakeCH{}
	s := openFake(t, f)
	ctx := t.Context()
	require.Equal(t, "sales", s.Names().DefaultSchema)
	at := time.Date(2026, 11, 28, 13, 0, 0, 0, time.UTC)
	q := `INSERT INTO "t" VALUES ($1, $2, $3, '$1')`
	_, err := s.Conn().ExecContext(ctx, q, "it's", at, nil)
	require.NoError(t, err)
	want, err := Bind(q, []any{"it's", at, nil})
	require.NoError(t, err)
	require.Equal(t, want, f.stmts[len(f.stmts)-1])
	require.Contains(t, want, `'it\'s'`)
	require.Contains(t, want, `'$1'`, "text in quotes is no parameter")

	tx, err := s.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "SELECT $1", int64(7))
	require.NoError(t, err)
	require.Equal(t, "SELECT 7", f.stmts[len(f.stmts)-1])
	require.NoError(t, tx.Rollback())
	require.Zero(t, f.closed, "a rollback keeps the session")
	require.Zero(t, f.args, "clickhouse-go binds nothing")

	f.result["SELECT n"] = [][]any{{uint64(3)}}
	var n int64
	require.NoError(t, s.Conn().QueryRowContext(ctx, "SELECT n").Scan(&n))
	require.Equal(t, int64(3), n)
}

// The reader's rows go to the server in native blocks, one per batch,
// each sent before the next is read, on the run's connection, as typed Go
// values of the table's columns; the INSERT names the columns.
func TestServerLoadRowsStreams(t *testing.T) {
	n := input.BatchRows*2 + 7
	var b strings.Builder
	b.WriteString("id,amount,day\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%d.25,2026-11-28\n", i, i)
	}
	in := scan(t, b.String(), map[string]input.Type{"amount": input.DecimalType(18, 2)}, nil)
	f := &fakeCH{}
	s := openFake(t, f)
	cols := newColumns(in)
	for _, q := range s.SQL().Stage.CreateStage(engine.StageTable, cols) {
		_, err := s.Conn().ExecContext(t.Context(), q)
		require.NoError(t, err)
	}
	var recorded []string
	rd := in.Read(t.Context())
	defer rd.Close()
	got, err := s.LoadRows(t.Context(), s.Conn(), engine.Table{Name: engine.StageTable}, cols, rd, func(q string) { recorded = append(recorded, q) })
	require.NoError(t, err)
	require.Equal(t, int64(n), got)

	require.Len(t, f.batches, 3)
	require.Len(t, f.batches[0], input.BatchRows)
	require.Len(t, f.batches[1], input.BatchRows)
	require.Len(t, f.batches[2], 7)
	last := f.batches[2][6]
	require.Equal(t, int64(n-1), last[0])
	require.Equal(t, fmt.Sprintf("%d.25", n-1), last[1].(decimal.Decimal).StringFixed(2))
	require.Equal(t, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), last[2].(time.Time))

	var ddl, inserts []string
	for _, q := range f.stmts {
		if strings.HasPrefix(q, "INSERT") {
			inserts = append(inserts, q)
		} else if !strings.HasPrefix(q, "SELECT") {
			ddl = append(ddl, q)
		}
	}
	ins := `INSERT INTO "idem_stage" ("id", "amount", "day")`
	require.Equal(t, []string{ins, ins, ins}, inserts)
	require.Equal(t, []string{
		`DROP TEMPORARY TABLE IF EXISTS "idem_stage"`,
		`CREATE TEMPORARY TABLE "idem_stage" ("id" Nullable(Int64), "amount" Nullable(Decimal(18, 2)), "day" Nullable(Date32)) ENGINE = MergeTree ORDER BY tuple()`,
	}, ddl)
	require.Equal(t, []string{ins + " -- the rows, in native blocks"}, recorded)
	require.Zero(t, f.args)
}

// A row the driver refuses fails the load with its message, password
// hidden; the connection, left inside an INSERT, refuses what follows
// and the run reads as a lost connection.
func TestServerLoadFailureBreaksConn(t *testing.T) {
	in := scan(t, "id\n1\n2\n3\n", nil, nil)
	f := &fakeCH{failRow: 2}
	s := openFake(t, f)
	rd := in.Read(t.Context())
	defer rd.Close()
	_, err := s.LoadRows(t.Context(), s.Conn(), engine.Table{Name: engine.StageTable}, newColumns(in), rd, nil)
	require.ErrorContains(t, err, "bad value")
	require.NotContains(t, err.Error(), secretPW)
	_, err = s.Conn().ExecContext(t.Context(), "SELECT 1")
	require.ErrorIs(t, err, errBrokenConn)
	require.NotContains(t, err.Error(), secretPW)
	require.ErrorIs(t, s.Interpret(err), engine.ErrConnLost)
}
