package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
)

// run is one partition's run: what it was given, and (embedded) what its
// steps learn, grouped by what they are about.
type run struct {
	ctx   context.Context // for WaitAt and readError only; steps take their own ctx
	db    engine.DB
	sql   *engine.SQL
	caps  engine.Capabilities
	proto protocol // how the writes commit: chosen once, from caps.Commit
	job   *job.Job
	w     job.Window
	opts  Options
	log   *slog.Logger
	s     *session
	res   Result
	learned
}

// learned is what a run's steps learn, in order.
type learned struct {
	tx        *sql.Tx
	startedAt time.Time
	closed    bool // the partition is closed (a run while open is recorded so)
	targetState
	inputState
	buildState
	sums
	merge engine.MergeSpec
	// tableRows is a merge's target's row count after its writes, for the
	// ledger (ledger.Entry.TableRows).
	tableRows int64
}

// targetState is what the run found of its target.
type targetState struct {
	table      string          // the table data steps write, quoted: the target, or the table built to replace it
	ledger     bool            // idem_runs exists
	exists     bool            // the target table exists
	empty      bool            // a merge writes a table holding no row, and no tombstone (intoEmpty)
	targetCols []engine.Column // its columns
	newCols    []engine.Column // input columns the target lacks (add_columns)
	replaces   bool            // the built table replaces an existing target
	// unkeyed: exchanging, the existing target has no partition key (a
	// merge job sharing the table created it): the whole table is copied,
	// the partition's rows deleted from the copy, and the copy swapped in.
	unkeyed bool
}

// inputState is what the run read.
type inputState struct {
	files     []string        // the input files, for locating bad rows
	staged    bool            // the input was read into stageTable
	stageCols []engine.Column // the input's columns
	// stagedAs are the staged columns' types as idem created them: a
	// driver may report less when they are read back (MariaDB's DECIMAL
	// loses its precision and scale), and a column added to the target
	// takes this type.
	stagedAs map[string]string
	src      string       // stageTable, or dedupTable when de-duplicated
	scanned  *input.Input // the input as the reader read it (files only)
	inWindow int64        // the input's rows in the partition
	remote   *remoteInput // the input objects, when source.files names URLs
}

// buildState is the tables a run builds beside its target (swap and
// exchange protocols; a direct load on every protocol).
type buildState struct {
	built   engine.Table // the table built to replace the target, or zero
	exch    engine.Table // exchanging: the table the partition is built in, or zero
	swapped bool         // exchanging: the partition is in place
	// direct: the input was loaded straight into built, not into staging
	// (see direct.go).
	direct bool
	// afterRows is what a direct load creates after its rows (indexes).
	afterRows []string
	unlock    func() // swap and exchange: releases the run's lock
	// tombCreated: this run created merge.Tombstones outside its
	// transaction, so a failure drops it (dropTombstones).
	tombCreated bool
	// landed: swapping, the run's writes are in the target (committed,
	// and the built table swapped in).
	landed bool
	// recorded: the run's ledger row is written (on the exchange protocol
	// nothing takes it back).
	recorded bool
}

// sums are checksums a run takes ahead of its checksum step.
type sums struct {
	// pre is the partition's checksum taken while the input was hashed,
	// for the skip decision (nil: not taken).
	pre *partitionSum
	// hashing delivers the input's fingerprint when the run went on
	// without it, no skip being possible (nil: the run id is set).
	hashing <-chan hashed
	// split is a direct load's checksum taken beside the other steps
	// (nil: the checksum step takes it).
	split *splitSum
	// placed is a direct load's checksum taken by the placement count's
	// scan (engine.PlacementChecksummer; nil: the checksum step takes it).
	placed *partitionSum
}

// partitionSum is a partition's row count and checksum, and the ledger
// entry it is to be compared with.
type partitionSum struct {
	last *ledger.Entry
	n    int64
	sum  string
}

// Phases of a run's steps. An engine whose DDL is transactional runs every
// step in the data transaction, in list order; an engine whose DDL commits
// the open transaction (engine.Swapper) runs the prepare steps before the
// transaction begins, and the cleanup after it ends, so that the data
// transaction holds DML only.
const (
	phasePrepare = iota // staging, checks, and DDL
	phaseData           // the writes: one transaction
	phaseLedger         // the ledger row: last of the data, after an exchange
	phaseCleanup        // dropping the run's temporary tables
)

// step is one named step of a run. A crash point (tests only) may follow it.
type step struct {
	name  string
	phase int
	do    func(context.Context) error
	crash string
}

// errSkipped ends a run the ledger says is done, changing nothing.
var errSkipped = errors.New("already loaded")

// ErrPlanNeedsDDL ends a plan on an engine whose DDL commits the open
// transaction (engine.Swapper) where the run would change the database's
// shape: create the target, its schema, the ledger or the tombstone table,
// or rebuild the target with new columns. Such DDL cannot be rolled back,
// and a plan changes nothing, so the plan shows the statements up to there
// and stops. A run on a target whose shape it does not change (a table
// and ledger that exist) is planned in full.
var ErrPlanNeedsDDL = errors.New("a plan cannot go on: the run would change the database's shape, which this engine cannot roll back")

// steps lists a run's steps in order: where each guarantee's statement
// runs, and where a crash can fall between them.
func (r *run) steps() []step {
	steps := []step{
		{name: "check ledger", do: r.checkLedger},
		{name: "inspect target", do: r.inspectTarget},
	}
	steps = append(steps, r.proto.checks(r)...)
	// Files are fingerprinted from their bytes before anything is read into
	// the database, so a skipped run reads nothing; a source database's
	// rows as they are read (stageSource); a query's rows can only be
	// fingerprinted once staged.
	switch {
	case r.job.Source.IsDatabase():
		steps = append(steps,
			step{name: "stage source", do: r.stageSource, crash: CrashAfterStage},
			step{name: "decide skip", do: r.decideSourceSkip})
	case r.job.Source.Query != "":
		steps = append(steps,
			step{name: "stage query", do: r.stageQuery, crash: CrashAfterStage},
			step{name: "fingerprint rows", do: r.fingerprintRows},
			step{name: "decide skip", do: r.decideSkip})
	default:
		steps = append(steps,
			step{name: "fingerprint files", do: r.fingerprintFiles},
			step{name: "decide skip", do: r.decideSkip},
			step{name: "stage files", do: r.stageInput, crash: CrashAfterStage})
	}
	if r.job.LatestBy == job.LatestByRun {
		steps = append(steps, step{name: "version rows", do: r.versionRows})
	}
	steps = append(steps,
		step{name: "check input", do: r.checkInput},
		step{name: "de-duplicate", do: r.dedupStep})
	if r.job.Strategy == job.StrategyMerge {
		steps = append(steps,
			step{name: "shape target", do: r.shapeTarget},
			step{name: "plan merge", do: r.planMerge},
			step{name: "merge matched keys", phase: phaseData, do: r.mergeMatched, crash: CrashAfterDelete},
			step{name: "merge the rest", phase: phaseData, do: r.mergeRest, crash: CrashAfterWrite})
	} else {
		steps = append(steps, r.proto.partitionWrites(r)...)
	}
	// The ledger is created only now: everything a run can refuse has been
	// checked by here, and a refused run leaves no ledger behind.
	return append(steps,
		step{name: "ensure ledger", do: r.ensureLedger},
		step{name: "write ledger", phase: phaseLedger, do: r.writeLedger},
		step{name: "drop staging", phase: phaseCleanup, do: r.dropStaging, crash: CrashBeforeCommit})
}

// do runs one partition: the same steps for every engine, in one
// transaction holding the partition's lock.
func (r *run) do(ctx context.Context) (err error) {
	r.ctx = ctx
	r.startedAt = r.opts.Now()
	defer func() { r.remote.close() }()
	// The markers (partition, BEGIN, lock, COMMIT) go through the same
	// recorder as the statements, so golden files and `idem plan` show
	// where the transaction and the lock begin and end.
	r.s = &session{q: r.db.Conn(), rec: r.opts.Record, plan: r.opts.plan, log: r.log}
	r.s.mark(KindPartition, r.partitionMarker())
	r.closed = !r.job.HeldBackByClosure() || r.job.Closed(r.w, r.opts.AsOf)
	if !r.closed && !r.opts.AllowOpen {
		r.res.Action = ActionNotClosed
		r.res.ClosesAt = r.job.ClosesAt(r.w).UTC().Format(time.RFC3339)
		return nil
	}
	if err := r.checkColumnTypes(ctx); err != nil {
		return err
	}
	r.table = r.sql.Table(engine.Table(r.job.Table()))
	return r.proto.execute(ctx, r, r.steps())
}

// phases splits steps by phase, each in order.
func phases(steps []step) (prepare, data, ledger, cleanup []step) {
	for _, st := range steps {
		switch st.phase {
		case phasePrepare:
			prepare = append(prepare, st)
		case phaseData:
			data = append(data, st)
		case phaseLedger:
			ledger = append(ledger, st)
		default:
			st.crash = "" // taken before the commit (transactData, exchange)
			cleanup = append(cleanup, st)
		}
	}
	return prepare, data, ledger, cleanup
}

// cleanUp ends a swapped run whatever happened: it drops the temporary
// tables, and a built table that was not swapped in (the run failed). A
// failure to drop them is logged, not the run's.
func (r *run) cleanUp(ctx context.Context, cleanup []step, err error, rollbackMark bool) {
	ctx = context.WithoutCancel(ctx)
	if cerr := r.runSteps(ctx, cleanup); cerr != nil {
		r.log.Warn("dropping staging tables", "err", cerr)
	}
	if err != nil && r.built.Name != "" {
		if _, derr := r.s.exec(ctx, r.proto.drop(r, r.built)); derr != nil {
			r.log.Warn("dropping the built table", "table", r.built.Name, "err", derr)
		}
	}
	r.dropTombstones(ctx, err)
	r.leftoverExchange(ctx)
	if r.exch.Name != "" {
		if _, derr := r.s.exec(ctx, r.proto.drop(r, r.exch)); derr != nil {
			r.log.Warn("dropping the partition's exchange table", "table", r.exch.Name, "err", derr)
		}
	}
	// A failed plan on an engine without transactions ends, as elsewhere,
	// by saying that nothing stays.
	if rollbackMark && r.opts.plan != nil && err != nil && !errors.Is(err, errSkipped) {
		r.s.mark(KindRollback, "ROLLBACK")
	}
}

// leftoverExchange: a run killed after its partition's exchange leaves the
// exchange table; the rerun that skips builds none, so it drops that one.
// A plan looks for it as the run does, and leaves it.
func (r *run) leftoverExchange(ctx context.Context) {
	if r.res.Action != ActionSkipped || r.caps.Exchange == nil || r.job.Strategy != job.StrategyPartition {
		return
	}
	x := r.exchangeTable(engine.Table(r.job.Table()))
	if found, err := r.tombstonesExist(ctx, x); err == nil && found && r.opts.plan == nil {
		r.exch = x
	}
}

// runSteps runs steps in order, each followed by its crash point.
func (r *run) runSteps(ctx context.Context, steps []step) error {
	for _, st := range steps {
		if err := r.doStep(ctx, st); err != nil {
			return err
		}
		r.crash(st.crash)
	}
	return nil
}

// doStep runs one step: every step of a run goes through here (runSteps,
// and runWrites on the exchange protocol). In tests, Faults.afterStep
// then sees its name, and may fail it.
func (r *run) doStep(ctx context.Context, st step) error {
	start := time.Now() // for -v only: no clock reaches the data
	err := st.do(ctx)
	r.log.Debug("step", "name", st.name, "seconds", fmt.Sprintf("%.3f", time.Since(start).Seconds()))
	if err == nil && r.opts.afterStep != nil {
		err = r.opts.afterStep(st.name)
	}
	return err
}

// begin starts the data transaction and takes the run's lock in it.
func (r *run) begin(ctx context.Context) (release func(), err error) {
	r.s.mark(KindBegin, "BEGIN")
	if r.tx, err = r.db.Begin(ctx); err != nil {
		return nil, err
	}
	r.s.q = r.tx
	r.s.mark(KindLock, r.lockMarker())
	release, err = r.db.Lock(ctx, r.tx, r.lockScope(), r.opts.LockTimeout)
	if err == nil {
		if err = r.caps.Memory.SizeMemory(ctx, r.tx, r.memoryUse()); err != nil {
			release()
		}
	}
	if err != nil {
		r.s.mark(KindRollback, "ROLLBACK")
		r.tx.Rollback()
		return nil, err
	}
	return release, nil
}

// memoryUse is what the run does, for the engine's memory.
func (r *run) memoryUse() engine.MemoryUse {
	if r.job.Strategy == job.StrategyMerge {
		return engine.MemoryMerge
	}
	return engine.MemoryLoad
}

// end rolls back a run that did not commit (failed, or skipped: then the
// run succeeded) and releases its lock.
func (r *run) end(err error, release func()) error {
	defer release()
	if err == nil {
		return nil
	}
	r.s.mark(KindRollback, "ROLLBACK")
	rerr := r.tx.Rollback()
	if errors.Is(err, errSkipped) {
		r.res.Action = ActionSkipped
		return rerr
	}
	return err
}

// commit ends the data transaction; a plan, having run every step a run
// would, rolls back instead, leaving the target as it was.
func (r *run) commit() error {
	r.s.mark(KindCommit, "COMMIT")
	if r.opts.plan != nil {
		if err := r.tx.Rollback(); err != nil {
			return fmt.Errorf("rolling the plan back: %w", err)
		}
		r.res.Action = ActionLoaded
		return nil
	}
	// A run interrupted before this point must not commit: database/sql
	// rolls a cancelled transaction back from another goroutine, which
	// can lose the race with this Commit.
	if r.ctx != nil && r.ctx.Err() != nil {
		r.tx.Rollback()
		return r.ctx.Err()
	}
	if err := r.sizeCommit(r.ctx); err != nil {
		return err
	}
	if err := r.tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	r.crash(CrashAfterCommit)
	r.res.Action = ActionLoaded
	return nil
}

// sizeCommit tells the engine how large the commit is about to be
// (engine.CommitSizer).
func (r *run) sizeCommit(ctx context.Context) error {
	if err := r.caps.Size.SizeCommit(ctx, r.tx, r.res.RowsIn+r.res.Deleted); err != nil {
		return fmt.Errorf("sizing the commit: %w", err)
	}
	return nil
}

// checkLedger reads whether the ledger exists and is current, under the
// lock (a run of this partition that just committed may have created it),
// brings an older ledger up to date, and checks the target's owner.
func (r *run) checkLedger(ctx context.Context) error {
	r.pre = nil // read again: what was read before may have changed
	exists, current, err := r.ledgerState(ctx)
	if err != nil {
		return err
	}
	if exists && !current {
		if err := r.proto.planDDL(r, "add the columns this version brings to idem_runs"); err != nil {
			return err
		}
		if err := ledger.Ensure(ctx, r.db, r.s); err != nil {
			return err
		}
	}
	r.ledger = exists
	return r.checkOwner(ctx)
}

// inspectTarget reads whether the target exists, and its columns.
func (r *run) inspectTarget(ctx context.Context) (err error) {
	if r.exists, err = r.tableExists(ctx); err != nil || !r.exists {
		return err
	}
	if r.targetCols, err = r.s.columns(ctx, r.sql, r.table); err != nil {
		return err
	}
	// Refused before the input is read: the key's type may be one the
	// reader cannot write either, which would hide why.
	if r.job.Strategy == job.StrategyMerge {
		return r.checkGeneratedKey(ctx)
	}
	return nil
}

// fingerprintFiles lists the input files and fingerprints their bytes.
func (r *run) fingerprintFiles(ctx context.Context) error {
	globs := renderGlobs(r.job, r.w)
	if isRemote(globs) {
		return r.listObjects(ctx, globs)
	}
	files, err := input.List(r.job.Dir, globs)
	if err != nil {
		return err
	}
	r.files = files
	if len(files) == 0 && !r.job.AllowEmpty {
		return &InputError{Msg: fmt.Sprintf("no input: no file matches %s (in %s); nothing was loaded (set allow_empty: true if an empty delivery is normal)",
			quoteAll(globs), r.job.Dir)}
	}
	// The files are hashed here (this process's CPU) while the database
	// checksums the partition a skip compares (its CPU): an unchanged rerun
	// pays for the longer of the two instead of both. When the input has
	// changed, the checksum was not needed: one read of the partition, next
	// to a load that writes and checksums it again. When no skip is
	// possible (no earlier run of the partition, or --force), nothing waits
	// for the hash: it goes on beside the load, and the run id is set when
	// the ledger is written (awaitFingerprint).
	done := make(chan hashed, 1)
	go func() {
		fp, err := input.Fingerprint(files)
		done <- hashed{fp, err}
	}()
	skippable, perr := r.checksumAhead(ctx)
	if perr == nil && !skippable {
		r.hashing = done
		return nil
	}
	h := <-done
	if err := errors.Join(h.err, perr); err != nil {
		return err
	}
	r.setRunID(h.fp)
	return nil
}

// hashed is the input's fingerprint, or why it could not be taken.
type hashed struct {
	fp  string
	err error
}

// awaitFingerprint sets the run id from the input's fingerprint when it
// was left to be taken beside the load.
func (r *run) awaitFingerprint() error {
	if r.hashing == nil {
		return nil
	}
	h := <-r.hashing
	r.hashing = nil
	if h.err != nil {
		return h.err
	}
	if r.scanned != nil && h.fp != r.scanned.Fingerprint {
		return changedSince(r.files)
	}
	r.setRunID(h.fp)
	return nil
}

// renderGlobs is j's file patterns for partition w.
func renderGlobs(j *job.Job, w job.Window) []string {
	globs := make([]string, len(j.Source.Files))
	for i, f := range j.Source.Files {
		globs[i] = job.RenderPath(f, w)
	}
	return globs
}

// checksumAhead takes the checksum skip would take, when the partition has
// a last run that a skip could match. It reports whether a skip is
// possible at all: not with --force, without a ledger, or for a partition
// never loaded (a merge's skip finds its run by the run id: possible
// whenever there is a ledger).
func (r *run) checksumAhead(ctx context.Context) (skippable bool, err error) {
	if r.opts.Force || !r.ledger {
		return false, nil
	}
	if r.job.Strategy == job.StrategyMerge {
		return true, nil
	}
	last, err := ledger.Last(ctx, r.s, r.db, r.job.Name, r.w.Label)
	if errors.Is(err, ledger.ErrNoRun) {
		return false, nil
	}
	if err != nil || !r.exists || (!last.PartitionClosed && r.job.Closed(r.w, r.opts.AsOf)) {
		return true, err
	}
	where, err := r.window(r.targetCols)
	if err != nil {
		return true, err
	}
	n, sum, err := r.s.checksumLike(ctx, r.sql, last.Checksum, r.table, r.dataColumns(r.targetCols), where)
	if err != nil {
		return true, err
	}
	r.pre = &partitionSum{last: last, n: n, sum: sum}
	return true, nil
}

// fingerprintRows fingerprints a staged query's rows.
func (r *run) fingerprintRows(ctx context.Context) (err error) {
	if r.stageCols, err = r.s.columns(ctx, r.sql, r.sql.Ident(stageTable)); err != nil {
		return err
	}
	// The legacy function where the engine has one (checksumLike with no
	// tag): the fingerprint is part of the run id, which must not change
	// with idem's version, or every rerun after an upgrade would reload.
	n, sum, err := r.s.checksumLike(ctx, r.sql, "", r.sql.Ident(stageTable), r.stageCols, "")
	if err != nil {
		return err
	}
	r.setRunID(FingerprintRows(n, sum))
	return nil
}

// setRunID names the run after the job, the partition, the job's
// definition and the input's fingerprint.
func (r *run) setRunID(fingerprint string) {
	r.res.InputFingerprint = fingerprint
	r.res.RunID = RunID(r.job.Name, r.w.Label, r.job.DefinitionHash(), fingerprint)
}

// decideSkip ends the run with errSkipped when the ledger says it is done.
func (r *run) decideSkip(ctx context.Context) error {
	if r.hashing != nil { // checksumAhead found nothing a skip could match
		return nil
	}
	done, err := r.skip(ctx)
	if err == nil && done {
		return errSkipped
	}
	return err
}

// stageQuery runs source.query into stageTable.
func (r *run) stageQuery(ctx context.Context) error {
	r.staged = true
	r.report(StepStaging)
	q := r.sql.Stage.StageQuery(stageTable, job.RenderSQL(r.job.Source.Query, r.w, r.sql))
	if _, err := r.s.exec(ctx, q); err != nil {
		return fmt.Errorf("running source.query: %w", err)
	}
	return nil
}

// stageInput reads the input files into stageTable.
func (r *run) stageInput(ctx context.Context) error {
	if len(r.files) == 0 {
		r.log.Info("no input files; allow_empty accepts it")
		return nil
	}
	r.staged = true
	r.report(StepStaging)
	if err := r.proto.prepareDirect(ctx, r); err != nil {
		return err
	}
	if r.remote != nil {
		paths, err := r.fetchObjects(ctx)
		if err != nil {
			return err
		}
		return r.stageFiles(ctx, paths)
	}
	return r.stageFiles(ctx, r.files)
}

// versionRows gives each staged row the run's version under latest_by:
// run: the start of the run's partition, in UTC, in job.RunVersionColumn.
// Staging is made anew with it, so every later step (checks, the target's
// creation, de-duplication, the merge) sees it as an input column.
func (r *run) versionRows(ctx context.Context) error {
	if !r.staged {
		return nil
	}
	cols, err := r.s.columns(ctx, r.sql, r.sql.Ident(stageTable))
	if err != nil {
		return err
	}
	if slices.Contains(names(cols), job.RunVersionColumn) {
		return &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "latest_by", Msg: fmt.Sprintf(
			"the source has a column %q, which latest_by: run fills with the run's partition; rename or drop it in the source", job.RunVersionColumn)}}}
	}
	value := r.sql.TimeLiteral(r.w.Start.UTC(), engine.KindTimestamp)
	for _, q := range []string{
		r.sql.Stage.StageQuery(engine.VersionedTable, engine.WithColumn(r.sql, stageTable, job.RunVersionColumn, value)),
		r.sql.Temp.DropTemp(stageTable),
		r.sql.Stage.StageQuery(stageTable, engine.SelectAll(r.sql, engine.VersionedTable)),
		r.sql.Temp.DropTemp(engine.VersionedTable),
	} {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("versioning the input by its run: %w", err)
		}
	}
	r.stageCols, err = r.s.columns(ctx, r.sql, r.sql.Ident(stageTable))
	return err
}

// checkInput checks the staged columns against the job and the target.
func (r *run) checkInput(ctx context.Context) (err error) {
	if !r.staged {
		return nil
	}
	if !r.job.Source.IsQuery() {
		if r.stageCols, err = r.s.columns(ctx, r.sql, r.sql.Ident(stageTable)); err != nil {
			return err
		}
	}
	if err := r.checkColumns(r.stageCols, r.targetCols); err != nil {
		return err
	}
	if err := r.checkTypes(ctx); err != nil {
		return err
	}
	if err := r.checkDeleteFlag(); err != nil {
		return err
	}
	if r.job.Strategy == job.StrategyMerge && r.exists {
		if err := r.checkFirstMerge(ctx); err != nil {
			return err
		}
		if err := r.checkKeyIndex(ctx); err != nil {
			return err
		}
		return r.alignStage(ctx)
	}
	return nil
}

// dedupStep resolves duplicate keys in the staged input.
func (r *run) dedupStep(ctx context.Context) (err error) {
	if !r.staged {
		return nil
	}
	if r.src, err = r.dedup(ctx, r.stageCols); err != nil {
		return err
	}
	r.report(StepStaged)
	return nil
}

// shapeTarget adds the input's new columns to the target and creates a
// target that does not exist yet. An empty input creates no table: its
// columns have no types to give it (a header-only CSV reads as text).
func (r *run) shapeTarget(ctx context.Context) (err error) {
	if !r.staged {
		return nil
	}
	if r.direct {
		return r.adoptBuilt(ctx)
	}
	create := !r.exists && r.res.RowsIn > 0
	if r.proto.rebuilds(r, create) {
		return r.build(ctx)
	}
	if err := r.addColumns(ctx); err != nil {
		return err
	}
	if !create {
		return nil
	}
	t := engine.Table(r.job.Table())
	stmts := append(r.sql.Stage.CreateTableFrom(t, stageTable, r.job.LoadedAt), r.targetIndexes(t)...)
	for _, q := range append(stmts, r.markJSON(t, nil)...) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("creating %s: %w", r.job.Target.Table, err)
		}
	}
	if err := r.createKeyIndex(ctx, engine.Table(r.job.Table())); err != nil {
		return err
	}
	r.exists = true
	r.targetCols, err = r.s.columns(ctx, r.sql, r.table)
	return err
}

// targetIndexes creates what a target idem creates needs so that a run's
// cost follows its rows (engine.Indexer): an index on the partition column,
// or a unique one on a merge's key. The index keeps t's name (a built
// table is renamed into the target's place).
func (r *run) targetIndexes(t engine.Table) []string {
	ix := r.sql.Index
	if ix == nil {
		return nil
	}
	name := engine.Table(r.job.Table())
	if r.job.Strategy == job.StrategyMerge {
		return ix.CreateIndex(t, engine.IndexName(name, engine.IndexKey), engine.IndexKey, r.job.Key)
	}
	return ix.CreateIndex(t, engine.IndexName(name, engine.IndexPartition), engine.IndexPartition, []string{r.job.Partition.Column})
}

// ensureLedger creates the ledger if no run has yet.
func (r *run) ensureLedger(ctx context.Context) error {
	if r.ledger {
		return nil
	}
	if err := r.proto.planDDL(r, "create idem_runs"); err != nil {
		return err
	}
	return ledger.Ensure(ctx, r.db, r.s)
}

// writeLedger records the run.
func (r *run) writeLedger(ctx context.Context) error {
	if err := r.awaitFingerprint(); err != nil {
		return err
	}
	if err := ledger.Write(ctx, r.s, r.db, r.entry(r.startedAt, r.closed)); err != nil {
		return err
	}
	r.recorded = true
	return nil
}

// crash is a crash point (tests only): with Options.WaitAt it waits there
// until interrupted; with Options.CrashAt it dies there as kill -9 would,
// with no deferred cleanup and no rollback.
func (r *run) crash(point string) {
	if point == "" {
		return
	}
	if r.opts.WaitAt == point && r.ctx != nil {
		r.wait(point)
	}
	if r.opts.CrashAt != point {
		return
	}
	r.log.Warn("crashing on purpose", "point", point)
	killSelf()
	select {}
}

// wait waits at point until interrupted or, with Options.WaitFor, until
// that file exists.
func (r *run) wait(point string) {
	if r.opts.WaitFor == "" {
		r.log.Warn("waiting on purpose until interrupted", "point", point)
		<-r.ctx.Done()
		return
	}
	r.log.Warn("waiting on purpose until a file exists", "point", point, "file", r.opts.WaitFor)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(r.opts.WaitFor); err == nil {
			return
		}
		select {
		case <-r.ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// writeTarget is the table the data steps write: the target, or the table
// built to replace it.
func (r *run) writeTarget() engine.Table {
	if r.built.Name != "" {
		return r.built
	}
	return engine.Table(r.job.Table())
}

// build makes, beside the target, the table that replaces it when its
// shape changes (it is created, or gains columns) on an engine whose DDL
// cannot share the data transaction: the input's columns, and the target's
// rows. The data steps then write into it, and swapIn puts it in the
// target's place after they commit. A crash before the swap leaves the
// target as it was; one after the commit and before the swap leaves a
// ledger row the target does not match, so the next run loads again.
func (r *run) build(ctx context.Context) (err error) {
	t := engine.Table(r.job.Table())
	what := "create " + r.job.Target.Table
	if r.exists {
		what = "rebuild " + r.job.Target.Table + " with its new columns"
	}
	if err := r.proto.planDDL(r, what); err != nil {
		return err
	}
	if rebuilt, err := r.lockTable(ctx); err != nil || !rebuilt {
		return err
	}
	r.built = engine.Table{Schema: t.Schema, Name: t.Name + engine.BuildSuffix} // fits: job.Validate saw to it
	if _, err := r.s.exec(ctx, r.caps.Swap.Drop(r.built)); err != nil {
		return err
	}
	if err := r.buildShape(ctx, t); err != nil {
		return err
	}
	r.table = r.sql.Table(r.built)
	r.replaces, r.exists = r.exists, true
	r.targetCols, err = r.s.columns(ctx, r.sql, r.table)
	return err
}

// buildShape creates the built table: a new target from the input's
// columns, or the target's own columns and types (never the input's: a
// DECIMAL column stays one though the file reads as integers) plus the new
// ones, holding the target's rows.
func (r *run) buildShape(ctx context.Context, t engine.Table) error {
	// A table idem creates gets its indexes; one it rebuilds gets what
	// Swapper.Like copies of its target.
	stmts := append(r.proto.createTable(r, r.built), r.targetIndexes(r.built)...)
	stmts = append(stmts, r.markJSON(r.built, nil)...)
	cp := r.caps.Copy
	copies := cp != nil
	if copies && r.exists {
		patched, err := r.patched(ctx, t, "")
		if err != nil {
			return err
		}
		copies = !patched
	}
	if r.exists {
		stmts = r.caps.Swap.Like(r.built, t)
		if copies { // the rows come with the copy; new columns after them
			stmts = cp.Copy(r.built, t)
		}
		for _, c := range r.newCols {
			stmts = append(stmts, r.sql.Stage.AddColumn(r.built, stageTable, c))
		}
		stmts = append(stmts, r.markJSON(r.built, names(r.newCols))...)
	}
	for _, q := range stmts {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("building %s: %w", r.built.Name, err)
		}
	}
	if !r.exists { // a copy of the target has its indexes already
		return r.createKeyIndex(ctx, r.built)
	}
	if copies {
		return nil
	}
	q := r.sql.Write.InsertSelect(r.sql.Table(r.built), names(r.targetCols), "", r.table, "")
	if _, err := r.s.exec(ctx, q); err != nil {
		return fmt.Errorf("copying %s into %s: %w", r.job.Target.Table, r.built.Name, err)
	}
	return nil
}

// patched reports whether t holds changes that a copy linking its parts
// (for partition at) would leave behind (engine.PatchHolder): the copy
// must then read t's rows.
func (r *run) patched(ctx context.Context, t engine.Table, at string) (bool, error) {
	ph := r.caps.Patches
	if ph == nil || !ph.Links(at) {
		return false, nil
	}
	q, args := ph.Patches(t)
	var one int
	switch err := r.s.QueryRowContext(ctx, q, args...).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("looking for changes of %s not yet in its parts: %w", r.job.Target.Table, err)
	}
	return true, nil
}

// lockTable makes a partition run that must build the whole table the
// table's only writer: runs of other partitions would build the same table
// at once, and the last swap would drop the others' rows. It gives up its
// partition's lock before waiting for the table's (two such runs would
// otherwise wait for each other), then reads the target again, since a run
// that held the table meanwhile may have created or reshaped it. It
// reports whether the table still needs to be built.
func (r *run) lockTable(ctx context.Context) (bool, error) {
	scope := r.lockScope()
	if scope.Partition == "" {
		return true, nil
	}
	r.unlock()
	r.unlock = func() {}
	if !r.exists {
		r.crash(WaitBeforeBuild)
	}
	scope.Partition = ""
	release, err := r.db.Lock(ctx, nil, scope, r.opts.LockTimeout)
	if err != nil {
		return false, err
	}
	r.unlock = release
	// What was decided under the partition's lock is decided again: a run
	// of this partition, or another job, may have written meanwhile.
	if err := r.checkLedger(ctx); err != nil {
		return false, err
	}
	if err := r.inspectTarget(ctx); err != nil {
		return false, err
	}
	// A run may have loaded the partition meanwhile: the fingerprint left
	// to be taken beside the load (no skip was possible) is needed now if
	// a skip has become possible.
	if r.hashing != nil {
		skippable, err := r.checksumAhead(ctx)
		if err == nil && skippable {
			err = r.awaitFingerprint()
		}
		if err != nil {
			return false, err
		}
	}
	if err := r.decideSkip(ctx); err != nil {
		return false, err
	}
	// A first load that takes the lock before staging (lockForBuild) has
	// no input columns yet; checkInput compares them with the target's.
	if r.exists && r.stageCols != nil {
		if err := r.checkColumns(r.stageCols, r.targetCols); err != nil {
			return false, err
		}
	}
	return !r.exists || len(r.newCols) > 0, nil
}

// swapIn puts the built table in the target's place, after the data
// transaction has committed. A plan drops it instead.
func (r *run) swapIn(ctx context.Context) error {
	if r.built.Name == "" {
		r.landed = r.opts.plan == nil
		return nil
	}
	stmts := r.caps.Swap.Swap(engine.Table(r.job.Table()), r.built, r.replaces)
	if r.opts.plan != nil {
		stmts = []string{r.caps.Swap.Drop(r.built)}
	}
	for _, q := range stmts {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("swapping %s in: %w", r.built.Name, err)
		}
	}
	r.landed = r.opts.plan == nil
	return nil
}

// checkKeyIndex makes sure the target of a merge has the unique index on
// the key that the engine's merge needs (engine.KeyIndexer). A table an
// idem run made (the ledger names it: a partition job sharing it made it,
// without the index) gets it; any other table without it is refused
// before anything changes, and the error names the index to add.
func (r *run) checkKeyIndex(ctx context.Context) error {
	ki := r.caps.KeyIndex
	if ki == nil {
		return nil
	}
	t := engine.Table(r.job.Table())
	q, args := ki.KeyIndex(t, r.job.Key)
	var one int
	err := r.s.QueryRowContext(ctx, q, args...).Scan(&one)
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var owners []ledger.Owner
	if r.ledger {
		if owners, err = ledger.Owners(ctx, r.s, r.db, r.tableName(), ""); err != nil {
			return err
		}
	}
	if len(owners) == 0 {
		return &job.Error{File: r.job.Path, Problems: []job.Problem{{Path: "key", Msg: fmt.Sprintf(
			"a merge into %s needs a unique index on its key %v, and the table has none; add it: %s",
			r.job.Target.Table, r.job.Key, ki.CreateKeyIndex(t, r.job.Key))}}}
	}
	if err := r.proto.planDDL(r, "add the unique index on the key to "+r.job.Target.Table); err != nil {
		return err
	}
	if _, err := r.s.exec(ctx, ki.ReplaceKeyIndex(t, r.job.Key)); err != nil {
		// A key the table holds twice refuses the index: it is named.
		// Looked for only now, since building the index reads the whole
		// table anyway.
		if rerr := r.repeatedKey(ctx, r.table, "", r.job.Target.Table); rerr != nil {
			return rerr
		}
		return fmt.Errorf("indexing the key of %s (the merge needs a unique index on %v): %w", r.job.Target.Table, r.job.Key, err)
	}
	return nil
}

// createKeyIndex gives a table a merge created or built the unique index
// on the key the engine's merge needs (engine.KeyIndexer).
func (r *run) createKeyIndex(ctx context.Context, t engine.Table) error {
	ki := r.caps.KeyIndex
	if ki == nil || r.job.Strategy != job.StrategyMerge {
		return nil
	}
	if _, err := r.s.exec(ctx, ki.CreateKeyIndex(t, r.job.Key)); err != nil {
		return fmt.Errorf("indexing the key of %s: %w", t.Name, err)
	}
	return nil
}
