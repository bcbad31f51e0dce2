//go:build cgo

package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse"
)

// openChDB opens embedded ClickHouse (the exchange protocol) at path.
func openChDB(ctx context.Context, path string) (engine.DB, error) {
	return clickhouse.Open(ctx, path, time.Minute)
}

// TestFailureAtEachStep on the exchange protocol (embedded ClickHouse,
// IDEM_CHDB_LIB): without transactions, a failure before the partition or
// the built table is swapped in changes no table (but an empty ledger a
// first load created); one after it leaves the new data in place without
// its ledger row, and the next run loads it again; one after the ledger
// row (nothing takes it back) leaves the run done. chDB has one session per
// process, so the cases run one after another; -short runs the partition
// job's rerun only.
func TestFailureAtEachStepExchange(t *testing.T) {
	needChDB(t)
	for _, c := range exchangeCases() {
		if testing.Short() && (c.strategy != "partition" || c.stage != "rerun") {
			continue
		}
		t.Run(c.String(), func(t *testing.T) {
			ref := t.TempDir()
			j := c.prepare(t, ref)
			db := c.openAt(t, ref)
			_, err := Run(t.Context(), db, j, stepOpts())
			require.NoError(t, err)
			want := snapshot(t, db)
			names := stepNames(db, j)
			require.NoError(t, db.Close())
			for i, name := range names {
				inj := injected[i%len(injected)]
				t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
					dir := t.TempDir()
					j := c.prepare(t, dir)
					db := c.openAt(t, dir)
					defer db.Close()
					before := snapshot(t, db)
					opts := stepOpts()
					opts.afterStep = func(step string) error {
						if step == name {
							return inj.err
						}
						return nil
					}
					_, err := Run(t.Context(), db, j, opts)
					if name == "drop staging" {
						require.NoError(t, err, "a cleanup after the swap does not fail the run")
						require.Equal(t, want, snapshot(t, db))
						return
					}
					require.ErrorIs(t, err, inj.err)
					require.Equal(t, inj.exit, ExitCode(err), "exit code of %v", err)
					got := withoutNewLedger(c, before, snapshot(t, db))
					target, ledger := "default.orders", "default.idem_runs"
					require.Contains(t, want, target)
					// The failure injected after "write ledger" follows a
					// row no transaction takes back: the run is recorded.
					recorded := name == "write ledger"
					landed := recorded || slices.Contains(exchangeLanded(c), name)
					require.Equal(t, landed && !recorded, errors.Is(err, ErrUnrecorded), "the error says whether the rows are in place: %v", err)
					switch {
					case recorded:
						require.Equal(t, want, got, "swapped in and recorded before the failure")
					case landed:
						require.Equal(t, want[target], got[target], "swapped in before the failure")
						require.Equal(t, before[ledger], got[ledger], "the ledger records no failed run")
					default:
						require.Equal(t, before, got, "a run failed before its swap changes nothing")
					}

					_, err = Run(t.Context(), db, j, stepOpts())
					require.NoError(t, err)
					got = snapshot(t, db)
					if !landed || recorded {
						require.Equal(t, want, got, "the next run ends where a run without the failure does")
						return
					}
					// It loads the same rows again; its ledger row counts as
					// deleted the rows the failed run had put in place.
					require.Equal(t, want[target], got[target])
					require.Len(t, got[ledger], len(want[ledger]))
				})
			}
		})
	}
}

// needChDB skips t when embedded ClickHouse cannot be opened.
func needChDB(t *testing.T) {
	t.Helper()
	db, err := openChDB(t.Context(), t.TempDir()+"/probe")
	if err != nil {
		t.Skipf("embedded ClickHouse is not available (%v): scripts/fetch-chdb.sh fetches it, IDEM_CHDB_LIB names it", err)
	}
	require.NoError(t, db.Close())
}

// exchangeCases are the step cases on the exchange protocol (chDB): one
// of each strategy and stage.
func exchangeCases() []stepCase {
	var out []stepCase
	for _, c := range stepCases() {
		if c.protocol == "transaction" {
			c.protocol, c.open = "exchange", openChDB
			out = append(out, c)
		}
	}
	return out
}

// exchangeLanded are the data steps after which a failed run's data is in
// place on the exchange protocol: a partition's exchange and its
// checksum. A table built whole (a first load, a merge) is swapped in
// after the data steps, just before the ledger row.
func exchangeLanded(c stepCase) []string {
	if c.strategy == "partition" && c.stage == "rerun" {
		return []string{"replace partition", "checksum partition"}
	}
	return nil
}
