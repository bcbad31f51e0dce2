package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
)

// A source database (source.url) is opened read-only through its engine's
// driver and read in one snapshot (engine.SourceReader). Its rows go
// through the one reader (input.ReadRows), once: straight into the new
// target on a first load (direct.go), as a file's do, else into the
// staging table. The fingerprint is taken in Go from the rows as they are
// read (input.RowsHash), so neither a first load nor a rerun scans what
// was written to take it; a rerun whose fingerprint the ledger has is
// skipped, the target untouched.

// stageSource reads the source database's rows into the new target (a
// direct first load) or stageTable, and fingerprints them.
func (r *run) stageSource(ctx context.Context) error {
	r.staged = true
	r.report(StepStaging)
	if err := r.proto.prepareDirect(ctx, r); err != nil {
		return err
	}
	src, err := r.openSource(ctx)
	if err != nil {
		return err
	}
	defer src.Close()
	reader, ok := src.(engine.SourceReader)
	if !ok {
		return r.sourceProblem("source.url", fmt.Errorf("this engine cannot be a source database yet (PostgreSQL, MySQL/MariaDB and DuckDB can)"))
	}
	query := job.RenderSQL(r.sourceQuery(src.SQL()), r.w, src.SQL())
	r.s.mark(KindSQL, "-- source, read-only, one snapshot: "+query)
	rows, err := reader.ReadSource(ctx, query)
	if err != nil {
		return r.sourceError(src, sourceErr{err})
	}
	hashed := input.HashRows(fromSource{rows})
	n, lerr := r.loadSourceStreamed(ctx, hashed)
	cerr := rows.Close()
	if lerr != nil {
		return r.sourceError(src, lerr)
	}
	if cerr != nil {
		return r.sourceError(src, sourceErr{cerr})
	}
	if n != hashed.Hash.Rows() {
		return fmt.Errorf("loading the source's rows: the reader read %d rows, the database took %d", hashed.Hash.Rows(), n)
	}
	r.res.RowsIn = n
	r.setRunID(hashed.Hash.Fingerprint())
	r.stageCols, err = r.s.columns(ctx, r.sql, r.sql.Ident(stageTable))
	return err
}

// decideSourceSkip decides the skip once the source's rows are read. A
// direct first load has built its table by then: a skip drops it (in the
// run's transaction, the rollback does).
func (r *run) decideSourceSkip(ctx context.Context) error {
	err := r.decideSkip(ctx)
	if errors.Is(err, errSkipped) && r.direct && r.built != engine.Table(r.job.Table()) {
		if _, derr := r.s.exec(ctx, r.proto.drop(r, r.built)); derr != nil {
			return derr
		}
		r.built, r.direct = engine.Table{}, false
	}
	return err
}

// openSource opens source.url read-only: a write through it is refused by
// the database itself.
func (r *run) openSource(ctx context.Context) (engine.DB, error) {
	t, err := job.ParseTargetURL(r.job.Source.URL)
	if err != nil {
		return nil, r.sourceProblem("source.url", err)
	}
	src, err := t.Driver.Open(ctx, t.Location, engine.OpenOptions{URL: r.job.Source.URL, Dir: r.job.Dir, LockTimeout: r.opts.LockTimeout, ReadOnly: true, Source: true})
	if errors.Is(err, engine.ErrBadTarget) {
		return nil, r.sourceProblem("source.url", err)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the source database: %w", err)
	}
	return src, nil
}

// sourceQuery is source.query, or the query source.table stands for: the
// partition's window of partition.column, or every row for a merge.
func (r *run) sourceQuery(d engine.Dialect) string {
	if r.job.Source.Query != "" {
		return r.job.Source.Query
	}
	t, _ := job.ParseTable(r.job.Source.Table) // checked by Validate
	col := ""
	if r.job.Strategy == job.StrategyPartition {
		col = r.job.Partition.Column
	}
	return stdsql.SelectWindow(d, engine.Table(t), col, "{{ start }}", "{{ end }}")
}

// loadSourceStreamed is loadSource under the engine's memory for rows
// streamed in (a rerun stages the whole source to read it once).
func (r *run) loadSourceStreamed(ctx context.Context, rows input.Rows) (int64, error) {
	return r.streamed(ctx, func(ctx context.Context) (int64, error) { return r.loadSource(ctx, rows) })
}

// streamed runs load, which appends rows as they are read (and closes its
// reader), under the engine's memory for that (engine.MemoryStream), then
// sets the run's own again: the reader's rows arrive in order, and what
// the engine holds beyond them can spill.
func (r *run) streamed(ctx context.Context, load func(context.Context) (int64, error)) (int64, error) {
	if err := r.caps.Memory.SizeMemory(ctx, r.s.q, engine.MemoryStream); err != nil {
		return 0, err
	}
	n, err := load(ctx)
	if err != nil {
		return n, err
	}
	// The reader's batches are garbage now, their pages still the
	// process's until a GC and the scavenger get to them: returned now,
	// before the engine's checks take memory of their own (DuckDB runs in
	// this process), they are not added to it (docs/decisions/0005).
	debug.FreeOSMemory()
	return n, r.caps.Memory.SizeMemory(ctx, r.s.q, r.memoryUse())
}

// loadSource creates the staging table for the source's columns and
// streams the rows into it, or, on a direct first load of a source with
// rows, into the new table (stageTable made empty beside it).
func (r *run) loadSource(ctx context.Context, rows input.Rows) (int64, error) {
	types, cols, err := r.sourceColumns(ctx, rows.Columns())
	if err != nil {
		return 0, err
	}
	if err := r.checkColumns(cols, r.targetCols); err != nil {
		return 0, err
	}
	for _, q := range r.sql.Stage.CreateStage(stageTable, cols) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return 0, fmt.Errorf("creating the staging table: %w", err)
		}
	}
	dest, how := engine.Table{Name: stageTable}, "via "+r.db.LoadPath()
	if r.direct {
		if rows, err = r.sourceDirect(ctx, rows); err != nil {
			return 0, err
		}
		if r.direct {
			dest, how = r.built, how+", straight into the new table"
		}
	}
	r.s.mark(KindLoad, engine.LoadNote([]string{"the source database"}, r.quoted(dest), how))
	in := input.ReadRows(ctx, rows, types, r.sql.Types.Limits())
	defer in.Close()
	n, err := r.db.LoadRows(ctx, r.s.q, dest, cols, in, r.s.note)
	return n, r.readError(err)
}

// sourceDirect reads the source's first row ahead: with one, the new
// table is created (createDirect) and the rows returned give that row
// again first; with none, the (empty) input is staged.
func (r *run) sourceDirect(ctx context.Context, rows input.Rows) (input.Rows, error) {
	p := &peeked{Rows: rows, first: make([]any, len(rows.Columns())), firstTyped: make([]input.Value, len(rows.Columns()))}
	if !p.peek() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		r.built, r.direct = engine.Table{}, false
		return p, nil // an empty source: no row to give again
	}
	p.again = true
	// createDirect asks only whether the input has rows: it has.
	return p, r.createDirect(ctx, &input.Input{Columns: r.scanned.Columns, Rows: 1})
}

// peeked are rows whose first row was read ahead, into first (or
// firstTyped when the rows are typed: its text is still the driver's, as
// no other row was read since).
type peeked struct {
	input.Rows
	first      []any
	firstTyped []input.Value
	again      bool // first is still to be given
}

func (p *peeked) peek() bool {
	if p.Typed() {
		return p.Rows.(input.ValueRows).NextValues(p.firstTyped)
	}
	return p.Rows.Next(p.first)
}

func (p *peeked) Typed() bool { return input.IsTyped(p.Rows) }

func (p *peeked) NextValues(dest []input.Value) bool {
	if p.again {
		p.again = false
		copy(dest, p.firstTyped)
		return true
	}
	return p.Rows.(input.ValueRows).NextValues(dest)
}

func (p *peeked) Next(dest []any) bool {
	if p.again {
		p.again = false
		copy(dest, p.first)
		return true
	}
	return p.Rows.Next(dest)
}

// sourceColumns types the source's columns as the reader reads them: an
// existing target column's type (values go into it exactly, or are
// refused), a type the job declares, else the source column's own; and
// the staged columns for them.
func (r *run) sourceColumns(ctx context.Context, src []input.Column) ([]input.Type, []engine.Column, error) {
	target, err := r.targetTypes(ctx)
	if err != nil {
		return nil, nil, err
	}
	spec, unwritable, err := r.readerSpec(nil, target)
	if err != nil {
		return nil, nil, err
	}
	types := make([]input.Type, len(src))
	scanned := &input.Input{}
	for i, c := range src {
		if err := input.CheckSourceName(c.Name); err != nil {
			return nil, nil, r.sourceProblem(r.sourcePath(), err)
		}
		if t, ok := unwritable[c.Name]; ok {
			return nil, nil, &InputError{Msg: fmt.Sprintf("column %q of target %s is %s, a type idem cannot write values into exactly; give the column one of the types idem writes (%s)",
				c.Name, r.job.Target.Table, t, input.TypeNames)}
		}
		types[i] = c.Type
		for name, t := range spec.Types {
			if strings.EqualFold(name, c.Name) {
				types[i] = t
			}
		}
		if err := r.checkAnyDecimal(c.Name, types[i]); err != nil {
			return nil, nil, err
		}
		scanned.Columns = append(scanned.Columns, input.Column{Name: c.Name, Type: types[i], Fixed: true})
	}
	r.scanned = scanned // its columns: which are JSON, for engines that must be told
	return types, r.stageColumns(scanned, target), nil
}

// checkAnyDecimal refuses a decimal of any precision and scale (numeric
// without them, or past 38 digits) for a target whose decimals have a
// fixed scale: it would round them. PostgreSQL's NUMERIC keeps each value.
func (r *run) checkAnyDecimal(col string, t input.Type) error {
	if !t.IsAnyDecimal() {
		return nil
	}
	if back, ok := r.sql.Types.ReaderType(r.sql.Types.ColumnType(t)); ok && back.IsAnyDecimal() {
		return nil
	}
	return r.sourceProblem(r.sourcePath(), fmt.Errorf("column %q is a decimal without a precision and scale (or more than %d digits), which this target holds only with a fixed scale, so its digits could be rounded: cast it in source.query (to NUMERIC(38,10), say), or declare it under columns: (DECIMAL(p,s))",
		col, input.MaxPrecision))
}

// sourcePath is where the job names what is read from the source.
func (r *run) sourcePath() string {
	if r.job.Source.Table != "" {
		return "source.table"
	}
	return "source.query"
}

// sourceProblem is a job error (exit 2) about the source at path.
func (r *run) sourceProblem(path string, err error) error {
	return &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: path, Msg: err.Error()}}}
}

// sourceError says what a failed read of the source was: a column type
// idem refuses (exit 2), a lost connection (exit 75: nothing was
// written, a later run may read it whole), or the error as it is.
func (r *run) sourceError(src engine.DB, err error) error {
	if errors.Is(err, engine.ErrSourceType) {
		return r.sourceProblem(r.sourcePath(), err)
	}
	if r.ctx != nil && r.ctx.Err() != nil {
		return err
	}
	var se sourceErr
	if ei, ok := src.(engine.ErrorInterpreter); ok && errors.As(err, &se) {
		if errors.Is(ei.Interpret(se.error), engine.ErrConnLost) {
			return fmt.Errorf("%w while reading it (%v); nothing was written: run it again", engine.ErrSourceLost, err)
		}
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	return fmt.Errorf("reading the source database: %w", err)
}

// sourceErr marks an error of the source database (not the target's, which
// a load's error may be too).
type sourceErr struct{ error }

func (e sourceErr) Unwrap() error { return e.error }

// fromSource marks the source rows' errors as the source's.
type fromSource struct{ engine.SourceRows }

func (f fromSource) Err() error {
	if err := f.SourceRows.Err(); err != nil {
		return sourceErr{err}
	}
	return nil
}

func (f fromSource) Typed() bool { return input.IsTyped(f.SourceRows) }

func (f fromSource) NextValues(dest []input.Value) bool {
	return f.SourceRows.(input.ValueRows).NextValues(dest)
}
