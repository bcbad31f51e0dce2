package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
)

// actionColumn is the merge plan's column saying what happens to each row.
const actionColumn = "_idem_action"

// planMerge decides what the merge does with each staged row: it writes
// each staged row that precedes its key's current row in the row order
// (stdsql.RowOrder): a newer version, or an equal version first by
// content. With delete_when, deletes are remembered in a tombstone table, so
// an older or equal version never brings a deleted key back.
func (r *run) planMerge(ctx context.Context) error {
	if !r.staged || r.res.RowsIn == 0 {
		if !r.job.AllowEmpty {
			return r.emptyError(ctx)
		}
		return nil
	}
	if err := r.mergeSpec(ctx); err != nil {
		return err
	}
	if r.direct {
		return r.planDirect(ctx)
	}
	if empty, err := r.intoEmpty(ctx); err != nil || empty {
		return err
	}
	if _, err := r.s.exec(ctx, r.sql.Merge.MergePlan(planTable, r.src, actionColumn, r.merge)); err != nil {
		return fmt.Errorf("planning the merge: %w", err)
	}
	planRows, err := r.countActions(ctx)
	if err != nil {
		return err
	}
	if err := r.checkPlanRows(ctx, planRows); err != nil {
		return err
	}
	if err := r.allowRewrite(ctx); err != nil {
		return err
	}
	// A merge's row count and checksum describe the rows it wrote: a scan
	// of the whole target on every merge would cost more than the merge.
	written := r.sql.Cond.In(actionColumn, engine.MergeInsert, engine.MergeReinsert, engine.MergeUpdate)
	r.res.RowCount, r.res.Checksum, err = r.s.checksum(ctx, r.sql, r.sql.Ident(planTable), r.dataColumns(r.stageCols), written)
	return err
}

// mergeSpec sets what the merge writes, and with delete_when makes sure
// of the tombstone table.
func (r *run) mergeSpec(ctx context.Context) error {
	j := r.job
	r.merge = engine.MergeSpec{
		Target: r.writeTarget(), Key: j.Key, LatestBy: j.VersionColumn(),
		DeleteWhen: j.DeleteWhen, Cols: r.stageCols, LoadedAt: j.LoadedAt,
	}
	if j.DeleteWhen == "" {
		return nil
	}
	tomb, err := engine.TombstoneTable(engine.Table(j.Table()))
	if err != nil {
		return &job.Error{File: j.Path, Problems: []job.Problem{{Path: "target.table", Msg: err.Error()}}}
	}
	r.merge.Tombstones = tomb
	return r.ensureTombstones(ctx, r.merge)
}

// countActions reads the merge plan's counts into the result, and
// returns its number of rows.
func (r *run) countActions(ctx context.Context) (int64, error) {
	rows, err := r.s.QueryContext(ctx, r.sql.Inspect.Tally(r.sql.Ident(planTable), actionColumn))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var total int64
	for rows.Next() {
		var action string
		var n int64
		if err := rows.Scan(&action, &n); err != nil {
			return 0, err
		}
		total += n
		switch action {
		case engine.MergeInsert, engine.MergeReinsert:
			r.res.Inserted += n
		case engine.MergeUpdate:
			r.res.Updated = n
		case engine.MergeDelete:
			r.res.Deleted = n
		case engine.MergeDeleteAbsent:
			r.res.DeletedAbsent = n
		case engine.MergeSkip:
			r.res.SkippedOlder = n
		case engine.MergeTie:
			r.res.KeptOnTie = n
		}
	}
	return total, rows.Err()
}

// mergeMatched applies the plan's first statement: matched keys deleted or
// updated.
func (r *run) mergeMatched(ctx context.Context) error { return r.applyMerge(ctx, true) }

// mergeRest applies the rest: tombstones, then the new keys; then it
// takes the target's row count, which the ledger records (the rerun
// check).
func (r *run) mergeRest(ctx context.Context) error {
	if r.direct {
		return r.moveDeletes(ctx)
	}
	if r.empty {
		return r.insertAll(ctx)
	}
	if err := r.applyMerge(ctx, false); err != nil || r.merge.Target.Name == "" {
		return err
	}
	before, ok, err := r.rowsBefore(ctx)
	if err != nil || ok {
		r.tableRows = before + r.res.Inserted - r.res.Deleted
		return err
	}
	r.tableRows, err = r.s.count(ctx, r.sql.Inspect.Count(r.sql.Table(r.merge.Target), ""))
	return err
}

// rowsBefore is the target's row count before this merge, as the job's
// last merge recorded it, when that record is the table's: one last run,
// of this definition, into this table, shared with no other job, and not
// --force (what a user runs after a rerun found the table changed). A
// count of every row, otherwise, costs a scan of the table (seconds at
// 30M rows on PostgreSQL, more on MariaDB) for a merge that touched 10k.
// A change made outside idem since that run is then seen by the next
// rerun's check, as a change made after this run would be.
func (r *run) rowsBefore(ctx context.Context) (int64, bool, error) {
	if r.opts.Force || len(r.job.Target.SharedWith) > 0 || !r.ledger {
		return 0, false, nil
	}
	runs, err := ledger.LastRuns(ctx, r.s, r.db, r.job.Name)
	if err != nil {
		return 0, false, err
	}
	last := ledger.Latest(runs, job.StrategyMerge)
	if len(last) != 1 || last[0].TableRows == 0 || last[0].TargetTable != r.tableName() || last[0].DefinitionHash != r.job.DefinitionHash() {
		return 0, false, nil
	}
	return last[0].TableRows, true, nil
}

// TargetChangedError ends a merge rerun the ledger calls done whose target
// no longer holds what the job's last run left (dropped, emptied, rows
// deleted or added outside idem): skipping it would leave the table wrong
// and exit 0.
type TargetChangedError struct{ Msg string }

func (e *TargetChangedError) Error() string { return e.Msg }

// checkMergeTarget fails a merge rerun when the target is gone, or holds
// another row count than the job's last merge run recorded after it (the
// runs that finished last, where several finished at one instant).
func (r *run) checkMergeTarget(ctx context.Context) error {
	runs, err := ledger.LastRuns(ctx, r.s, r.db, r.job.Name)
	if err != nil {
		return err
	}
	last := ledger.Latest(runs, job.StrategyMerge)
	if len(last) == 0 {
		return nil
	}
	now := "no longer exists"
	if r.exists {
		n, err := r.s.count(ctx, r.sql.Inspect.Count(r.table, ""))
		if err != nil {
			return err
		}
		// A table shared with other jobs changes size between this job's
		// runs: only its existence is checked.
		if ledger.Holds(last, n) || len(r.job.Target.SharedWith) > 0 {
			return nil
		}
		now = fmt.Sprintf("holds %d rows", n)
	}
	e := last[0]
	return &TargetChangedError{Msg: fmt.Sprintf(
		"%s %s: run %s of this input is in the ledger, but target %s %s; the job's last run (partition %s, run %s) left %d rows. "+
			"The table was changed outside idem, so this run is not skipped as done. To rebuild it from its inputs, drop it (with its %s table, if any) and run every partition again: idem backfill %s --from FIRST --to LAST --force; to merge this input into the table as it is, run again with --force",
		r.job.Name, r.w.Label, short(r.res.RunID), r.job.Target.Table, now, e.Partition, short(e.RunID), e.TableRows,
		engine.TombstoneSuffix, r.job.Path)}
}

func (r *run) applyMerge(ctx context.Context, first bool) error {
	if r.merge.Target.Name == "" { // an empty input, allowed
		return nil
	}
	var args []any
	if r.job.LoadedAt != "" {
		args = append(args, r.opts.Now().UTC())
	}
	ms := r.sql.Merge.Merge(planTable, actionColumn, r.merge)
	stmts := append(ms.Tombstones, ms.Insert...)
	if first {
		if r.res.Updated+r.res.Deleted == 0 { // no matched key changes (engine.MergeStatements)
			return nil
		}
		stmts = ms.Matched
	}
	var changed int64
	for _, q := range stmts {
		n, err := r.s.exec(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("merging into %s: %w", r.job.Target.Table, err)
		}
		changed += n
	}
	// A rewrite inserts every update again: a row it did not delete
	// would be left beside its new version.
	if first && r.merge.Rewrite && changed != r.res.Updated+r.res.Deleted {
		return fmt.Errorf("merging into %s: the plan replaces %d rows, the delete removed %d; nothing was written", r.job.Target.Table, r.res.Updated+r.res.Deleted, changed)
	}
	return nil
}

// allowRewrite lets a Rewriter engine write updates as a delete and an
// insert (engine.Rewriter) when the result is the same: the merge writes
// every column of the target, and no constraint refuses a key deleted and
// inserted again in one transaction.
func (r *run) allowRewrite(ctx context.Context) error {
	rw, ok := r.sql.Merge.(engine.Rewriter)
	if !ok || !r.exists || r.res.Updated+r.res.Deleted == 0 {
		return nil
	}
	written := map[string]bool{}
	for _, c := range r.merge.Cols {
		written[c.Name] = true
	}
	if r.merge.LoadedAt != "" {
		written[r.merge.LoadedAt] = true
	}
	if len(written) != len(r.targetCols) {
		return nil
	}
	for _, c := range r.targetCols {
		if !written[c.Name] {
			return nil
		}
	}
	q, args := rw.RewriteBlockers(r.merge.Target)
	rows, err := r.s.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	blocked := rows.Next()
	if err := rows.Err(); err != nil {
		return err
	}
	r.merge.Rewrite = !blocked
	return nil
}

// ensureTombstones creates the tombstone table like the target, and gives
// it the target's columns it lacks, with the target's types: they were
// added to the target (on_schema_change: add_columns) after the tombstone
// table was made like it. On an engine whose DDL commits (engine.Swapper)
// a run that creates it drops it again if it fails (dropTombstones); on
// the others it is created in the run's transaction.
func (r *run) ensureTombstones(ctx context.Context, spec engine.MergeSpec) error {
	// On a Swapper engine a plan stops before creating the table; a run
	// asks too, so that a plan's statements are the run's.
	if err := r.proto.creating(ctx, r, spec.Tombstones, "create the tombstone table "+spec.Tombstones.Name); err != nil {
		return err
	}
	if err := r.createTombstones(ctx, spec); err != nil {
		return err
	}
	have, err := r.s.columns(ctx, r.sql, r.sql.Table(spec.Tombstones))
	if err != nil {
		return err
	}
	if r.typedOtherwise(have) {
		if have, err = r.recreateTombstones(ctx, spec, have); err != nil {
			return err
		}
	}
	for _, c := range r.targetCols {
		if slices.Contains(names(have), c.Name) {
			continue
		}
		if err := r.proto.planDDL(r, fmt.Sprintf("add column %q to %s", c.Name, spec.Tombstones.Name)); err != nil {
			return err
		}
		if _, err := r.s.exec(ctx, r.sql.Merge.TombstoneColumn(spec, c)); err != nil {
			return fmt.Errorf("adding column %q to %s: %w", c.Name, spec.Tombstones.Name, err)
		}
	}
	return nil
}

func (r *run) createTombstones(ctx context.Context, spec engine.MergeSpec) error {
	for _, q := range r.sql.Merge.Tombstones(spec) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("creating the tombstone table %s: %w", spec.Tombstones.Name, err)
		}
	}
	return nil
}

// typedOtherwise reports whether the tombstone table's columns have, for a
// column of the target, another type than the target's.
func (r *run) typedOtherwise(have []engine.Column) bool {
	for _, c := range have {
		for _, t := range r.targetCols {
			if t.Name == c.Name && !strings.EqualFold(t.Type, c.Type) {
				return true
			}
		}
	}
	return false
}

// recreateTombstones makes an empty tombstone table typed otherwise than
// the target anew, like the target: one a failed first merge of an older
// idem left behind, typed from its input. One that holds deletes is kept
// as it is: its rows are what deletes are remembered by. It returns the
// table's columns (have, when kept).
func (r *run) recreateTombstones(ctx context.Context, spec engine.MergeSpec, have []engine.Column) ([]engine.Column, error) {
	n, err := r.s.count(ctx, r.sql.Inspect.Count(r.sql.Table(spec.Tombstones), ""))
	if err != nil || n > 0 {
		return have, err
	}
	if err := r.proto.planDDL(r, "create the tombstone table "+spec.Tombstones.Name+" anew, like the target"); err != nil {
		return nil, err
	}
	r.log.Info("creating the empty tombstone table anew: its types are not the target's", "table", spec.Tombstones.Name)
	if _, err := r.s.exec(ctx, r.sql.Scratch.DropTable(spec.Tombstones)); err != nil {
		return nil, fmt.Errorf("dropping the tombstone table %s: %w", spec.Tombstones.Name, err)
	}
	r.tombCreated = true // dropped on failure where it outlives the run (swap, exchange)
	if err := r.createTombstones(ctx, spec); err != nil {
		return nil, err
	}
	return r.s.columns(ctx, r.sql, r.sql.Table(spec.Tombstones))
}

// alignStage gives the staged columns the target's types where they
// differ, as an INSERT would cast them, before de-duplication: a merge
// compares staged rows with the target's (DuckDB refuses to compare a text
// column with a number, and a column empty in a whole file is read as text),
// and rows must be ordered by the types the target holds, within a run as
// across runs. PostgreSQL's loader has done this already for files.
func (r *run) alignStage(ctx context.Context) error {
	target := map[string]string{}
	for _, c := range r.targetCols {
		target[c.Name] = c.Type
	}
	changed := false
	for _, c := range r.stageCols {
		typ, ok := target[c.Name]
		if !ok || strings.EqualFold(typ, c.Type) {
			continue
		}
		if _, err := r.s.exec(ctx, r.sql.Temp.AlterType(stageTable, c.Name, typ)); err != nil {
			return &InputError{Msg: fmt.Sprintf("column %q of the input does not convert to %s, its type in %s: %v", c.Name, typ, r.job.Target.Table, err)}
		}
		changed = true
	}
	if !changed {
		return nil
	}
	var err error
	r.stageCols, err = r.s.columns(ctx, r.sql, r.sql.Ident(stageTable))
	return err
}

// checkGeneratedKey refuses a merge key the database generates: every rerun
// would mint new keys and the target would fill with duplicates.
func (r *run) checkGeneratedKey(ctx context.Context) error {
	q, args := r.sql.Catalog.GeneratedColumns(engine.Table(r.job.Table()))
	rows, err := r.s.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ps []job.Problem
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return err
		}
		if i := slices.Index(r.job.Key, c); i >= 0 {
			ps = append(ps, job.Problem{Path: fmt.Sprintf("key[%d]", i), Msg: fmt.Sprintf(
				"column %q of %s is generated by the database (a sequence or uuid default); every rerun would mint new keys and fill the target with duplicates: merge on the source's natural key",
				c, r.job.Target.Table)})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ps) > 0 {
		return &job.Error{File: r.job.Path, Problems: ps}
	}
	return nil
}
