package clickhouse

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse/internal/chdb"
)

// chDB runs one session per process, on one folder. The database/sql driver
// below puts every statement of every connection through that session, one
// at a time: chDB's C API is not safe for concurrent calls on a session.
//
// Statements take bind parameters $1, $2, … (as clickhouse-go does); they
// are rendered as typed literals by literal, on the client, since chDB's C
// API has no binding. ClickHouse has no transactions: Begin returns a
// transaction whose Commit and Rollback do nothing, and the engine keeps
// its guarantees with atomic swaps instead (see Swap, ReplacePartition).

type session struct {
	mu   sync.Mutex // one statement at a time
	s    *chdb.Session
	path string
	refs int
	// opened counts the handles opened on the session: each names the
	// run tables its own way (see own).
	opened int
}

var (
	sessMu   sync.Mutex
	sessCond = sync.NewCond(&sessMu)
	current  *session
)

// acquire returns the process's session on path, opening it when no
// session is open, and waiting (until ctx ends) while one is open on
// another folder.
func acquire(ctx context.Context, path string, open func() (*chdb.Session, error)) (*session, error) {
	stop := context.AfterFunc(ctx, func() {
		sessMu.Lock()
		sessCond.Broadcast()
		sessMu.Unlock()
	})
	defer stop()
	sessMu.Lock()
	defer sessMu.Unlock()
	for current != nil && current.path != path {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("waiting for this process's chDB session on %s to close (chDB opens one folder per process): %w", current.path, err)
		}
		sessCond.Wait()
	}
	if current == nil {
		s, err := open()
		if err != nil {
			return nil, err
		}
		current = &session{s: s, path: path}
	}
	current.refs++
	return current, nil
}

// release gives a session back; the last release closes it, so that
// another process (or folder) may open the folder.
func (s *session) release() {
	sessMu.Lock()
	defer sessMu.Unlock()
	s.refs--
	if s.refs == 0 {
		s.mu.Lock()
		s.s.Close()
		s.mu.Unlock()
		current = nil
		sessCond.Broadcast()
	}
}

// query runs one statement on the session.
func (s *session) query(q string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s.Query(q, "TabSeparatedWithNamesAndTypes")
}

// connector is a database/sql connector over one acquired session; its
// connections name the run tables with suffix.
type connector struct {
	s      *session
	suffix string
}

func (c connector) Connect(context.Context) (driver.Conn, error) {
	return &conn{s: c.s, suffix: c.suffix}, nil
}
func (c connector) Driver() driver.Driver { return drv{} }

type drv struct{}

func (drv) Open(string) (driver.Conn, error) {
	return nil, errors.New("chdb: open targets with the clickhouse engine")
}

type conn struct {
	s      *session
	suffix string
	closed bool
}

var (
	_ driver.ExecerContext  = (*conn)(nil)
	_ driver.QueryerContext = (*conn)(nil)
	_ driver.ConnBeginTx    = (*conn)(nil)
)

func (c *conn) Prepare(q string) (driver.Stmt, error) { return &stmt{c: c, q: q}, nil }
func (c *conn) Close() error                          { c.closed = true; return nil }
func (c *conn) Begin() (driver.Tx, error)             { return noTx{}, nil }
func (c *conn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	return noTx{}, nil
}

// noTx: ClickHouse has no transactions (see the package comment).
type noTx struct{}

func (noTx) Commit() error   { return nil }
func (noTx) Rollback() error { return nil }

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if _, err := c.run(ctx, q, args); err != nil {
		return nil, err
	}
	return driver.RowsAffected(0), nil
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	out, err := c.run(ctx, q, args)
	if err != nil {
		return nil, err
	}
	return parseTSV(out)
}

func (c *conn) run(ctx context.Context, q string, args []driver.NamedValue) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	text, err := Bind(own(q, c.suffix), vals)
	if err != nil {
		return nil, err
	}
	out, err := c.s.query(text)
	if err != nil {
		msg := strings.TrimSpace(err.Error())
		for _, t := range engine.RunTables {
			msg = strings.ReplaceAll(msg, t+c.suffix, t)
		}
		return nil, &Error{Msg: msg}
	}
	return out, nil
}

// own renames the run tables (engine.RunTables, quoted as Ident quotes
// them) in q outside string literals and comments: name becomes
// name+suffix. ClickHouse's temporary tables belong to a session, and a
// process has one chDB session, so without this two runs at once in one
// process (a verify and a real run) would read and drop each other's
// staged input.
func own(q, suffix string) string {
	if suffix == "" || !strings.Contains(q, `"idem_`) {
		return q
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			j := skipQuoted(q, i)
			tok := q[i:j]
			for _, t := range engine.RunTables {
				if tok == `"`+t+`"` {
					tok = `"` + t + suffix + `"`
					break
				}
			}
			b.WriteString(tok)
			i = j - 1
		case ch == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// Error is an error ClickHouse returned.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

type stmt struct {
	c *conn
	q string
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.q, named(args))
}
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), s.q, named(args))
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// Bind replaces $n outside quotes and comments with args[n-1] as a typed
// literal.
func Bind(q string, args []any) (string, error) {
	if len(args) == 0 {
		return q, nil
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			j := skipQuoted(q, i)
			b.WriteString(q[i:j])
			i = j - 1
		case ch == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case ch == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(q[i+1 : j])
			if n < 1 || n > len(args) {
				return "", fmt.Errorf("chdb: parameter $%d of %d", n, len(args))
			}
			lit, err := literal(args[n-1])
			if err != nil {
				return "", err
			}
			b.WriteString(lit)
			i = j - 1
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), nil
}

// skipQuoted returns the index after the quoted text starting at i;
// backslash escapes and doubled quotes stay inside it.
func skipQuoted(q string, i int) int {
	quote := q[i]
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			j++
		case quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// literal renders a bound value as a ClickHouse literal of its type.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return quoteString(x), nil
	case []byte:
		return quoteString(string(x)), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprintf("toFloat64('%v')", x), nil
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case time.Time:
		return "toDateTime64(" + quoteString(x.UTC().Format("2006-01-02 15:04:05.999999")) + ", 6, 'UTC')", nil
	}
	return "", fmt.Errorf("chdb: cannot bind a %T", v)
}

// quoteString is a ClickHouse string literal: backslash escapes are
// read in ClickHouse strings, so backslashes are escaped as well as quotes.
func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// rows is a result read from TabSeparatedWithNamesAndTypes.
type rows struct {
	names, types []string
	lines        [][]byte
	next         int
}

func parseTSV(out []byte) (*rows, error) {
	r := &rows{}
	if len(out) == 0 {
		return r, nil
	}
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	if len(lines) < 2 {
		return nil, fmt.Errorf("chdb: a result without its header: %q", out)
	}
	for _, f := range bytes.Split(lines[0], []byte("\t")) {
		r.names = append(r.names, unescape(f))
	}
	for _, f := range bytes.Split(lines[1], []byte("\t")) {
		r.types = append(r.types, unescape(f))
	}
	r.lines = lines[2:]
	return r, nil
}

func (r *rows) Columns() []string { return r.names }
func (r *rows) Close() error      { return nil }

// ColumnTypeDatabaseTypeName is ClickHouse's type name.
func (r *rows) ColumnTypeDatabaseTypeName(i int) string { return r.types[i] }

func (r *rows) Next(dest []driver.Value) error {
	if r.next >= len(r.lines) {
		return io.EOF
	}
	fields := bytes.Split(r.lines[r.next], []byte("\t"))
	r.next++
	if len(fields) != len(dest) {
		return fmt.Errorf("chdb: a row of %d fields for %d columns", len(fields), len(dest))
	}
	for i, f := range fields {
		v, err := value(f, r.types[i])
		if err != nil {
			return fmt.Errorf("chdb: column %s: %w", r.names[i], err)
		}
		dest[i] = v
	}
	return nil
}

// value converts one TSV field of type typ.
func value(f []byte, typ string) (driver.Value, error) {
	if string(f) == `\N` {
		return nil, nil
	}
	s := unescape(f)
	base := BaseType(typ)
	switch {
	case strings.HasPrefix(base, "Int") || strings.HasPrefix(base, "UInt"):
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		return s, nil // beyond int64: the text
	case strings.HasPrefix(base, "Float"):
		switch s {
		case "inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		case "nan", "-nan":
			return math.NaN(), nil
		}
		return strconv.ParseFloat(s, 64)
	case base == "Bool":
		return s == "true", nil
	case base == "Date" || base == "Date32":
		return time.ParseInLocation("2006-01-02", s, time.UTC)
	case strings.HasPrefix(base, "DateTime"):
		loc := time.UTC
		if i := strings.Index(base, "'"); i >= 0 {
			if l, err := time.LoadLocation(strings.Trim(base[i:], "')")); err == nil {
				loc = l
			}
		}
		return time.ParseInLocation("2006-01-02 15:04:05.999999999", s, loc)
	}
	return s, nil
}

// BaseType strips Nullable(…) and LowCardinality(…).
func BaseType(typ string) string {
	for _, w := range []string{"Nullable(", "LowCardinality("} {
		if strings.HasPrefix(typ, w) && strings.HasSuffix(typ, ")") {
			return BaseType(typ[len(w) : len(typ)-1])
		}
	}
	return typ
}

// unescape reads TSV's escapes.
func unescape(f []byte) string {
	if bytes.IndexByte(f, '\\') < 0 {
		return string(f)
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '\\' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '0':
			b.WriteByte(0)
		default:
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

// openDB opens a database/sql handle over a session, with one pinned
// connection.
func openDB(ctx context.Context, s *session) (*sql.DB, *sql.Conn, error) {
	// The session's first handle (in the CLI, the only one) keeps the
	// plain names, so a crashed run's idem_merge_plan is the next one's.
	sessMu.Lock()
	s.opened++
	suffix := ""
	if s.opened > 1 {
		suffix = fmt.Sprintf("__c%d", s.opened)
	}
	sessMu.Unlock()
	db := sql.OpenDB(connector{s: s, suffix: suffix})
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, c, nil
}
