package enginetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/ledger"
)

var ledgerCases = []testCase{
	{"LedgerNoRunIsErrNoRun", testLedgerNoRun},
	{"LedgerRoundTrip", testLedgerRoundTrip},
}

// Last and Find say "no such run" with ledger.ErrNoRun, never a nil entry.
func testLedgerNoRun(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	r := e.MustRun(j, "2026-11-28")
	e.DB(func(ctx context.Context, db engine.DB) {
		last, err := ledger.Last(ctx, db.Conn(), db, j.Name, "2026-11-28")
		require.NoError(t, err)
		require.Equal(t, r.RunID, last.RunID)
		found, err := ledger.Find(ctx, db.Conn(), db, j.Name, "2026-11-28", r.RunID)
		require.NoError(t, err)
		require.Equal(t, last, found)

		_, err = ledger.Last(ctx, db.Conn(), db, j.Name, "2026-11-27")
		require.ErrorIs(t, err, ledger.ErrNoRun)
		require.ErrorContains(t, err, "partition 2026-11-27")
		_, err = ledger.Find(ctx, db.Conn(), db, j.Name, "2026-11-28", "not-a-run")
		require.ErrorIs(t, err, ledger.ErrNoRun)
		require.ErrorContains(t, err, "run not-a-run")
	})
}

// Every column of idem_runs and idem_failures, written from the one
// definition in package ledger, reads back as written.
func testLedgerRoundTrip(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob) // a run creates the ledger
	e.MustRun(j, "2026-11-28")
	at := time.Date(2026, 11, 30, 7, 8, 9, 0, time.FixedZone("CET", 3600))
	want := ledger.Entry{
		Job: "round_trip", Partition: "2026-11", RunID: "r1", InputFingerprint: "fp", DefinitionHash: "dh",
		Strategy: "merge", RowsIn: 1, RowsDeduped: 2, RowsOutOfWindow: 3, Inserted: 4, Updated: 5, Deleted: 6,
		DeletedAbsent: 7, SkippedOlder: 8, RowCount: 9, Checksum: "-10", PartitionClosed: true,
		StartedAt: at, FinishedAt: at.Add(time.Second), IdemVersion: "v", TargetTable: "sales.t",
	}
	e.DB(func(ctx context.Context, db engine.DB) {
		tx, err := db.Begin(ctx)
		require.NoError(t, err)
		w := want
		require.NoError(t, ledger.Write(ctx, tx, db, &w))
		require.NoError(t, tx.Commit())
		want.Seq, want.JobSeq = 1, 1 // the partition's first run, and the job's

		got, err := ledger.Find(ctx, db.Conn(), db, "round_trip", "2026-11", "r1")
		require.NoError(t, err)
		require.True(t, got.StartedAt.Equal(want.StartedAt), "%v", got.StartedAt)
		require.True(t, got.FinishedAt.Equal(want.FinishedAt), "%v", got.FinishedAt)
		got.StartedAt, got.FinishedAt = want.StartedAt, want.FinishedAt
		require.Equal(t, want, *got)

		f := ledger.Failure{Job: "round_trip", Partition: "2026-11", RunID: "r2", Error: "boom", FailedAt: at, IdemVersion: "v"}
		recorded, err := ledger.RecordFailure(ctx, db.Conn(), db, &f)
		require.NoError(t, err)
		require.True(t, recorded)
		fails, err := ledger.LastFailures(ctx, db.Conn(), db, "round_trip")
		require.NoError(t, err)
		gotF := fails["2026-11"]
		require.True(t, gotF.FailedAt.Equal(at), "%v", gotF.FailedAt)
		gotF.FailedAt = at
		require.Equal(t, ledger.Failure{Job: "round_trip", Partition: "2026-11", RunID: "r2", Seq: 1, AfterRunSeq: 1,
			Error: "boom", FailedAt: at, IdemVersion: "v"}, gotF)
	})
}
