package postgres_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/runner"
)

// TestPlanGolden compares `idem plan` with the golden files, and each plan
// with what a run then executes.
func TestPlanGolden(t *testing.T) {
	enginetest.GoldenPlan(t, harness, "postgres")
}

// A plan takes the run's lock: while another session holds the partition,
// it waits --lock-timeout, then says a run would exit 75; it shows the
// lock it waited for, with its advisory keys.
func TestPlanWaitsForTheLock(t *testing.T) {
	t.Parallel()
	url := freshDatabase(t)
	ctx := t.Context()
	holder := open(t, url)
	tx, err := holder.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback()
	_, err = holder.Lock(ctx, tx, scope("2026-11-28"), time.Minute)
	require.NoError(t, err)

	dir := t.TempDir()
	path := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`idem: 1
job: locked_plan
target:
  url: `+url+`
  table: orders
source:
  query: SELECT 1 AS order_id, {{ start }} AS order_date
strategy: partition
partition:
  column: order_date
`), 0o644))
	j, err := idem.Load(path)
	require.NoError(t, err)
	plans, err := idem.Plan(ctx, j, idem.Options{Date: "2026-11-28", LockTimeout: 200 * time.Millisecond})
	require.ErrorIs(t, err, engine.ErrLocked)
	require.Len(t, plans, 1)
	p := plans[0]
	var kinds []string
	for _, s := range p.Steps {
		kinds = append(kinds, s.Kind)
	}
	require.Equal(t, []string{runner.KindPartition, runner.KindBegin, runner.KindLock, runner.KindRollback}, kinds)
	require.Contains(t, p.Steps[2].Text, "-- lock: public.orders partition 2026-11-28, waiting up to 200ms: pg_advisory_xact_lock_shared(")
	require.True(t, strings.HasSuffix(strings.TrimSpace(p.Text()), p.Error))
	require.Contains(t, p.Text(), "a run would exit 75 (try again later)")
}
