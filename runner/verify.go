package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// Verdicts of a verify.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// Figures are a table's row count and checksum (loaded_at left out).
type Figures struct {
	RowCount int64  `json:"row_count"`
	Checksum string `json:"checksum"`
}

// ColumnDiff is one column whose values differ between two runs.
type ColumnDiff struct {
	Column string `json:"column"`
	// Rows is how many rows differ in this column (with a key: rows of
	// one key; without: values of the first run the second lacks).
	Rows int64 `json:"rows"`
	// Of is the first run's row count, so "differs in every row" shows.
	Of int64 `json:"of"`
	// Key names the example row ("id=7"); "" without a key.
	Key    string `json:"key,omitempty"`
	First  string `json:"first"`
	Second string `json:"second"`
}

// ChangeCheck is the change-one-row check of a file source: one field of
// one input row is changed in a copy of the input, the job runs on the
// copy, and only the rows of that key (or that row) may change.
type ChangeCheck struct {
	// Verdict is pass, fail, or skipped (Note says why).
	Verdict string `json:"verdict"`
	Note    string `json:"note,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  string `json:"column,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Key     string `json:"key,omitempty"`
	// Removed and Added are the table rows that differ from the run on
	// the unchanged input (at most maxListed each).
	Removed []string `json:"removed,omitempty"`
	Added   []string `json:"added,omitempty"`
}

// VerifyReport is what `idem verify` found. Its JSON form is the contract
// of `idem verify --json`.
type VerifyReport struct {
	Job       string `json:"job"`
	Partition string `json:"partition"`
	Strategy  string `json:"strategy"`
	Verdict   string `json:"verdict"`
	// First and Second are the scratch table after each run. For a
	// partition job, the second is a forced rerun into the same table; for
	// a merge, a run into a fresh table (the rerun must write nothing).
	First  Figures `json:"first"`
	Second Figures `json:"second"`
	// RerunWritten is, for a merge, what the rerun of the same snapshot
	// inserted, updated or deleted: it must be 0.
	RerunWritten *int64 `json:"rerun_written,omitempty"`
	// Why says, when the verdict is fail, why (its fields are the
	// report's own in its JSON form).
	Why
	Change *ChangeCheck `json:"change_one_row,omitempty"`
	// Runs are the runner's results, in order (for -v and debugging).
	Runs []Result `json:"-"`
	// Cleanup is what Verify could not drop (not in the JSON form).
	Cleanup
}

// Why is why a verification failed.
type Why struct {
	// Reason says, when the verdict is fail, why, in a user's terms.
	Reason  string       `json:"reason,omitempty"`
	Columns []ColumnDiff `json:"columns,omitempty"`
	// Rows lists rows only one run has when no column alone explains it.
	Rows []string `json:"rows,omitempty"`
}

// Cleanup is what a verification left behind.
type Cleanup struct {
	// Leftover are the scratch tables Verify could not drop on its
	// connection (CleanupErr says why); drop them with DropScratch on
	// another.
	Leftover   []engine.Table `json:"-"`
	CleanupErr error          `json:"-"`
}

// maxListed bounds the rows a report lists.
const maxListed = 10

// ScratchPrefix begins the name of every table verify creates: nothing
// else idem creates, or a user should, is named so.
const ScratchPrefix = "idem_verify_"

// Verify runs j for opts.Date into scratch tables of the job's own database
// (next to the target, named ScratchPrefix + a random suffix), with a
// scratch ledger: the target table and idem_runs are never read for
// writing, never locked, never written. Every scratch table is dropped
// before Verify returns, on failure and on cancellation too. A merge job's
// snapshot runs into a fresh table twice and is rerun once. For file
// sources, the change-one-row check follows a pass.
//
// A run that fails (bad input, a database error) is an error, not a
// verdict; the report then holds what was done.
func Verify(ctx context.Context, db engine.DB, j *job.Job, opts Options) (rep *VerifyReport, err error) {
	opts = opts.withDefaults()
	// Scratch runs load open partitions too: what is verified is the
	// transform, and nothing a reader sees is written.
	opts.AllowOpen = true
	opts.CrashAt = ""
	if _, err := j.Windows(opts.Date); err != nil {
		return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
	}
	rep = &VerifyReport{Job: j.Name, Partition: opts.Date, Strategy: j.Strategy, Verdict: VerdictPass}
	v, err := newVerifier(ctx, db, j, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		// The drops run on a context of their own: an interrupt cancels
		// ctx, and must not leave scratch tables behind.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if cerr := v.cleanup(cctx); cerr != nil {
			// The run's connection may be gone with the cancelled
			// statement: the caller, who can open another, drops them.
			rep.Leftover = v.tables
			rep.CleanupErr = fmt.Errorf("dropping verify's scratch tables (%s*): %w", v.base, cerr)
		}
	}()
	if err := v.verify(ctx, rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// verifier holds one verify's scratch names.
type verifier struct {
	db     engine.DB // the target, its ledger replaced by the scratch one
	raw    engine.DB
	d      *engine.SQL
	s      *session
	job    *job.Job
	opts   Options
	schema string // the target's schema, filled in
	base   string // scratch prefix of this verify
	// hadSchema says the target's schema exists; if not, the scratch
	// tables live in the default schema.
	hadSchema bool
	tables    []engine.Table // every scratch table name that may exist
}

func newVerifier(ctx context.Context, db engine.DB, j *job.Job, opts Options) (*verifier, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	// A random suffix, not a hash of job and date: two verifies of one
	// partition at once must not share (and drop) each other's tables.
	// The name is no data: guarantee 5 (no clocks, no randomness) is about
	// what lands in the target.
	base := ScratchPrefix + hex.EncodeToString(b[:])
	t := engine.Table(j.Table())
	if t.Schema == "" {
		t.Schema = db.Names().DefaultSchema
	}
	v := &verifier{raw: db, d: db.SQL(), job: j, opts: opts, schema: t.Schema, base: base,
		s: &session{q: db.Conn(), rec: opts.Record, log: opts.Logger}}
	v.db = withLedger(db, engine.Table{Schema: db.Names().Ledger.Schema, Name: base + "_runs"})
	v.listTables()
	var n int64
	q, args := v.d.Scratch.SchemaExists(t.Schema)
	err := v.s.QueryRowContext(ctx, q, args...).Scan(&n)
	if err != nil {
		return nil, fmt.Errorf("looking for schema %s: %w", t.Schema, err)
	}
	v.hadSchema = n > 0
	if !v.hadSchema {
		// The scratch tables go to the default schema rather than create
		// the target's: a real first run creating that schema would wait
		// for verify's uncommitted CREATE SCHEMA.
		v.schema = db.Names().DefaultSchema
		v.listTables()
	}
	return v, nil
}

// listTables lists every table verify's runs may create: the scratch
// targets, what a run builds beside each (a run cut short by an interrupt
// may leave its built table to verify), and the scratch ledger.
func (v *verifier) listTables() {
	v.tables = v.tables[:0]
	for _, n := range []string{"a", "s", "b", "c"} {
		v.tables = append(v.tables, v.table(n))
		v.tables = append(v.tables, engine.Beside(v.table(n), true)...)
		if xn := v.raw.Capabilities().ExchangeNames; xn != nil {
			ws, _ := v.job.Windows(v.opts.Date) // checked by Verify
			for _, w := range ws {
				v.tables = append(v.tables, xn.ExchangeTable(v.table(n), w.Label))
			}
		}
	}
	ls := v.raw.Names().Ledger.Schema
	v.tables = append(v.tables, engine.Table{Schema: ls, Name: v.base + "_runs"}, engine.Table{Schema: ls, Name: v.base + "_failures"})
}

// table is scratch table n ("a", "s", "b", "c").
func (v *verifier) table(n string) engine.Table {
	return engine.Table{Schema: v.schema, Name: v.base + "_" + n}
}

func (v *verifier) cleanup(ctx context.Context) error {
	return dropAll(ctx, v.s, v.d, v.tables)
}

func dropAll(ctx context.Context, q engine.Querier, d *engine.SQL, tables []engine.Table) error {
	var errs []error
	for _, t := range tables {
		if _, err := q.ExecContext(ctx, d.Scratch.DropTable(t)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// DropScratch drops tables (a report's Leftover) on db.
func DropScratch(ctx context.Context, db engine.DB, tables []engine.Table) error {
	return dropAll(ctx, db.Conn(), db.SQL(), tables)
}

// scratchJob is j writing table t instead of its target.
func (v *verifier) scratchJob(j *job.Job, t engine.Table) *job.Job {
	c := *j
	c.Target.Table = t.Schema + "." + t.Name
	return &c
}

// run runs j into scratch table t.
func (v *verifier) run(ctx context.Context, rep *VerifyReport, j *job.Job, t engine.Table, force bool) ([]Result, error) {
	o := v.opts
	o.Force = force
	rs, err := Run(ctx, v.db, v.scratchJob(j, t), o)
	for i := range rs { // the scratch name means nothing to a user
		rs[i].Error = strings.ReplaceAll(rs[i].Error, t.Schema+"."+t.Name, j.Target.Table)
	}
	rep.Runs = append(rep.Runs, rs...)
	if err != nil {
		return rs, err
	}
	for _, r := range rs {
		if r.Action != ActionLoaded {
			return rs, fmt.Errorf("%s partition %s: the scratch run did not load (%s)", j.Name, r.Partition, r.Action)
		}
	}
	return rs, nil
}

// verify runs the job twice into scratch tables and compares what they
// hold; a failure is explained, and a pass on file input is followed by
// the change-one-row check.
func (v *verifier) verify(ctx context.Context, rep *VerifyReport) error {
	if _, err := v.run(ctx, rep, v.job, v.table("a"), false); err != nil {
		return err
	}
	runAgain := v.rerunPartition
	if v.job.Strategy == job.StrategyMerge {
		runAgain = v.rerunMerge
	}
	first, second, err := runAgain(ctx, rep)
	if err != nil {
		return err
	}
	if err := v.compare(ctx, rep, first, second); err != nil {
		return err
	}
	if rep.Verdict == VerdictFail {
		return v.explain(ctx, rep, first, second)
	}
	if v.job.Source.HasFiles() {
		return v.checkChange(ctx, rep, first)
	}
	return nil
}

// rerunMerge reruns a merge's snapshot into table a, which must write
// nothing, then runs it into a fresh table b: a clock column loses every
// tie to the row already there, so a rerun alone would not show it.
func (v *verifier) rerunMerge(ctx context.Context, rep *VerifyReport) (first, second engine.Table, err error) {
	a, b := v.table("a"), v.table("b")
	rerun, err := v.run(ctx, rep, v.job, a, true)
	if err != nil {
		return a, b, err
	}
	var written int64
	for _, r := range rerun {
		written += r.Inserted + r.Updated + r.Deleted + r.DeletedAbsent
	}
	rep.RerunWritten = &written
	if _, err := v.run(ctx, rep, v.job, b, false); err != nil {
		return a, b, err
	}
	if written > 0 {
		rep.Verdict = VerdictFail
		rep.Reason = fmt.Sprintf("running the same snapshot again changed %d rows; it must change none", written)
	}
	return a, b, nil
}

// rerunPartition keeps run 1's table a as s before a forced run 2 replaces
// its partitions, so the two can be compared row by row.
func (v *verifier) rerunPartition(ctx context.Context, rep *VerifyReport) (first, second engine.Table, err error) {
	a, s := v.table("a"), v.table("s")
	if err := v.snapshot(ctx, a, s); err != nil {
		return s, a, err
	}
	_, err = v.run(ctx, rep, v.job, a, true)
	return s, a, err
}

// compare records both tables' figures; a difference fails the verify.
func (v *verifier) compare(ctx context.Context, rep *VerifyReport, first, second engine.Table) error {
	var err error
	if rep.First, err = v.figures(ctx, first); err != nil {
		return err
	}
	if rep.Second, err = v.figures(ctx, second); err != nil {
		return err
	}
	if rep.First != rep.Second {
		rep.Verdict = VerdictFail
		rep.Reason = "the two runs left different tables"
	}
	return nil
}

// checkChange runs the change-one-row check against baseline; its failure
// fails the verify.
func (v *verifier) checkChange(ctx context.Context, rep *VerifyReport, baseline engine.Table) error {
	rep.Change = &ChangeCheck{}
	if err := v.changeOneRow(ctx, rep, baseline); err != nil {
		return err
	}
	if rep.Change.Verdict == VerdictFail {
		rep.Verdict = VerdictFail
		rep.Reason = "changing one input row changed other rows too"
	}
	return nil
}

// snapshot copies table src to dst (which does not exist).
func (v *verifier) snapshot(ctx context.Context, src, dst engine.Table) error {
	ok, err := v.exists(ctx, src)
	if err != nil || !ok { // an allowed empty input creates no table
		return err
	}
	_, err = v.s.exec(ctx, v.d.Scratch.CopyTable(dst, src))
	return err
}

func (v *verifier) exists(ctx context.Context, t engine.Table) (bool, error) {
	q, args := v.d.Catalog.TableExists(t)
	rows, err := v.s.QueryContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// dataCols are t's columns but loaded_at.
func (v *verifier) dataCols(ctx context.Context, t engine.Table) ([]engine.Column, error) {
	cols, err := v.s.columns(ctx, v.d, v.d.Table(t))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cols, func(c engine.Column) bool { return c.Name == v.job.LoadedAt }), nil
}

// figures are t's row count and checksum; a table that does not exist
// (an allowed empty input) has none.
func (v *verifier) figures(ctx context.Context, t engine.Table) (Figures, error) {
	ok, err := v.exists(ctx, t)
	if err != nil || !ok {
		return Figures{}, err
	}
	cols, err := v.dataCols(ctx, t)
	if err != nil {
		return Figures{}, err
	}
	n, sum, err := v.s.checksum(ctx, v.d, v.d.Table(t), cols, "")
	return Figures{RowCount: n, Checksum: sum}, err
}

// explain names the columns whose values differ between tables f and g,
// each with an example, and, when no column alone explains the difference,
// lists rows only one of them has.
func (v *verifier) explain(ctx context.Context, rep *VerifyReport, f, g engine.Table) error {
	fe, err := v.exists(ctx, f)
	if err != nil {
		return err
	}
	ge, err := v.exists(ctx, g)
	if err != nil || !fe || !ge {
		return err
	}
	cols, err := v.dataCols(ctx, f)
	if err != nil {
		return err
	}
	diff := v.valueDiff
	if len(v.job.Key) > 0 {
		diff = v.keyedColumnDiff
	}
	for _, c := range cols {
		cd, err := diff(ctx, f, g, c.Name)
		if err != nil {
			return fmt.Errorf("comparing column %s: %w", c.Name, err)
		}
		if cd != nil {
			cd.Of = rep.First.RowCount
			rep.Columns = append(rep.Columns, *cd)
		}
	}
	if len(rep.Columns) == 0 {
		// Keys only one run has, or values that moved between rows.
		gone, added, err := v.rowDiff(ctx, f, g, cols)
		if err != nil {
			return err
		}
		rep.Rows = append(prefixAll("first run only: ", gone), prefixAll("second run only: ", added)...)
	}
	return nil
}

// keyedColumnDiff compares column col of f and g key by key: how many keys
// differ in it, and one of them; nil when none does. A key column itself
// is not compared.
func (v *verifier) keyedColumnDiff(ctx context.Context, f, g engine.Table, col string) (*ColumnDiff, error) {
	if slices.Contains(v.job.Key, col) {
		return nil, nil
	}
	count, sample := v.d.Diff.ColumnDiff(f, g, v.job.Key, col)
	n, err := v.s.count(ctx, count)
	if err != nil || n == 0 {
		return nil, err
	}
	cd := &ColumnDiff{Column: col, Rows: n}
	if err := v.s.QueryRowContext(ctx, sample).Scan(&cd.Key, &cd.First, &cd.Second); err != nil {
		return nil, err
	}
	return cd, nil
}

// valueDiff compares column col of f and g, without a key, as multisets of
// values: the larger count of values only one has, and an example from
// each side; nil when they hold the same values.
func (v *verifier) valueDiff(ctx context.Context, f, g engine.Table, col string) (*ColumnDiff, error) {
	countF, firstF := v.d.Diff.ValueDiff(f, g, col)
	countG, firstG := v.d.Diff.ValueDiff(g, f, col)
	n, err := v.s.count(ctx, countF)
	if err != nil {
		return nil, err
	}
	m, err := v.s.count(ctx, countG)
	if err != nil || (n == 0 && m == 0) {
		return nil, err
	}
	one := func(q string) string {
		var s string
		if err := v.s.QueryRowContext(ctx, q).Scan(&s); err != nil {
			return "(none)"
		}
		return s
	}
	return &ColumnDiff{Column: col, Rows: max(n, m), First: one(firstF), Second: one(firstG)}, nil
}

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

// rowDiff lists (up to maxListed each) the rows only f has and only g has,
// as multisets, as text.
func (v *verifier) rowDiff(ctx context.Context, f, g engine.Table, cols []engine.Column) (onlyF, onlyG []string, err error) {
	list := func(a, b engine.Table) ([]string, error) {
		rows, err := v.s.QueryContext(ctx, v.d.Diff.RowDiff(a, b, nil, names(cols), maxListed))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var k, s string
			if err := rows.Scan(&k, &s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, rows.Err()
	}
	if onlyF, err = list(f, g); err != nil {
		return nil, nil, fmt.Errorf("comparing rows: %w", err)
	}
	if onlyG, err = list(g, f); err != nil {
		return nil, nil, fmt.Errorf("comparing rows: %w", err)
	}
	return onlyF, onlyG, nil
}

// scratchDB is a target whose ledger (and so its failures table) is
// verify's scratch ledger.
type scratchDB struct {
	engine.DB
	ledger engine.Table
}

func (s scratchDB) Names() engine.Names {
	n := s.DB.Names()
	n.Ledger = s.ledger
	return n
}

func withLedger(db engine.DB, t engine.Table) engine.DB {
	return scratchDB{DB: db, ledger: t}
}
