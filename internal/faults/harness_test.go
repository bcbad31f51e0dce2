package faults_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
)

// The checks the fault tests rely on can fail: a table with a row missing,
// or a ledger whose checksum disagrees with its table, is a violation.
func TestHarnessDetectsDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; not with -short")
	}
	tgt := duckTarget{dir: t.TempDir()}
	f := newFixture(t, tgt, "partition", 2000)
	state, err := f.which(t, f.base)
	require.NoError(t, err)
	require.Equal(t, "old", state)

	for name, q := range map[string]string{
		"a row missing":          `DELETE FROM sales.orders WHERE order_id = 7`,
		"a row changed":          `UPDATE sales.orders SET status = 'lost' WHERE order_id = 7`,
		"the ledger disagreeing": `UPDATE idem_runs SET checksum = '0000000000000000'`,
	} {
		t.Run(name, func(t *testing.T) {
			u, drop := tgt.copyOf(t, f.base, "damaged")
			defer drop()
			execSQL(t, u, q)
			_, err := f.which(t, u)
			require.Error(t, err)
		})
	}
}

func execSQL(t *testing.T, u, q string) {
	t.Helper()
	ctx := context.Background()
	db, err := idem.Open(ctx, u, t.TempDir(), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Conn().ExecContext(ctx, q)
	require.NoError(t, err)
}
