package enginetest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// OrdersCSV writes (once, cached in the temp folder) the engines'
// benchmark input: an orders CSV of n rows, all on 2026-11-28, about 64
// bytes a row, the same file for every engine so their numbers compare.
func OrdersCSV(tb testing.TB, n int) string {
	tb.Helper()
	dir := filepath.Join(os.TempDir(), "idem-bench")
	require.NoError(tb, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, fmt.Sprintf("orders-%d.csv", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	require.NoError(tb, err)
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "order_id,customer_id,created_at,status,amount,updated_at")
	statuses := []string{"placed", "shipped", "completed", "returned"}
	for i := range n {
		ts := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).Add(time.Duration(i%86400) * time.Second).Format("2006-01-02 15:04:05")
		fmt.Fprintf(w, "%d,%d,%s,%s,%d.%02d,%s\n", i+1, i%9973, ts, statuses[i%4], i%1000, i%100, ts)
	}
	require.NoError(tb, w.Flush())
	require.NoError(tb, f.Close())
	require.NoError(tb, os.Rename(tmp, path))
	return path
}
