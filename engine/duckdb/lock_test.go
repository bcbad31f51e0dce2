package duckdb

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

// Within a process: partitions of one table load side by side; a whole
// table run waits for them and they for it; waits end in ErrLocked.
func TestLockScopes(t *testing.T) {
	t.Parallel()
	d := &DB{path: t.TempDir() + "/x.duckdb"}
	ctx := context.Background()
	tbl := engine.Table{Schema: "main", Name: "orders"}
	p28 := engine.LockScope{Table: tbl, Partition: "2026-11-28"}
	p29 := engine.LockScope{Table: tbl, Partition: "2026-11-29"}
	whole := engine.LockScope{Table: tbl}

	rel28, err := d.Lock(ctx, nil, p28, time.Second)
	require.NoError(t, err)
	rel29, err := d.Lock(ctx, nil, p29, 50*time.Millisecond)
	require.NoError(t, err, "another partition is free")

	_, err = d.Lock(ctx, nil, p28, 50*time.Millisecond)
	require.ErrorIs(t, err, engine.ErrLocked)
	require.Contains(t, err.Error(), "main.orders partition 2026-11-28 is being loaded")
	_, err = d.Lock(ctx, nil, whole, 50*time.Millisecond)
	require.ErrorIs(t, err, engine.ErrLocked, "a merge waits for partition runs")

	rel28()
	rel29()
	relWhole, err := d.Lock(ctx, nil, whole, time.Second)
	require.NoError(t, err)
	_, err = d.Lock(ctx, nil, p29, 50*time.Millisecond)
	require.ErrorIs(t, err, engine.ErrLocked, "partition runs wait for a merge")
	other := engine.LockScope{Table: engine.Table{Schema: "main", Name: "customers"}, Partition: "2026-11-29"}
	relOther, err := d.Lock(ctx, nil, other, 50*time.Millisecond)
	require.NoError(t, err, "another table is free")
	relOther()
	relWhole()
	rel, err := d.Lock(ctx, nil, p29, time.Second)
	require.NoError(t, err)
	rel()
}
