package runner

import (
	"context"
	"fmt"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// A first load on an engine whose DDL commits the open transaction builds
// the target beside it and swaps it in (build). On an engine whose DDL is
// transactional, a partition job loads its input straight into the new
// target in the run's transaction, which then plays the built table's
// part: nothing to swap. On the others, a partition job loads its input
// straight into the table built to replace the target, instead of into
// staging: the rows are written once, where staging them and copying them
// into the built table wrote them twice. The checks then read that table
// (r.direct), with a key too; repeated keys send the rows back to staging
// (unbuild), where the de-duplication reads them; and the data transaction
// deletes from it the rows outside the partition instead of inserting the
// partition's. A merge's first load goes the same way: with no key
// repeated and no tombstone to weigh, every row is an insert (or a delete
// of a key never held, moved to the tombstones), so no plan is made.

// directable reports whether the run's input can be loaded straight into
// a new table: a first load with no loaded_at column to add, and for a
// merge no run version to add to each row (latest_by: run restages the
// input with it).
func (r *run) directable() bool {
	if r.exists || r.job.LoadedAt != "" {
		return false
	}
	return r.job.Strategy == job.StrategyPartition ||
		r.job.Strategy == job.StrategyMerge && r.job.LatestBy != job.LatestByRun
}

// lockForBuild, on a run that will load its input straight into the table
// it builds beside the target, takes the whole table's lock first (as
// build does: see lockTable) and, if the target still does not exist,
// drops a crashed run's built table and sets r.direct.
func (r *run) lockForBuild(ctx context.Context) error {
	if !r.directable() {
		return nil
	}
	t := engine.Table(r.job.Table())
	built := engine.Table{Schema: t.Schema, Name: t.Name + engine.BuildSuffix}
	if len(built.Name) > engine.MaxIdentBytes { // build refuses it
		return nil
	}
	if err := r.proto.planDDL(r, "create "+r.job.Target.Table); err != nil {
		return err
	}
	if rebuild, err := r.lockTable(ctx); err != nil || !rebuild || r.exists {
		return err
	}
	if _, err := r.s.exec(ctx, r.caps.Swap.Drop(built)); err != nil {
		return err
	}
	r.built, r.direct = built, true
	return nil
}

// unbuild moves the rows a direct load wrote into the new target (or the
// built table) to the staging table the loader made beside it (the same
// columns, no rows), and drops the table they were in: the input has
// repeated keys, which the de-duplication resolves there before the
// target is created as usual. In the transaction protocol all of this is
// in the run's transaction; otherwise the built table is not the target,
// and a crash in between leaves one the next run drops (lockForBuild).
func (r *run) unbuild(ctx context.Context, cols []engine.Column) error {
	stmts := []string{
		r.sql.Write.InsertSelect(r.sql.Ident(stageTable), names(cols), "", r.sql.Table(r.built), ""),
		r.proto.drop(r, r.built),
	}
	for _, q := range stmts {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("moving the input's rows back to staging: %w", err)
		}
	}
	r.built, r.direct = engine.Table{}, false
	return nil
}

// buildDDL creates the built table of a direct load on an engine that
// exchanges partitions: partitioned by the grain, from the staged columns.
// A partition column the grain cannot partition by is errNotDirect: the
// input is staged, and the checks say what is wrong with it.
func (r *run) buildDDL(ctx context.Context) ([]string, error) {
	cols, err := r.s.columns(ctx, r.sql, r.sql.Ident(stageTable))
	if err != nil {
		return nil, err
	}
	if _, ok := r.sql.Types.TimeKindOf(colType(cols, r.job.Partition.Column)); !ok {
		return nil, errNotDirect
	}
	by, err := r.partitionBy(cols)
	if err != nil {
		return nil, errNotDirect
	}
	return r.caps.Exchange.CreatePartitioned(r.built, stageTable, r.job.LoadedAt, by), nil
}

// stagedTable is the table the input was read into, quoted.
func (r *run) stagedTable() string {
	if r.direct {
		return r.sql.Table(r.built)
	}
	return r.sql.Ident(stageTable)
}

// srcTable is the table the de-duplicated input is read from, quoted.
func (r *run) srcTable() string {
	if r.direct {
		return r.sql.Table(r.built)
	}
	return r.sql.Ident(r.src)
}

// adoptBuilt makes the table the input was loaded into the one the data
// steps write, with what the protocol creates after its rows. An empty
// input creates no table (see shapeTarget): it is dropped.
func (r *run) adoptBuilt(ctx context.Context) (err error) {
	if r.res.RowsIn == 0 {
		if _, err := r.s.exec(ctx, r.proto.drop(r, r.built)); err != nil {
			return err
		}
		r.built, r.direct = engine.Table{}, false
		return nil
	}
	for _, q := range r.afterRows {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("building %s: %w", r.built.Name, err)
		}
	}
	if err := r.createKeyIndex(ctx, r.built); err != nil {
		return err
	}
	r.table = r.sql.Table(r.built)
	r.replaces, r.exists = false, true
	r.targetCols, err = r.s.columns(ctx, r.sql, r.table)
	return err
}

// deleteOutside deletes from the built table the loaded rows that are not
// the partition's: outside the window, or with no partition value (which
// placeRows let through only with partition.on_null: skip). What stays
// is what an insert of the partition would have written.
func (r *run) deleteOutside(ctx context.Context) error {
	if r.res.RowsOutOfWindow == 0 {
		return nil
	}
	where, err := r.window(r.targetCols)
	if err != nil {
		return err
	}
	c := r.sql.Cond
	for _, cond := range []string{c.Not(where), c.AnyNull([]string{r.job.Partition.Column})} {
		if _, err := r.s.exec(ctx, r.sql.Write.DeleteWhere(r.table, cond)); err != nil {
			return fmt.Errorf("deleting the rows outside partition %s from %s: %w", r.w.Label, r.built.Name, err)
		}
	}
	return nil
}

// splitSum is a direct load's partition checksum, taken on the engine's
// other connections while the run goes on (engine.SplitChecksummer).
type splitSum struct {
	cancel  context.CancelFunc
	done    chan struct{}
	queries []string
	n       int64
	sum     string
	err     error
}

// startChecksum starts a direct load's partition checksum where the
// engine can split it over connections: beside the count of where the
// rows belong and the steps after it, instead of after them in the data
// transaction. It reads what the checksum step would: the built table's
// rows are committed, only this run writes the table, and the data
// transaction deletes only rows outside the window the checksum reads.
func (r *run) startChecksum(ctx context.Context) error {
	sc := r.caps.SplitChecksum
	if sc == nil || !r.direct || r.opts.plan != nil || r.res.RowsIn == 0 {
		return nil
	}
	table := r.sql.Table(r.built)
	cols, err := r.s.columns(ctx, r.sql, table)
	if err != nil {
		return err
	}
	where, err := r.window(cols)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	sp := &splitSum{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		sp.n, sp.sum, sp.err = sc.ChecksumSplit(ctx, table, r.dataColumns(cols), where,
			func(q string) { sp.queries = append(sp.queries, q) })
	}()
	r.split = sp
	return nil
}

// splitChecksum waits for the checksum startChecksum started, and shows
// its queries where the checksum step would have run its own.
func (r *run) splitChecksum(ctx context.Context) error {
	sp := r.split
	select {
	case <-sp.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.s.mark(KindSQL, fmt.Sprintf("-- partition checksum: %d queries on connections of their own, started before the count of where the rows belong", len(sp.queries)))
	for _, q := range sp.queries {
		r.s.note(q)
	}
	if sp.err != nil {
		// Only a shortcut: a server out of connections, say, gets the
		// one query in the data transaction instead.
		r.log.Warn("the split checksum failed; taking it in one query", "err", sp.err)
		r.split = nil
		return r.checksumPartition(ctx)
	}
	r.res.RowCount, r.res.Checksum = sp.n, checksumTag(r.sql)+normalizeSum(sp.sum)
	return nil
}

// stopChecksum ends a split checksum the run did not wait for (it failed
// first), so its connections are closed before the built table is dropped.
func (r *run) stopChecksum() {
	if r.split != nil {
		r.split.cancel()
		<-r.split.done
	}
}

// keepDirect sends a direct first merge back to staging (unbuild) when
// its tombstone table holds deletes already (the target was dropped, its
// tombstones kept): only the plan weighs each row against them.
func (r *run) keepDirect(ctx context.Context, cols []engine.Column) error {
	if !r.direct || r.job.Strategy != job.StrategyMerge || r.job.DeleteWhen == "" {
		return nil
	}
	tomb, err := engine.TombstoneTable(engine.Table(r.job.Table()))
	if err != nil { // planMerge names the problem
		return r.unbuild(ctx, cols)
	}
	found, err := r.tombstonesExist(ctx, tomb)
	if err != nil || !found {
		return err
	}
	n, err := r.s.count(ctx, r.sql.Inspect.Count(r.sql.Table(tomb), ""))
	if err != nil || n == 0 {
		return err
	}
	return r.unbuild(ctx, cols)
}

// planDirect plans a direct first merge without a plan table: the new
// table holds every input row, no key twice, and no tombstone (keepDirect),
// so each row is an insert, or, where delete_when holds, a delete of a key
// the table does not hold (delete_absent), which moveDeletes remembers.
// The sums are those of the rows inserted, as planMerge's.
func (r *run) planDirect(ctx context.Context) error {
	return r.planInserts(ctx, r.table, r.res.RowsIn, r.built.Name)
}

// planInserts sets a planless merge's counts and sums from table, which
// holds its rows (one per key): each is an insert, or a delete of a key
// never held.
func (r *run) planInserts(ctx context.Context, table string, rows int64, name string) (err error) {
	live := ""
	if dw := r.job.DeleteWhen; dw != "" {
		deletes := r.sql.Cond.True(dw)
		if r.res.DeletedAbsent, err = r.s.count(ctx, r.sql.Inspect.Count(table, deletes)); err != nil {
			return err
		}
		live = r.sql.Cond.Not(deletes)
	}
	r.res.Inserted = rows - r.res.DeletedAbsent
	r.res.RowCount, r.res.Checksum, err = r.s.checksum(ctx, r.sql, table, r.dataColumns(r.stageCols), live)
	if err == nil && r.res.RowCount != r.res.Inserted {
		err = fmt.Errorf("planning the merge: %d rows to insert, %d counted in %s; nothing was written", r.res.Inserted, r.res.RowCount, name)
	}
	return err
}

// intoEmpty plans, without a plan table, a merge into a table that holds
// no row, with no tombstone to weigh: a target created empty beforehand,
// or by this run where its input could not go straight into it. As in a
// direct first merge, each de-duplicated row is an insert or a delete of
// a key never held; insertAll writes them from staging.
func (r *run) intoEmpty(ctx context.Context) (bool, error) {
	for _, t := range []engine.Table{r.merge.Target, r.merge.Tombstones} {
		if t.Name == "" {
			continue
		}
		if held, err := r.holdsRows(ctx, t); err != nil || held {
			return false, err
		}
	}
	r.empty = true
	return true, r.planInserts(ctx, r.sql.Ident(r.src), r.res.RowsIn-r.res.RowsDeduped, r.src)
}

// holdsRows reports whether table t holds a row, reading at most one.
func (r *run) holdsRows(ctx context.Context, t engine.Table) (bool, error) {
	key := []engine.Column{{Name: r.job.Key[0]}}
	rows, err := r.s.QueryContext(ctx, r.sql.Inspect.Head(r.sql.Table(t), key, "", nil, 1))
	if err != nil {
		return false, err
	}
	defer rows.Close()
	held := rows.Next()
	return held, rows.Err()
}

// insertAll ends a merge into an empty table (intoEmpty): the staged
// deletes go to the tombstones, the other rows to the table, as the plan's
// delete_absent and insert rows would.
func (r *run) insertAll(ctx context.Context) error {
	src, cols, live := r.sql.Ident(r.src), names(r.stageCols), ""
	var args []any
	if r.job.LoadedAt != "" {
		args = append(args, r.opts.Now().UTC())
	}
	var stmts []string
	if dw := r.job.DeleteWhen; dw != "" {
		deletes := r.sql.Cond.True(dw)
		live = r.sql.Cond.Not(deletes)
		stmts = append(stmts, r.sql.Write.InsertSelect(r.sql.Table(r.merge.Tombstones), cols, r.job.LoadedAt, src, deletes))
	}
	stmts = append(stmts, r.sql.Write.InsertSelect(r.sql.Table(r.merge.Target), cols, r.job.LoadedAt, src, live))
	for _, q := range stmts {
		if _, err := r.s.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("merging into %s: %w", r.job.Target.Table, err)
		}
	}
	r.tableRows = r.res.Inserted
	return nil
}

// moveDeletes ends a direct first merge: its delete rows go from the new
// table to the tombstones, as the plan's delete_absent rows would. The
// table's rows are then the inserts (the loader took every input row).
func (r *run) moveDeletes(ctx context.Context) error {
	r.tableRows = r.res.Inserted
	if r.res.DeletedAbsent == 0 {
		return nil
	}
	deletes := r.sql.Cond.True(r.job.DeleteWhen)
	stmts := []string{
		r.sql.Write.InsertSelect(r.sql.Table(r.merge.Tombstones), names(r.stageCols), "", r.table, deletes),
		r.sql.Write.DeleteWhere(r.table, deletes),
	}
	for _, q := range stmts {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("merging into %s: %w", r.job.Target.Table, err)
		}
	}
	n, err := r.s.count(ctx, r.sql.Inspect.Count(r.table, ""))
	if err == nil && n != r.tableRows {
		err = fmt.Errorf("merging into %s: %d rows after the deletes, %d expected; nothing was written", r.job.Target.Table, n, r.tableRows)
	}
	return err
}
