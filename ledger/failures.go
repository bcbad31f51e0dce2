package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
)

// Failure is one row of idem_failures: the last failed attempt of a run id
// of a partition. It is written outside the run's (rolled back)
// transaction, best effort, so that `idem status` can show failed attempts,
// which idem_runs never holds.
type Failure struct {
	Job       string
	Partition string
	// RunID is "" when the run failed before its input was fingerprinted
	// (no file matched, say).
	RunID string
	// Seq orders the failures of one (job, partition).
	Seq int64
	// AfterRunSeq is the partition's latest idem_runs seq when the attempt
	// failed (0: none). A committed run with a greater seq came later and
	// fixed it: comparing sequence numbers needs no clock.
	AfterRunSeq int64
	Error       string
	FailedAt    time.Time
	IdemVersion string
}

// FailuresTable is idem_failures, next to idem_runs. A ledger under
// another name (verify's scratch ledger, X_runs) has its own failures
// table (X_failures), so runs against it never write the real one.
func FailuresTable(db engine.DB) engine.Table {
	l := db.Names().Ledger
	name := "idem_failures"
	if l.Name != "idem_runs" {
		name = strings.TrimSuffix(l.Name, "_runs") + "_failures"
	}
	return engine.Table{Schema: l.Schema, Name: name}
}

// tableExists reports whether t exists.
func tableExists(ctx context.Context, q engine.Querier, db engine.DB, t engine.Table) (bool, error) {
	query, args := db.SQL().Catalog.TableExists(t)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("looking for %s: %w", t.Name, err)
	}
	defer rows.Close()
	found := rows.Next()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("looking for %s: %w", t.Name, err)
	}
	return found, nil
}

// RecordFailure writes f, replacing the failure of the same run id: a
// retry that fails again overwrites its own row. Call it outside the run's
// transaction (after the rollback), so the record survives it. A target
// without a ledger (no run ever committed) gets no record, and recorded is
// false: a failed run leaves a fresh target as it found it.
func RecordFailure(ctx context.Context, q engine.Querier, db engine.DB, f *Failure) (recorded bool, err error) {
	if ok, err := Exists(ctx, q, db); err != nil || !ok {
		return false, err
	}
	return true, recordFailure(ctx, q, db, f)
}

func recordFailure(ctx context.Context, q engine.Querier, db engine.DB, f *Failure) error {
	t := FailuresTable(db)
	// Created on the first failure, not with idem_runs, so a run that
	// succeeds executes no extra statement.
	if _, err := q.ExecContext(ctx, db.SQL().Ledger.CreateTable(t, failures.def())); err != nil {
		// Two first failures at once on a server can race to create it;
		// the loser finds the winner's table.
		if ok, e := tableExists(ctx, q, db, t); e != nil || !ok {
			return fmt.Errorf("creating %s: %w", t.Name, err)
		}
	}
	rec, byPartition := db.SQL().Records, []string{"job", "partition"}
	runSeq := rec.MaxSeq(db.Names().Ledger, "seq", byPartition)
	if err := q.QueryRowContext(ctx, runSeq, f.Job, f.Partition).Scan(&f.AfterRunSeq); err != nil {
		return fmt.Errorf("recording the failure: %w", err)
	}
	seq := rec.NextSeq(t, "seq", byPartition, "")
	if err := q.QueryRowContext(ctx, seq, f.Job, f.Partition).Scan(&f.Seq); err != nil {
		return fmt.Errorf("recording the failure: %w", err)
	}
	if _, err := q.ExecContext(ctx, db.SQL().Ledger.Upsert(t, failures.names(), failures.key), failures.values(f)...); err != nil {
		return fmt.Errorf("recording the failure: %w", err)
	}
	return nil
}

// LastFailures returns, per partition of job, its latest recorded failure
// (none when idem_failures does not exist), by partition.
func LastFailures(ctx context.Context, q engine.Querier, db engine.DB, job string) (map[string]Failure, error) {
	t := FailuresTable(db)
	if ok, err := tableExists(ctx, q, db, t); err != nil || !ok {
		return nil, err
	}
	query := db.SQL().Records.Select(t, failures.def().Columns, []string{"job"}, []string{"partition", "seq"})
	rows, err := q.QueryContext(ctx, query, job)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", t.Name, err)
	}
	defer rows.Close()
	out := map[string]Failure{}
	for rows.Next() {
		var f Failure
		if err := rows.Scan(failures.dest(&f)...); err != nil {
			return nil, fmt.Errorf("reading %s: %w", t.Name, err)
		}
		out[f.Partition] = f // ordered by seq: the last one wins
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", t.Name, err)
	}
	return out, nil
}

// LastRuns returns, per partition of job, its latest committed run (none
// when idem_runs does not exist yet). Reading never creates the ledger.
func LastRuns(ctx context.Context, q engine.Querier, db engine.DB, job string) (map[string]Entry, error) {
	idx, err := readColumns(ctx, q, db)
	if err != nil || len(idx) == 0 {
		return nil, err
	}
	query := selectRunsOf(db, idx, []string{"job"}, []string{"partition", "seq"})
	rows, err := q.QueryContext(ctx, query, job)
	if err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	defer rows.Close()
	out := map[string]Entry{}
	for rows.Next() {
		var e Entry
		if err := rows.Scan(destOf(&e, idx)...); err != nil {
			return nil, fmt.Errorf("reading the ledger: %w", err)
		}
		out[e.Partition] = e
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	return out, nil
}

// History returns every committed run of job, ordered by partition, then
// by seq (the order they committed in): `idem status --history`. None when
// there is no ledger.
func History(ctx context.Context, q engine.Querier, db engine.DB, job string) ([]Entry, error) {
	idx, err := readColumns(ctx, q, db)
	if err != nil || len(idx) == 0 {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, selectRunsOf(db, idx, []string{"job"}, []string{"partition", "seq"}), job)
	if err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		if err := rows.Scan(destOf(&e, idx)...); err != nil {
			return nil, fmt.Errorf("reading the ledger: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	return out, nil
}

// Latest picks, among runs (LastRuns' map), those of strategy recorded
// last (by job_seq, else finished_at): several when they cannot be told
// apart.
func Latest(runs map[string]Entry, strategy string) []Entry {
	var last []Entry
	for _, e := range runs {
		if e.Strategy != strategy {
			continue
		}
		c := 1
		if len(last) > 0 {
			c = recorded(e.JobSeq, e.FinishedAt, last[0].JobSeq, last[0].FinishedAt)
		}
		switch c {
		case 1:
			last = []Entry{e}
		case 0:
			last = append(last, e)
		}
	}
	return last
}

// Holds reports whether a table of n rows still holds what the runs that
// finished last (Latest) left: true when one of them recorded n, or none
// recorded a count (0: a partition run, an older idem, or an empty table).
func Holds(last []Entry, n int64) bool {
	for _, e := range last {
		if e.TableRows == 0 || e.TableRows == n {
			return true
		}
	}
	return len(last) == 0
}
