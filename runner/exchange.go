package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// A partition run on an engine without transactions that swaps partitions
// (engine.PartitionExchanger, ClickHouse): the partition's rows are built
// in a table like the target, outside any transaction, then swapped in with
// one atomic statement; the ledger row is written after it. A crash before
// the swap leaves the target as it was; one between the swap and the
// ledger row leaves the new partition and no ledger row, so the next run
// loads the same rows again and converges. A run that must create or
// reshape the target builds the whole table instead (build, swapIn).

// ErrUnrecorded is in the error of a run without transactions that failed
// after its data was put in place, before its ledger row: the target is
// not unchanged, and the next run loads the same rows again.
var ErrUnrecorded = errors.New("its rows are in place but the ledger does not record the run; the next run loads them again")

// exchange runs the data steps of a run on an engine without transactions
// (its BEGIN and COMMIT mark where other engines' are, and do nothing):
// the writes, the swap, and only then the ledger row, so that the ledger
// never records a run whose data is not in place. A crash or interrupt
// before the swap leaves the target as it was; from the swap on, the run
// finishes even if interrupted (stopping would leave the new data without
// its ledger row, and a message saying the target is unchanged), and the
// crash points after it (after_write, before_commit, after_commit) find
// the new data in place.
func (r *run) exchange(ctx context.Context, writes, ledger []step) (err error) {
	defer r.markUnrecorded(&err)
	r.s.mark(KindBegin, "BEGIN")
	// Not bound to ctx: database/sql would end it when ctx is cancelled,
	// and an interrupt after the swap must not stop the run.
	if r.tx, err = r.db.Begin(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	r.s.q = r.tx
	var afterSwap string
	if ctx, afterSwap, err = r.runWrites(ctx, writes); err != nil {
		return err
	}
	// The transaction holds a connection of the pool until it ends: a
	// failure from here on (the swap, the ledger row) ends it too, or
	// closing the DB would wait for it forever.
	defer func() {
		if err != nil {
			r.tx.Rollback()
		}
	}()
	r.s.q = r.db.Conn()
	if r.built.Name != "" && r.opts.plan == nil {
		ctx = context.WithoutCancel(ctx)
	}
	if err := r.swapIn(ctx); err != nil {
		return err
	}
	r.crash(afterSwap)
	if r.opts.plan != nil { // a plan writes no ledger row: nothing rolls it back here
		r.s.mark(KindRollback, "ROLLBACK")
		r.res.Action = ActionLoaded
		return r.tx.Rollback()
	}
	if err := r.runSteps(ctx, ledger); err != nil {
		return err
	}
	r.crash(CrashBeforeCommit)
	r.s.mark(KindCommit, "COMMIT")
	if err := r.sizeCommit(ctx); err != nil {
		return err
	}
	if err := r.tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	r.crash(CrashAfterCommit)
	r.res.Action = ActionLoaded
	return nil
}

// markUnrecorded adds ErrUnrecorded to *err when the run's rows are in
// place and its ledger row is not.
func (r *run) markUnrecorded(err *error) {
	if *err != nil && r.opts.plan == nil && !r.recorded && (r.swapped || r.landed && r.built.Name != "") {
		*err = fmt.Errorf("%w (%w)", *err, ErrUnrecorded)
	}
}

// runWrites runs the data steps before the ledger row; once the partition
// is swapped in, the rest runs whatever happens to ctx (the returned one).
// Writes into a table built beside the target (a merge, a first load) land
// only when it is swapped in: their after_write crash point is returned,
// to be met after the swap, so that a crash point falls between the swap
// and the ledger row on every run, not only a partition run's.
func (r *run) runWrites(ctx context.Context, writes []step) (context.Context, string, error) {
	afterSwap := ""
	for _, st := range writes {
		if err := r.doStep(ctx, st); err != nil {
			r.s.mark(KindRollback, "ROLLBACK")
			r.tx.Rollback()
			r.s.q = r.db.Conn()
			return ctx, "", err
		}
		if r.swapped {
			ctx = context.WithoutCancel(ctx)
		}
		if st.crash == CrashAfterWrite && !r.swapped && r.built.Name != "" {
			afterSwap = st.crash
			continue
		}
		r.crash(st.crash)
	}
	return ctx, afterSwap, nil
}

// partitionBy is the partition key the target needs, from the type of the
// partition column in cols.
func (r *run) partitionBy(cols []engine.Column) (string, error) {
	col := r.job.Partition.Column
	var typ string
	for _, c := range cols {
		if c.Name == col {
			typ = c.Type
		}
	}
	k, ok := r.sql.Types.TimeKindOf(typ)
	if !ok {
		if _, err := r.window(cols); err != nil { // says why
			return "", err
		}
	}
	return r.caps.Exchange.PartitionBy(r.sql.Ident(col), k, string(r.w.Grain), r.job.Partition.Timezone), nil
}

// checkPartitionKey refuses an existing target whose partition key is not
// the job's grain: its partitions could not be swapped one at a time.
func (r *run) checkPartitionKey(ctx context.Context) error {
	if !r.exists {
		return nil
	}
	want, err := r.partitionBy(r.targetCols)
	if err != nil {
		return err
	}
	q, args := r.caps.Exchange.PartitionKey(engine.Table(r.job.Table()))
	var have string
	if err := r.s.QueryRowContext(ctx, q, args...).Scan(&have); err != nil {
		return fmt.Errorf("reading the partition key of %s: %w", r.job.Target.Table, err)
	}
	if r.caps.Exchange.SameKey(have, want) {
		return nil
	}
	if have == "" {
		// No key: a merge job sharing the table created it (a merge has
		// no grain). The partition is rebuilt in a copy of the whole
		// table, still swapped in at once.
		r.unkeyed = true
		return nil
	}
	return &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "target.table", Msg: fmt.Sprintf(
		"%s is partitioned by %s; a partition job with grain %s swaps whole partitions, so it needs PARTITION BY %s (recreate the table with that key, or let idem create it)",
		r.job.Target.Table, have, r.w.Grain, want)}}}
}

// createPartitioned is the DDL creating t from the staged columns,
// partitioned by the grain.
func (r *run) createPartitioned(t engine.Table) []string {
	by, err := r.partitionBy(r.stageCols)
	if err != nil { // placeStep has checked the column already
		by = ""
	}
	return r.caps.Exchange.CreatePartitioned(t, stageTable, r.job.LoadedAt, by)
}

// buildPartition writes the partition's rows: into the table built to
// replace the target (delete and insert, as on other engines: nobody reads
// it yet), or into a new table like the target, which replacePartition
// swaps in.
func (r *run) buildPartition(ctx context.Context) error {
	if r.built.Name != "" {
		return r.writeBuilt(ctx)
	}
	if !r.exists {
		return nil
	}
	if err := r.proto.planDDL(r, "build the partition beside "+r.job.Target.Table); err != nil {
		return err
	}
	t := engine.Table(r.job.Table())
	x := r.exchangeTable(t) // fits: job.Validate saw to it
	where, err := r.window(r.targetCols)
	if err != nil {
		return err
	}
	build := r.caps.Exchange.BuildPartition(x, t, r.partitionValue())
	patched, err := r.patched(ctx, t, r.partitionValue())
	if err != nil {
		return err
	}
	if patched { // x holds the target's rows as read, less the partition's
		build = append(r.caps.Swap.Like(x, t), r.sql.Write.InsertSelect(r.sql.Table(x), names(r.targetCols), "", r.table, ""))
	}
	// A crashed run's table is dropped first.
	stmts := append([]string{r.caps.Swap.Drop(x)}, build...)
	if r.unkeyed || patched {
		stmts = append(stmts, r.sql.Write.DeleteWhere(r.sql.Table(x), where))
	}
	for _, q := range stmts {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("building partition %s beside %s: %w", r.w.Label, r.job.Target.Table, err)
		}
		r.exch = x
	}
	if !r.staged || r.res.RowsIn == 0 {
		return nil
	}
	if err := r.insert(ctx, r.sql.Table(x), r.src, r.stageCols); err != nil {
		return err
	}
	// The engine reports no row counts: the partition's rows are counted.
	r.res.Inserted, err = r.s.count(ctx, r.sql.Inspect.Count(r.sql.Table(x), where))
	return err
}

// exchangeTable is the table a partition is built in beside t: the
// engine's name for it (ExchangeNamer), or t's name plus ExchangeSuffix.
func (r *run) exchangeTable(t engine.Table) engine.Table {
	if r.caps.ExchangeNames != nil {
		return r.caps.ExchangeNames.ExchangeTable(t, r.w.Label)
	}
	return engine.Table{Schema: t.Schema, Name: t.Name + engine.ExchangeSuffix}
}

// writeBuilt writes the partition into the table built to replace the
// target, counting the rows it deletes and inserts (the engine reports no
// row counts).
func (r *run) writeBuilt(ctx context.Context) error {
	where, err := r.window(r.targetCols)
	if err != nil {
		return err
	}
	var deleted int64
	if !r.direct { // loaded there directly: it replaces no rows
		if deleted, err = r.s.count(ctx, r.sql.Inspect.Count(r.table, where)); err != nil {
			return err
		}
	}
	if err := r.deletePartition(ctx); err != nil {
		return err
	}
	if err := r.insertPartition(ctx); err != nil {
		return err
	}
	r.res.Deleted = deleted
	r.res.Inserted, err = r.s.count(ctx, r.sql.Inspect.Count(r.table, where))
	return err
}

// partitionValue is the partition's value as a literal; "" on a target
// without a partition key.
func (r *run) partitionValue() string {
	if r.unkeyed {
		return ""
	}
	k, _ := r.sql.Types.TimeKindOf(colType(r.targetCols, r.job.Partition.Column))
	return r.caps.Exchange.PartitionBy(r.sql.TimeLiteral(r.w.Start, k), k, string(r.w.Grain), r.job.Partition.Timezone)
}

// replacePartition swaps the built partition in (an empty one empties the
// target's partition). The rows it replaces are counted first: the engine
// reports no row counts.
func (r *run) replacePartition(ctx context.Context) error {
	if r.exch.Name == "" {
		return nil
	}
	where, err := r.window(r.targetCols)
	if err != nil {
		return err
	}
	if r.res.Deleted, err = r.s.count(ctx, r.sql.Inspect.Count(r.table, where)); err != nil {
		return err
	}
	for _, q := range r.caps.Exchange.ReplacePartition(engine.Table(r.job.Table()), r.exch, r.partitionValue()) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("replacing partition %s: %w", r.w.Label, err)
		}
		r.swapped = true
	}
	return nil
}

func colType(cols []engine.Column, name string) string {
	for _, c := range cols {
		if c.Name == name {
			return c.Type
		}
	}
	return ""
}
