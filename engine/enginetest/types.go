package enginetest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var typeCases = []struct {
	name string
	fn   func(*testing.T, Harness)
}{
	{"ColumnEmptyInAWholeFile", testEmptyColumn},
}

// A column that is empty in a whole file has no type to infer (a reader
// calls it text); it still loads into the target's typed column, as NULLs.
func testEmptyColumn(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-27.csv", "id,n,d\n1,5,2026-11-27\n")
	e.Write("in/2026-11-28.csv", "id,n,d\n2,,2026-11-28\n3,,2026-11-28\n")
	j := e.Job(`job: sparse
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: d
`)
	e.MustRun(j, "2026-11-27")
	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(2), r.RowCount)
	require.Equal(t, []string{"1|5", "2|NULL", "3|NULL"}, e.Rows("", "id", "n"))
	require.Equal(t, []string{"6"}, e.Query(`SELECT sum(n) + 1 FROM sales.orders`), "n is still a number")
}
