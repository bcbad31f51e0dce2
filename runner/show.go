package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
)

// Shown is the first rows of a job's target, or of one of its partitions:
// `idem show`.
type Shown struct {
	// Table is the target as the job names it; Partition "" for the whole
	// table.
	Table, Partition string
	Columns          []engine.Column
	// Kinds are the columns' kinds of value (0 where the reader has none
	// for the type), so a caller can print numbers as numbers.
	Kinds []input.Kind
	// Rows are the values as the engine prints them; nil is NULL.
	Rows [][]*string
	// Total is the number of rows of the table or partition; OrderedBy the
	// columns the rows are ordered by, first to last.
	Total     int64
	OrderedBy []string
}

// ErrNoTable marks a target table that does not exist (yet).
var ErrNoTable = errors.New("does not exist")

// Show reads the first limit rows of j's target (of partition, a label of
// j's grain, when not ""), in one order whatever order they were written
// in (stdsql.ShowOrder: the key's columns, then every other column). It
// only reads: open db with OpenReadOnly.
func Show(ctx context.Context, db engine.DB, j *job.Job, partition string, limit int) (*Shown, error) {
	if limit < 1 {
		return nil, fmt.Errorf("limit %d: give 1 or more", limit)
	}
	var w job.Window
	if partition != "" {
		if j.Strategy != job.StrategyPartition {
			return nil, fmt.Errorf("job %s merges into one table: its runs' dates name runs, not rows; show the whole table", j.Name)
		}
		var err error
		if w, err = j.Window(partition); err != nil {
			return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
		}
	}
	s := &session{q: db.Conn(), log: slog.New(slog.DiscardHandler)}
	d := db.SQL()
	t := engine.Table(j.Table())
	out := &Shown{Table: j.Target.Table, Partition: partition}
	if err := showColumns(ctx, s, d, j, out); err != nil {
		return nil, err
	}
	cond := ""
	if partition != "" {
		var err error
		if cond, err = windowCond(d, j, w, out.Columns); err != nil {
			return nil, err
		}
	}
	var key []string
	for _, k := range j.Key {
		if slices.ContainsFunc(out.Columns, func(c engine.Column) bool { return c.Name == k }) {
			key = append(key, k)
		}
	}
	out.OrderedBy = dedupe(slices.Concat(key, names(out.Columns)))
	var err error
	if out.Total, err = s.count(ctx, d.Inspect.Count(d.Table(t), cond)); err != nil {
		return nil, fmt.Errorf("counting the rows of %s: %w", j.Target.Table, err)
	}
	head := d.Inspect.Head(d.Table(t), out.Columns, cond, stdsql.ShowOrder(d, key, out.Columns), limit)
	if out.Rows, err = textRows(ctx, s, head, len(out.Columns)); err != nil {
		return nil, fmt.Errorf("reading the rows of %s: %w", j.Target.Table, err)
	}
	return out, nil
}

// showColumns fills out's columns: the driver's types, as a run reads
// them (the window and the order are built from these, as a run's are),
// and the kind of value the reader has for each column's full type.
func showColumns(ctx context.Context, s *session, d *engine.SQL, j *job.Job, out *Shown) error {
	t := engine.Table(j.Table())
	q, args := d.Catalog.ColumnTypes(t)
	full := map[string]string{}
	if err := eachRow(ctx, s, q, args, func(rows *sql.Rows) error {
		var name, typ string
		err := rows.Scan(&name, &typ)
		full[name] = typ
		return err
	}); err != nil {
		return fmt.Errorf("reading the columns of %s: %w", j.Target.Table, err)
	}
	if len(full) == 0 {
		return fmt.Errorf("table %s %w: no run has loaded it yet", j.Target.Table, ErrNoTable)
	}
	cols, err := s.columns(ctx, d, d.Table(t))
	if err != nil {
		return fmt.Errorf("reading the columns of %s: %w", j.Target.Table, err)
	}
	out.Columns = cols
	for _, c := range cols {
		var k input.Kind
		if rt, ok := d.Types.ReaderType(full[c.Name]); ok {
			k = rt.Kind
		}
		out.Kinds = append(out.Kinds, k)
	}
	return nil
}

// textRows reads the rows of a query selecting n columns as text; a NULL
// is nil.
func textRows(ctx context.Context, s *session, q string, n int) ([][]*string, error) {
	var out [][]*string
	err := eachRow(ctx, s, q, nil, func(rows *sql.Rows) error {
		vals := make([]sql.NullString, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make([]*string, n)
		for i, v := range vals {
			if v.Valid {
				row[i] = &v.String
			}
		}
		out = append(out, row)
		return nil
	})
	return out, err
}

// dedupe keeps the first of each name.
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func eachRow(ctx context.Context, s *session, q string, args []any, f func(*sql.Rows) error) error {
	rows, err := s.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
