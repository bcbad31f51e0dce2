//go:build cgo

package runner

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// Verify's drop list holds, beside each scratch target, every table a run
// builds next to it: an interrupted scratch run on MariaDB loses its
// connection with its statement and leaves its built table to verify's
// cleanup (on a new connection), which drops only what it lists.
func TestVerifyListsWhatItsRunsBuild(t *testing.T) {
	for _, e := range stepEngines {
		t.Run(e.protocol, func(t *testing.T) {
			dir := t.TempDir()
			j, err := job.Parse([]byte(stepPartitionJob), dir, func(string) (string, bool) { return "", false })
			require.NoError(t, err)
			db, err := e.open(t.Context(), filepath.Join(dir, "t.duckdb"))
			require.NoError(t, err)
			defer db.Close()
			v, err := newVerifier(t.Context(), db, j, stepOpts().withDefaults())
			require.NoError(t, err)
			listed := map[engine.Table]bool{}
			for _, tb := range v.tables {
				listed[tb] = true
			}
			for _, n := range []string{"a", "s", "b", "c"} {
				require.True(t, listed[v.table(n)], n)
				for _, b := range engine.Beside(v.table(n), true) {
					require.True(t, listed[b], "%s is not dropped by verify", b.Name)
				}
			}
			require.True(t, listed[engine.Table{Schema: db.Names().Ledger.Schema, Name: v.base + "_runs"}])
		})
	}
}
