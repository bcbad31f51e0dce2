package enginetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/runner"
)

var typeCases = []testCase{
	{"ColumnEmptyInAWholeFile", testEmptyColumn},
	{"MergeColumnEmptyInAWholeFile", testMergeEmptyColumn},
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
	require.Equal(t, []string{"6"}, e.Query(`SELECT sum(n) + 1 FROM `+e.Sales("orders")), "n is still a number")
}

// The same in a merge, whose plan compares staged rows with the target's:
// the staged text column is compared as the target's number.
func testMergeEmptyColumn(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/2026-11-27.csv", "id,n,note,d\n1,5,a,2026-11-27\n")
	e.Write("in/2026-11-28.csv", "id,n,note,d\n1,,a,2026-11-27\n2,,b,2026-11-28\n")
	e.Write("in/2026-11-29.csv", "id,n,note,d\n1,,a,2026-11-29\n")
	j := e.Job(`job: sparse_merge
source:
  files: in/{{ date }}.csv
strategy: merge
key: [id]
latest_by: d
`)
	e.MustRun(j, "2026-11-27")
	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, int64(0), r.Updated, "5 comes before NULL at the same version")
	r = e.MustRun(j, "2026-11-29")
	require.Equal(t, int64(1), r.Updated)
	require.Equal(t, []string{"1|NULL", "2|NULL"}, e.Rows("", "id", "n"))
	require.Equal(t, []string{"1"}, e.Query(`SELECT count(*) FROM `+e.Sales("orders")+` WHERE n IS NULL AND id = 1`))

	before := e.Checksum("")
	e.Write("in/2026-11-30.csv", "id,n,note,d\n3,abc,c,2026-11-30\n")
	_, err := e.Run(j, "2026-11-30")
	var ie *runner.InputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, before, e.Checksum(""), "the target keeps its rows")
}
