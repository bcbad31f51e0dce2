package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
)

// Input files are read by the one reader (package input): it decides
// every value's type over the whole input (a column the target has, or the
// job declares, is read as that type: exactly, or refused), and the engine
// receives typed rows (engine.RowLoader). No database parses an input
// value.

// ErrInputChanged marks a run whose input files changed while it read
// them: it wrote nothing, and a later run reads them as they are then.
var ErrInputChanged = input.ErrChanged

// changedSince is ErrInputChanged for files whose bytes, as the reader
// read them, are not those the run id was taken from.
func changedSince(files []string) error {
	return fmt.Errorf("%w: the bytes of %s changed after the run hashed them for its run id; run again", ErrInputChanged, strings.Join(files, ", "))
}

// targetTypes reads the target's columns with their full types, for the
// reader: values written into an existing column are read as its type.
func (r *run) targetTypes(ctx context.Context) (map[string]string, error) {
	if !r.exists {
		return nil, nil
	}
	q, args := r.sql.Catalog.ColumnTypes(engine.Table(r.job.Table()))
	rows, err := r.s.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the column types of %s: %w", r.job.Target.Table, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		out[name] = typ
	}
	return out, rows.Err()
}

// readerSpec is what the reader is told about the input's columns: the
// target's types (values go into them exactly), then the job's declared
// types, and BOOLEAN for delete_when. unwritable are target columns of a
// type idem cannot write exactly, by name.
func (r *run) readerSpec(files []string, target map[string]string) (spec input.Spec, unwritable map[string]string, err error) {
	spec = input.Spec{Paths: files, Format: r.job.Source.Format, Types: map[string]input.Type{}, Limits: r.sql.Types.Limits()}
	for c, t := range r.job.Columns {
		it, err := input.ParseType(t)
		if err != nil {
			return spec, nil, &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "columns." + c, Line: r.job.Pos.Columns[c], Msg: err.Error()}}}
		}
		spec.Types[c] = it
	}
	if dw := r.job.DeleteWhen; dw != "" {
		if _, declared := spec.Types[dw]; !declared {
			spec.Types[dw] = input.BoolType
		}
	}
	unwritable = map[string]string{}
	declared := maps.Clone(spec.Types)
	for c, t := range target {
		rt, ok := r.sql.Types.ReaderType(t)
		if !ok {
			unwritable[c] = t
			continue
		}
		for d, dt := range declared {
			if _, other := target[d]; d != c && (other || !strings.EqualFold(d, c)) {
				continue
			}
			// The target's column decides, under the target's spelling
			// (the reader matches names without case); but a length the
			// job declares holds where the engine keeps none (DuckDB and
			// ClickHouse, MariaDB past 255 characters), so that one job
			// takes the same values on every engine.
			delete(spec.Types, d)
			if dt.Kind == input.Text && rt.Kind == input.Text && dt.MaxChars > 0 && (rt.MaxChars == 0 || dt.MaxChars < rt.MaxChars) {
				rt.MaxChars = dt.MaxChars
			}
		}
		spec.Types[c] = rt
	}
	spec.Locate = slices.Clone([]string(r.job.Key))
	if p := r.job.Partition.Column; p != "" {
		spec.Locate = append(spec.Locate, p)
	}
	return spec, unwritable, nil
}

// scanFiles reads the input files once (input.Scan), refusing what the
// job or the target cannot take before anything is written.
func (r *run) scanFiles(ctx context.Context, files []string) (*input.Input, error) {
	target, err := r.targetTypes(ctx)
	if err != nil {
		return nil, err
	}
	spec, unwritable, err := r.readerSpec(files, target)
	if err != nil {
		return nil, err
	}
	in, err := input.Scan(ctx, spec)
	if err != nil {
		return nil, r.typeSource(r.readError(err), target)
	}
	for _, c := range in.Columns {
		if t, ok := unwritable[c.Name]; ok {
			return nil, &InputError{Msg: fmt.Sprintf("column %q of target %s is %s, a type idem cannot write input values into exactly; give the column one of the types idem writes (%s)",
				c.Name, r.job.Target.Table, t, input.TypeNames)}
		}
	}
	if err := r.checkPartitionColumn(in); err != nil {
		return nil, err
	}
	return in, nil
}

// typeSource says, of a value refused for its column's type, where that
// type comes from: the target's column (its type never changes silently)
// or the job's columns:.
func (r *run) typeSource(err error, target map[string]string) error {
	var ie *InputError
	if !errors.As(err, &ie) || ie.Column == "" {
		return err
	}
	if t, ok := target[ie.Column]; ok {
		ie.Msg += fmt.Sprintf(" (column %q of %s is %s, and a column's type never changes silently: change the input, or the column yourself)", ie.Column, r.job.Target.Table, t)
	} else if t, ok := r.job.Columns[ie.Column]; ok {
		ie.Msg += fmt.Sprintf(" (columns: declares it %s)", t)
	}
	return err
}

// checkPartitionColumn refuses a partition column the reader found to be
// text although most of its values are dates or timestamps: the first value
// that is not one is bad input.
func (r *run) checkPartitionColumn(in *input.Input) error {
	col := r.job.Partition.Column
	if col == "" || r.job.Strategy != job.StrategyPartition {
		return nil
	}
	for _, c := range in.Columns {
		if c.Name != col || c.Type.IsTime() || c.FirstText == nil || c.TimeValues == 0 {
			continue
		}
		what := "a date or timestamp"
		return &InputError{Msg: fmt.Sprintf("%s line %d: column %q: %q is not %s (like 2026-11-28 or 2026-11-28 13:45:00); the partition column's other values are dates or timestamps",
			c.FirstText.File, c.FirstText.Line, col, c.FirstText.Value, what), File: c.FirstText.File, Line: c.FirstText.Line, Column: col}
	}
	return nil
}

// stageColumns are the staged columns for the reader's columns: an
// existing target column's own type, else the engine's type for the
// reader's; the run remembers them (noteStaged).
func (r *run) stageColumns(in *input.Input, target map[string]string) []engine.Column {
	cols := make([]engine.Column, len(in.Columns))
	for i, c := range in.Columns {
		typ, ok := target[c.Name]
		if !ok {
			typ = r.sql.Types.ColumnType(c.Type)
		}
		cols[i] = engine.Column{Name: c.Name, Type: typ}
	}
	r.noteStaged(cols)
	return cols
}

// stageFiles reads the input files through the reader into stageTable, or,
// on a direct first load, straight into the new target (or the table
// built to replace it), with stageTable made empty beside it. Input
// objects were read at the identity the run id was taken from: their
// spool files cannot have changed since.
func (r *run) stageFiles(ctx context.Context, files []string) error {
	in, err := r.scanFiles(ctx, files)
	if err != nil {
		return err
	}
	if fp := r.res.InputFingerprint; fp != "" && fp != in.Fingerprint && r.remote == nil {
		return changedSince(files)
	}
	r.scanned = in
	target, err := r.targetTypes(ctx)
	if err != nil {
		return err
	}
	cols := r.stageColumns(in, target)
	// Refused before anything is created: what the job names and the
	// target holds are known from the reader's columns.
	if err := r.checkColumns(cols, r.targetCols); err != nil {
		return err
	}
	for _, q := range r.sql.Stage.CreateStage(stageTable, cols) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("creating the staging table: %w", err)
		}
	}
	dest := engine.Table{Name: stageTable}
	if r.direct {
		if err := r.createDirect(ctx, in); err != nil {
			return err
		}
		if r.direct {
			dest = r.built
		}
	}
	return r.loadScanned(ctx, in, dest, cols)
}

// loadScanned loads the rows the reader scanned into dest, as they are
// read (streamed).
func (r *run) loadScanned(ctx context.Context, in *input.Input, dest engine.Table, cols []engine.Column) error {
	how := "via " + r.db.LoadPath()
	if r.direct {
		how += ", straight into the new table"
	}
	r.s.mark(KindLoad, engine.LoadNote(r.files, r.quoted(dest), how))
	n, err := r.streamed(ctx, func(ctx context.Context) (int64, error) {
		rows := in.Read(ctx)
		defer rows.Close()
		return r.db.LoadRows(ctx, r.s.q, dest, cols, rows, r.s.note)
	})
	if err != nil {
		return r.readError(err)
	}
	if n != in.Rows {
		return fmt.Errorf("loading the input: the reader read %d rows, the database took %d", in.Rows, n)
	}
	r.res.RowsIn = n
	return nil
}

// noteStaged remembers the types the staging table is created with.
func (r *run) noteStaged(cols []engine.Column) {
	r.stagedAs = make(map[string]string, len(cols))
	for _, c := range cols {
		r.stagedAs[c.Name] = c.Type
	}
}

// quoted is t as the engine quotes it (a temporary table unqualified).
func (r *run) quoted(t engine.Table) string {
	if t.Schema == "" {
		return r.sql.Ident(t.Name)
	}
	return r.sql.Table(t)
}

// createDirect creates the table a direct first load writes its rows into:
// the new target in the run's transaction (a transactional engine), or the
// table built to replace it. A first load that cannot go there (no rows, a
// target another run created meanwhile, a schema that does not exist yet
// on an engine whose DDL commits, a partition column a partitioned table
// cannot be built by) is staged as usual.
func (r *run) createDirect(ctx context.Context, in *input.Input) error {
	stmts, after, err := r.proto.directDDL(ctx, r, in)
	r.afterRows = after
	if errors.Is(err, errNotDirect) {
		r.built, r.direct = engine.Table{}, false
		return nil
	}
	if err != nil {
		return err
	}
	for _, q := range append(stmts, r.markJSON(r.built, nil)...) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("creating %s: %w", r.built.Name, err)
		}
	}
	return nil
}

// cmpErr is err when there is one, else fallback.
func cmpErr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// errNotDirect: the input is staged, not loaded straight into a new table.
var errNotDirect = errors.New("not a direct load")

// schemaExists reports whether schema exists ("" is the default one).
func (r *run) schemaExists(ctx context.Context, schema string) (bool, error) {
	if schema == "" {
		return true, nil
	}
	q, args := r.sql.Scratch.SchemaExists(schema)
	var n int64
	if err := r.s.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// readError turns what the reader refused into bad input (exit 1) or, for
// a column name no engine keeps alike, a job error (exit 2); any other
// error (the database's) is returned as it is.
func (r *run) readError(err error) error {
	if r.ctx != nil && r.ctx.Err() != nil {
		return err
	}
	var ie *input.Error
	if errors.As(err, &ie) {
		return &InputError{Msg: r.objectNames(ie.Error()), Err: err, File: r.objectNames(ie.File), Line: ie.Line, Column: ie.Column}
	}
	var ne *input.NameError
	if errors.As(err, &ne) {
		return &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "source.files", Msg: r.objectNames(ne.Error())}}}
	}
	return err
}

// locate names up to 3 input rows where any of cols is empty, by file and
// line, for an error message; "" for a query source or when none is known.
func (r *run) locate(cols []string) string {
	if r.scanned == nil {
		return ""
	}
	var locs []string
	for _, c := range r.scanned.Columns {
		if !slices.Contains(cols, c.Name) {
			continue
		}
		for _, l := range c.NullAt {
			if len(locs) < 3 {
				locs = append(locs, l.String())
			}
		}
	}
	if len(locs) == 0 {
		return ""
	}
	return ". At " + strings.Join(locs, "; ")
}

// markJSON is what records which of cols (names; nil for all) of t hold
// JSON as the reader read them, for an engine whose type alone does not
// say so (engine.Stager.MarkJSON).
func (r *run) markJSON(t engine.Table, cols []string) []string {
	if r.scanned == nil {
		return nil
	}
	var js []string
	for _, c := range r.scanned.Columns {
		if c.Type.Kind == input.JSON && (cols == nil || slices.Contains(cols, c.Name)) {
			js = append(js, c.Name)
		}
	}
	if len(js) == 0 {
		return nil
	}
	return r.sql.Stage.MarkJSON(t, js)
}

// HashAhead starts hashing the input files of the first partition a run of
// date loads (input.FingerprintAhead), before the target is opened: an
// unchanged rerun then waits for the longer of the hash and the open,
// ledger reads and partition checksum, not for both. It returns what
// forgets the hash if no run took it.
func HashAhead(j *job.Job, date string) (stop func()) {
	ws, err := j.Windows(date)
	if err != nil || !j.Source.HasFiles() {
		return func() {}
	}
	globs := renderGlobs(j, ws[0])
	if isRemote(globs) {
		return func() {}
	}
	files, err := input.List(j.Dir, globs)
	if err != nil || len(files) == 0 {
		return func() {}
	}
	return input.FingerprintAhead(files)
}
