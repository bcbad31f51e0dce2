package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
)

// protocol is how a run's writes become atomic on its engine, chosen once
// per run from engine.Capabilities.Commit: one transaction (transaction),
// DDL before a transaction of DML and tables swapped in (swap), or
// partitions exchanged without transactions (exchange). The steps are the
// same functions on every engine; where they differ, they ask the
// protocol, never the engine's abilities.
type protocol interface {
	// checks are the protocol's own checks of the target, after
	// inspecting it.
	checks(r *run) []step
	// partitionWrites are a partition run's steps from placing its rows to
	// its checksum.
	partitionWrites(r *run) []step
	// execute runs steps holding the partition's lock, and commits them in
	// one atomic step (a plan: rolls them back).
	execute(ctx context.Context, r *run, steps []step) error
	// planDDL stops a plan before DDL the protocol cannot roll back.
	planDDL(r *run, what string) error
	// prepareDirect gets a first load ready to read its input straight
	// into the new table (direct.go), setting r.built and r.direct.
	prepareDirect(ctx context.Context, r *run) error
	// directDDL is what creates that table before its rows, and after
	// them; errNotDirect stages the input instead.
	directDDL(ctx context.Context, r *run, in *input.Input) (before, after []string, err error)
	// drop is the statement dropping a table the run made.
	drop(r *run, t engine.Table) string
	// createTable is the DDL creating t from the staged columns.
	createTable(r *run, t engine.Table) []string
	// rebuilds reports whether shaping the target builds a new table beside
	// it (create: the target is to be created).
	rebuilds(r *run, create bool) bool
	// creating notes that the run is about to create t outside its
	// transaction, so that a failure drops it (what: for a plan's stop).
	creating(ctx context.Context, r *run, t engine.Table, what string) error
}

// newProtocol is the protocol for an engine's declared commit kind.
func newProtocol(c engine.Capabilities) protocol {
	switch c.Commit {
	case engine.CommitSwap:
		return swapping{}
	case engine.CommitExchange:
		return exchanging{}
	}
	return transaction{}
}

// transaction: every step, DDL included, in one transaction that holds
// the partition's lock (DuckDB, PostgreSQL).
type transaction struct{}

func (transaction) checks(*run) []step { return nil }

func (transaction) partitionWrites(r *run) []step {
	return []step{
		{name: "shape target", do: r.shapeTarget},
		{name: "place rows", do: r.placeStep},
		{name: "delete partition", phase: phaseData, do: r.deletePartition, crash: CrashAfterDelete},
		{name: "insert partition", phase: phaseData, do: r.insertPartition, crash: CrashAfterWrite},
		{name: "checksum partition", phase: phaseData, do: r.checksumPartition},
	}
}

func (transaction) execute(ctx context.Context, r *run, steps []step) (err error) {
	release, err := r.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { err = r.end(err, release) }()
	if err := r.runSteps(ctx, steps); err != nil {
		return err
	}
	return r.commit()
}

func (transaction) planDDL(*run, string) error { return nil }

// prepareDirect: the transaction hides the new target until it commits,
// so it is the table the input is loaded into.
func (transaction) prepareDirect(_ context.Context, r *run) error {
	if !r.exists {
		r.crash(WaitBeforeBuild)
	}
	if !r.directable() {
		return nil
	}
	r.built, r.direct = engine.Table(r.job.Table()), true
	return nil
}

// directDDL: runs take turns per partition, not per table, so another
// partition's first run may have created the target, or be creating it:
// the creation lock, then a fresh look, or this run would take that
// run's table (and its rows) for the one it creates.
func (transaction) directDDL(ctx context.Context, r *run, in *input.Input) (before, after []string, err error) {
	if in.Rows == 0 {
		return nil, nil, errNotDirect
	}
	for _, q := range r.sql.Stage.CreateLock(r.built) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return nil, nil, err
		}
	}
	exists, err := r.tableExists(ctx)
	if err != nil || exists {
		return nil, nil, cmpErr(err, errNotDirect)
	}
	// Indexes are made after the rows: a merge's is unique and the rows
	// may repeat a key; a partition's is built in one pass over the rows
	// at a fraction of what keeping it up to date row by row costs
	// (PostgreSQL's BRIN: docs/decisions/0024).
	return r.sql.Stage.CreateTableFrom(r.built, stageTable, ""), r.targetIndexes(r.built), nil
}

func (transaction) drop(r *run, t engine.Table) string { return r.sql.Scratch.DropTable(t) }

func (transaction) createTable(r *run, t engine.Table) []string {
	return r.sql.Stage.CreateTableFrom(t, stageTable, r.job.LoadedAt)
}

func (transaction) rebuilds(*run, bool) bool { return false }

func (transaction) creating(context.Context, *run, engine.Table, string) error { return nil }

// swapping: the engine's DDL commits the open transaction (MySQL,
// MariaDB). Under the lock, the prepare steps run outside any transaction,
// the data steps in one, then the cleanup; a change of the target's shape
// is built beside it and swapped in after the commit.
type swapping struct{}

func (swapping) checks(*run) []step { return nil }

// partitionWrites: rows are placed before the shape, so a refused
// placement builds no table that would outlive the run.
func (swapping) partitionWrites(r *run) []step {
	return []step{
		{name: "place rows", do: r.placeStep},
		{name: "shape target", do: r.shapeTarget},
		{name: "delete partition", phase: phaseData, do: r.deletePartition, crash: CrashAfterDelete},
		{name: "insert partition", phase: phaseData, do: r.insertPartition, crash: CrashAfterWrite},
		{name: "checksum partition", phase: phaseData, do: r.checksumPartition},
	}
}

func (p swapping) execute(ctx context.Context, r *run, steps []step) error {
	return r.locked(ctx, steps, false, func(ctx context.Context, data, ledger []step) error {
		return r.transactData(ctx, append(data, ledger...))
	})
}

func (swapping) planDDL(r *run, what string) error { return stopPlan(r, what) }

func (swapping) prepareDirect(ctx context.Context, r *run) error { return r.lockForBuild(ctx) }

// directDDL: creating the schema before the run's other checks would
// change the database for a run that may yet be refused.
func (swapping) directDDL(ctx context.Context, r *run, in *input.Input) (before, after []string, err error) {
	if err := r.besideDirect(ctx, in); err != nil {
		return nil, nil, err
	}
	return r.sql.Stage.CreateTableFrom(r.built, stageTable, ""), r.targetIndexes(r.built), nil
}

func (swapping) drop(r *run, t engine.Table) string { return r.caps.Swap.Drop(t) }

func (swapping) createTable(r *run, t engine.Table) []string {
	return r.sql.Stage.CreateTableFrom(t, stageTable, r.job.LoadedAt)
}

func (swapping) rebuilds(r *run, create bool) bool { return create || len(r.newCols) > 0 }

func (swapping) creating(ctx context.Context, r *run, t engine.Table, what string) error {
	return r.noteCreating(ctx, t, what)
}

// exchanging: no transactions (ClickHouse). A partition is built beside
// the target and exchanged in one atomic statement; a merge, a first load
// and a change of shape build the whole table and swap it in. The ledger
// row is written after the exchange (see exchange.go).
type exchanging struct{ swapping }

func (exchanging) checks(r *run) []step {
	if r.job.Strategy == job.StrategyMerge {
		return nil
	}
	return []step{{name: "check partition key", do: r.checkPartitionKey}}
}

func (exchanging) partitionWrites(r *run) []step {
	return []step{
		{name: "place rows", do: r.placeStep},
		{name: "shape target", do: r.shapeTarget},
		// The exchange table is filled before the data phase (its crash
		// point is the one after a delete); the exchange is the write.
		{name: "build partition", do: r.buildPartition, crash: CrashAfterDelete},
		{name: "replace partition", phase: phaseData, do: r.replacePartition, crash: CrashAfterWrite},
		{name: "checksum partition", phase: phaseData, do: r.checksumPartition},
	}
}

func (exchanging) execute(ctx context.Context, r *run, steps []step) error {
	return r.locked(ctx, steps, true, r.exchange)
}

func (p exchanging) directDDL(ctx context.Context, r *run, in *input.Input) (before, after []string, err error) {
	if r.job.Strategy == job.StrategyMerge { // a whole table, swapped in
		return p.swapping.directDDL(ctx, r, in)
	}
	if err := r.besideDirect(ctx, in); err != nil {
		return nil, nil, err
	}
	before, err = r.buildDDL(ctx)
	return before, r.targetIndexes(r.built), err
}

func (exchanging) createTable(r *run, t engine.Table) []string {
	if r.job.Strategy == job.StrategyMerge {
		return r.sql.Stage.CreateTableFrom(t, stageTable, r.job.LoadedAt)
	}
	return r.createPartitioned(t)
}

// rebuilds: without transactions, a merge is applied to a copy of the
// target swapped in whole.
func (exchanging) rebuilds(r *run, create bool) bool {
	copyMerge := r.exists && r.job.Strategy == job.StrategyMerge && r.res.RowsIn > 0
	return create || len(r.newCols) > 0 || copyMerge
}

// stopPlan stops a plan before DDL that commits (see ErrPlanNeedsDDL).
func stopPlan(r *run, what string) error {
	if r.opts.plan == nil {
		return nil
	}
	return fmt.Errorf("%w: it would %s here (a run does; plan again once a run has)", ErrPlanNeedsDDL, what)
}

// besideDirect is errNotDirect when a direct load beside the target cannot
// be: no rows, or a schema that does not exist yet.
func (r *run) besideDirect(ctx context.Context, in *input.Input) error {
	if in.Rows == 0 {
		return errNotDirect
	}
	ok, err := r.schemaExists(ctx, r.built.Schema)
	if err != nil || !ok {
		return cmpErr(err, errNotDirect)
	}
	return nil
}

// noteCreating, outside a transaction, stops a plan before creating t
// and marks t for dropping if the run fails.
func (r *run) noteCreating(ctx context.Context, t engine.Table, what string) error {
	exists, err := r.tombstonesExist(ctx, t)
	if err != nil || exists {
		return err
	}
	if err := r.proto.planDDL(r, what); err != nil {
		return err
	}
	r.tombCreated = true
	return nil
}

// locked runs a swap or exchange run: under the lock, the prepare steps,
// then data (the data steps and the ledger's, in a transaction or not),
// then the cleanup whatever happened. A plan that fails without
// transactions ends, as elsewhere, by saying that nothing stays
// (rollbackMark).
func (r *run) locked(ctx context.Context, steps []step, rollbackMark bool, data func(ctx context.Context, data, ledger []step) error) (err error) {
	r.s.mark(KindLock, r.lockMarker())
	if r.unlock, err = r.db.Lock(ctx, nil, r.lockScope(), r.opts.LockTimeout); err != nil {
		return err
	}
	defer func() { r.unlock() }()
	prepare, dataSteps, ledger, cleanup := phases(steps)
	defer func() { r.cleanUp(ctx, cleanup, err, rollbackMark) }()
	defer r.stopChecksum()
	if err := r.runSteps(ctx, prepare); err != nil {
		if errors.Is(err, errSkipped) {
			r.res.Action = ActionSkipped
			return nil
		}
		return err
	}
	return data(ctx, dataSteps, ledger)
}

// transactData runs the data steps of a swapping run in one transaction,
// then swaps in what it built.
func (r *run) transactData(ctx context.Context, data []step) (err error) {
	r.s.mark(KindBegin, "BEGIN")
	// Not bound to ctx: database/sql would close the pinned connection when
	// ctx is cancelled (unless the driver validates it), and the cleanup
	// after an interrupt needs it. The statements take ctx, and a failed
	// step rolls back below.
	if r.tx, err = r.db.Begin(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	r.s.q = r.tx
	if err := r.runSteps(ctx, data); err != nil {
		r.s.mark(KindRollback, "ROLLBACK")
		r.tx.Rollback()
		r.s.q = r.db.Conn() // the cleanup runs on the connection
		return err
	}
	// The cleanup runs after the commit here, so the crash point named
	// for the moment before it is taken now.
	r.crash(CrashBeforeCommit)
	if err := r.commit(); err != nil {
		return err
	}
	r.s.q = r.db.Conn()
	return r.swapIn(ctx)
}
