package idem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
)

// Partition states in a status report.
const (
	StateLoaded  = "loaded"  // last run committed, partition closed when it ran
	StateOpen    = "open"    // last run committed while the partition was open, not confirmed since
	StateFailed  = "failed"  // the latest attempt failed after the last committed run (if any)
	StateMissing = "missing" // never loaded
)

// PartitionStatus is one partition as the ledger knows it.
type PartitionStatus struct {
	Partition string `json:"partition"`
	State     string `json:"state"`
	// LastAction is the latest attempt's outcome: loaded or failed ("" when
	// missing and never tried).
	LastAction string `json:"last_action"`
	// The last committed run, when there is one.
	RowCount   int64  `json:"row_count"`
	Checksum   string `json:"checksum"`
	RunID      string `json:"run_id"`
	LoadedOpen bool   `json:"loaded_open"`
	FinishedAt string `json:"finished_at,omitempty"`
	// Objects are the input objects the last committed run loaded (URL,
	// size, identity and the hash of the bytes read); none for local
	// files or a query.
	Objects []ledger.InputObject `json:"objects,omitempty"`
	// LastFailure is the partition's latest failed attempt, with Fixed
	// true when a run committed after it.
	LastFailure *FailureStatus `json:"last_failure,omitempty"`
}

// FailureStatus is a recorded failed attempt.
type FailureStatus struct {
	RunID    string `json:"run_id"`
	Error    string `json:"error"`
	FailedAt string `json:"failed_at"`
	Fixed    bool   `json:"fixed"`
}

// Status is a job's partitions in a range, from its ledger.
type Status struct {
	Job string
	// From and To are the range looked at: as given, or the first and last
	// partition the ledger knows ("" when it knows none).
	From, To   string
	Partitions []PartitionStatus
	// Missing, Failed and Open name the partitions in those states.
	Missing, Failed, Open []string
	// Table is a merge job's target as it is now (nil for a partition job):
	// a merge's runs are named by --date but write the whole table, so the
	// ledger's partitions have no gaps to report, and a run's row count is
	// what it wrote, not what the table holds.
	Table *TableState
}

// TableState is a merge job's target now, beside what its last run left.
type TableState struct {
	Name   string `json:"table"`
	Exists bool   `json:"exists"`
	Rows   int64  `json:"rows"`
	// Changed says how the table differs from what the job's last merge
	// run left (ledger table_rows): dropped, or another row count; "" when
	// it matches, or the ledger recorded no count.
	Changed string `json:"changed,omitempty"`
}

// OK reports whether every partition of the range is loaded and closed,
// and a merge job's table holds what its last run left.
func (s *Status) OK() bool {
	ok := len(s.Partitions) > 0 && len(s.Missing)+len(s.Failed)+len(s.Open) == 0
	return ok && (s.Table == nil || s.Table.Changed == "")
}

// ReadStatus reads the ledger (idem_runs and idem_failures) of j's target
// for partitions from..to, both included, or, when both are "", for every
// partition between the first and the last the ledger knows. It opens the
// target read-only: it writes nothing and creates no file or ledger.
func ReadStatus(ctx context.Context, j *Job, from, to string, lockTimeout time.Duration) (*Status, error) {
	var windows []job.Window
	if from != "" || to != "" {
		var err error
		if windows, err = j.Range(from, to); err != nil {
			return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
		}
	}
	runs, failures, table, err := readLastRuns(ctx, j, lockTimeout)
	if err != nil {
		return nil, err
	}

	s := &Status{Job: j.Name, From: from, To: to, Table: table}
	var labels []string
	if j.Strategy == job.StrategyMerge {
		labels = knownIn(runs, failures, windows)
		if len(labels) > 0 && windows == nil {
			s.From, s.To = labels[0], labels[len(labels)-1]
		}
	} else if windows == nil {
		labels = knownSpan(j, runs, failures)
		if len(labels) > 0 {
			s.From, s.To = labels[0], labels[len(labels)-1]
		}
	} else {
		for _, w := range windows {
			labels = append(labels, w.Label)
		}
	}
	for _, p := range labels {
		s.add(partitionStatus(p, runs, failures))
	}
	return s, nil
}

// readLastRuns reads each partition's last committed run and last failed
// attempt from j's target, opened read-only, and for a merge job the
// table's state; a target with no database file has none.
func readLastRuns(ctx context.Context, j *Job, lockTimeout time.Duration) (map[string]ledger.Entry, map[string]ledger.Failure, *TableState, error) {
	db, err := OpenReadOnly(ctx, j.Target.URL, j.Dir, lockTimeout)
	switch {
	case errors.Is(err, fs.ErrNotExist): // no database file: nothing loaded
		return nil, nil, nil, nil
	case err != nil:
		return nil, nil, nil, err
	}
	defer db.Close()
	runs, err := ledger.LastRuns(ctx, db.Conn(), db, j.Name)
	if err != nil {
		return nil, nil, nil, err
	}
	failures, err := ledger.LastFailures(ctx, db.Conn(), db, j.Name)
	if err != nil {
		return nil, nil, nil, err
	}
	var table *TableState
	if j.Strategy == job.StrategyMerge {
		table, err = tableState(ctx, j, db, runs)
	}
	return runs, failures, table, err
}

// tableState counts a merge job's target and compares the count with what
// the job's last merge run left.
func tableState(ctx context.Context, j *Job, db engine.DB, runs map[string]ledger.Entry) (*TableState, error) {
	ts := &TableState{Name: j.Target.Table}
	t := engine.Table(j.Table())
	q, args := db.SQL().Catalog.TableExists(t)
	rows, err := db.Conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	ts.Exists = rows.Next()
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	last := ledger.Latest(runs, job.StrategyMerge)
	if !ts.Exists {
		if len(last) > 0 {
			ts.Changed = "the table does not exist, though the ledger records merge runs into it"
		}
		return ts, nil
	}
	if err := db.Conn().QueryRowContext(ctx, db.SQL().Inspect.Count(db.SQL().Table(t), "")).Scan(&ts.Rows); err != nil {
		return nil, fmt.Errorf("counting the rows of %s: %w", j.Target.Table, err)
	}
	if !ledger.Holds(last, ts.Rows) && len(j.Target.SharedWith) == 0 { // other jobs change a shared table's size
		ts.Changed = fmt.Sprintf("the table holds %d rows; the job's last run (partition %s) left %d", ts.Rows, last[0].Partition, last[0].TableRows)
	}
	return ts, nil
}

// knownIn labels the partitions the ledger knows (runs or failures), in
// order, within windows when given: a merge job's runs, with no gaps
// between them, since its runs need not cover every partition.
func knownIn(runs map[string]ledger.Entry, failures map[string]ledger.Failure, windows []job.Window) []string {
	known := map[string]bool{}
	for p := range runs {
		known[p] = true
	}
	for p := range failures {
		known[p] = true
	}
	in := map[string]bool{}
	for _, w := range windows {
		in[w.Label] = true
	}
	var labels []string
	for p := range known {
		if windows == nil || in[p] {
			labels = append(labels, p)
		}
	}
	slices.Sort(labels)
	return labels
}

// knownSpan labels every partition between the first and the last the
// ledger knows, so the gaps show; labels sort as their times.
func knownSpan(j *Job, runs map[string]ledger.Entry, failures map[string]ledger.Failure) []string {
	known := map[string]bool{}
	for p := range runs {
		known[p] = true
	}
	for p := range failures {
		known[p] = true
	}
	var labels []string
	for p := range known {
		labels = append(labels, p)
	}
	slices.Sort(labels)
	if len(labels) > 0 {
		if ws, err := j.Range(labels[0], labels[len(labels)-1]); err == nil {
			labels = labels[:0]
			for _, w := range ws {
				labels = append(labels, w.Label)
			}
		}
	}
	return labels
}

// partitionStatus is partition p's state from its last committed run and
// its last failed attempt.
func partitionStatus(p string, runs map[string]ledger.Entry, failures map[string]ledger.Failure) PartitionStatus {
	ps := PartitionStatus{Partition: p, State: StateMissing}
	e, loaded := runs[p]
	if loaded {
		ps.State, ps.LastAction = StateLoaded, StateLoaded
		ps.RowCount, ps.Checksum, ps.RunID = e.RowCount, e.Checksum, e.RunID
		ps.LoadedOpen = !e.PartitionClosed
		ps.FinishedAt = e.FinishedAt.UTC().Format(time.RFC3339)
		ps.Objects, _ = e.Objects() // a ledger row that does not decode has none to show
		if ps.LoadedOpen {
			ps.State = StateOpen
		}
	}
	if f, ok := failures[p]; ok {
		fixed := loaded && e.Seq > f.AfterRunSeq
		ps.LastFailure = &FailureStatus{RunID: f.RunID, Error: f.Error, FailedAt: f.FailedAt.UTC().Format(time.RFC3339), Fixed: fixed}
		if !fixed {
			ps.State, ps.LastAction = StateFailed, StateFailed
		}
	}
	return ps
}

// add appends a partition, naming it in the list of its state.
func (s *Status) add(ps PartitionStatus) {
	switch ps.State {
	case StateMissing:
		s.Missing = append(s.Missing, ps.Partition)
	case StateFailed:
		s.Failed = append(s.Failed, ps.Partition)
	case StateOpen:
		s.Open = append(s.Open, ps.Partition)
	}
	s.Partitions = append(s.Partitions, ps)
}

// RunRecord is one committed run of a partition, from idem_runs.
type RunRecord struct {
	Partition string `json:"partition"`
	// Seq orders a partition's runs: 1 for its first.
	Seq              int64  `json:"seq"`
	RunID            string `json:"run_id"`
	InputFingerprint string `json:"input_fingerprint"`
	DefinitionHash   string `json:"definition_hash"`
	Strategy         string `json:"strategy"`
	RowsIn           int64  `json:"rows_in"`
	RowsDeduped      int64  `json:"rows_deduped"`
	RowsOutOfWindow  int64  `json:"rows_out_of_window"`
	Inserted         int64  `json:"inserted"`
	Updated          int64  `json:"updated"`
	Deleted          int64  `json:"deleted"`
	DeletedAbsent    int64  `json:"deleted_absent"`
	SkippedOlder     int64  `json:"skipped_older"`
	KeptOnTie        int64  `json:"kept_on_tie"`
	RowCount         int64  `json:"row_count"`
	Checksum         string `json:"checksum"`
	PartitionClosed  bool   `json:"partition_closed"`
	StartedAt        string `json:"started_at"`
	FinishedAt       string `json:"finished_at"`
	IdemVersion      string `json:"idem_version"`
	// Objects are the input objects the run loaded (see PartitionStatus).
	Objects []ledger.InputObject `json:"objects,omitempty"`
	// Latest is the partition's last run: the one its rows come from.
	Latest bool `json:"latest"`
}

// History is every committed run of a job's partitions in a range.
type History struct {
	Job      string
	From, To string // as given ("" for every partition)
	Runs     []RunRecord
}

// ReadHistory reads every committed run of j's partitions from..to, both
// included (every partition when both are ""), from idem_runs, in
// partition order and, within one, in the order they committed. Like
// ReadStatus it opens the target read-only.
func ReadHistory(ctx context.Context, j *Job, from, to string, lockTimeout time.Duration) (*History, error) {
	h := &History{Job: j.Name, From: from, To: to}
	var first, last string
	if from != "" || to != "" {
		windows, err := j.Range(from, to)
		if err != nil {
			return nil, &job.Error{File: j.Path, Problems: []job.Problem{{Msg: err.Error()}}}
		}
		first, last = windows[0].Label, windows[len(windows)-1].Label
	}
	db, err := OpenReadOnly(ctx, j.Target.URL, j.Dir, lockTimeout)
	switch {
	case errors.Is(err, fs.ErrNotExist): // no database file: nothing loaded
		return h, nil
	case err != nil:
		return nil, err
	}
	defer db.Close()
	runs, err := ledger.History(ctx, db.Conn(), db, j.Name)
	if err != nil {
		return nil, err
	}
	for i, e := range runs {
		if first != "" && (e.Partition < first || e.Partition > last) { // labels sort as their times
			continue
		}
		h.Runs = append(h.Runs, RunRecord{
			Partition: e.Partition, Seq: e.Seq, RunID: e.RunID, InputFingerprint: e.InputFingerprint,
			DefinitionHash: e.DefinitionHash, Strategy: e.Strategy, RowsIn: e.RowsIn, RowsDeduped: e.RowsDeduped,
			RowsOutOfWindow: e.RowsOutOfWindow, Inserted: e.Inserted, Updated: e.Updated, Deleted: e.Deleted,
			DeletedAbsent: e.DeletedAbsent, SkippedOlder: e.SkippedOlder, KeptOnTie: e.KeptOnTie, RowCount: e.RowCount, Checksum: e.Checksum,
			PartitionClosed: e.PartitionClosed, StartedAt: e.StartedAt.UTC().Format(time.RFC3339),
			FinishedAt: e.FinishedAt.UTC().Format(time.RFC3339), IdemVersion: e.IdemVersion,
			Latest: i == len(runs)-1 || runs[i+1].Partition != e.Partition,
		})
		h.Runs[len(h.Runs)-1].Objects, _ = e.Objects()
	}
	return h, nil
}
