package runner

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math/big"
	"strings"

	"github.com/idemdata/idem/engine"
)

// session runs a run's SQL on one querier (the connection, then the
// transaction), and shows every statement to the recorder: golden tests and
// `idem plan` see exactly what a run executes.
type session struct {
	q   engine.Querier
	rec func(string)
	// plan, set by Plan, also sees each step's kind (StepKind*): the same
	// texts rec sees, so a plan and a run's record cannot disagree.
	plan func(kind, text string)
	log  *slog.Logger
}

var _ engine.Querier = (*session)(nil)

// note records a SQL statement about to run.
func (s *session) note(query string) { s.mark(KindSQL, query) }

// mark records a step of the given kind: a statement, or a marker (a
// transaction boundary, the lock, the partition, a bulk load) that is not
// itself SQL text sent through this session.
func (s *session) mark(kind, text string) {
	if s.rec != nil {
		s.rec(text)
	}
	if s.plan != nil {
		s.plan(kind, text)
	}
	s.log.Debug("sql", "query", text)
}

func (s *session) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s.note(query)
	return s.q.ExecContext(ctx, query, args...)
}

func (s *session) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s.note(query)
	return s.q.QueryContext(ctx, query, args...)
}

func (s *session) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	s.note(query)
	return s.q.QueryRowContext(ctx, query, args...)
}

// exec runs a statement and returns the rows it affected.
func (s *session) exec(ctx context.Context, query string, args ...any) (int64, error) {
	r, err := s.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

// count runs a query that selects one integer.
func (s *session) count(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := s.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// columns lists a table's columns and types without reading a row.
func (s *session) columns(ctx context.Context, q *engine.SQL, table string) ([]engine.Column, error) {
	rows, err := s.QueryContext(ctx, q.Inspect.Columns(table))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]engine.Column, len(types))
	for i, t := range types {
		cols[i] = engine.Column{Name: t.Name(), Type: t.DatabaseTypeName()}
	}
	return cols, rows.Err()
}

// checksum runs the dialect's checksum and normalizes it to 16 hex digits:
// the sum of row hashes modulo 2^64, behind the function's tag if it has
// one (engine.ChecksumVersioner).
func (s *session) checksum(ctx context.Context, q *engine.SQL, table string, cols []engine.Column, where string) (int64, string, error) {
	return s.sum(ctx, q.Check.Checksum(table, cols, where), checksumTag(q))
}

// checksumTag is the tag of the engine's checksum function, if it has one
// (engine.ChecksumVersioner).
func checksumTag(q *engine.SQL) string {
	if v, ok := q.Check.(engine.ChecksumVersioner); ok {
		return v.ChecksumTag()
	}
	return ""
}

// checksumLike takes the checksum with the function that made stored (a
// checksum the ledger holds): the current one, or the engine's legacy one
// when stored lacks the current function's tag. It is what a stored value
// is compared with, so a ledger written before the function changed still
// matches an unchanged partition.
func (s *session) checksumLike(ctx context.Context, q *engine.SQL, stored, table string, cols []engine.Column, where string) (int64, string, error) {
	v, ok := q.Check.(engine.ChecksumVersioner)
	if !ok || strings.HasPrefix(stored, v.ChecksumTag()) {
		return s.checksum(ctx, q, table, cols, where)
	}
	return s.sum(ctx, v.LegacyChecksum(table, cols, where), "")
}

func (s *session) sum(ctx context.Context, query, tag string) (int64, string, error) {
	var n int64
	var sum string
	if err := s.QueryRowContext(ctx, query).Scan(&n, &sum); err != nil {
		return 0, "", err
	}
	return n, tag + normalizeSum(sum), nil
}

func normalizeSum(sum string) string {
	v, ok := new(big.Int).SetString(strings.TrimSpace(sum), 10)
	if !ok {
		return sum
	}
	mod := new(big.Int).Lsh(big.NewInt(1), 64)
	v.Mod(v, mod)
	return fmt.Sprintf("%016x", v)
}
