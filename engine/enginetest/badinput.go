package enginetest

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// Bad input never damages the target and is named by file and line: a
// data fault is a failed run (exit 1), never a job-file error.
var badInputCases = []testCase{
	{"BadCSVNamedByLine", testBadCSV},
	{"UnknownColumnTypeIsAJobError", testUnknownType},
}

// A columns: type the target does not know is a job-file error (exit 2),
// every one reported at once, before anything is read or written.
func testUnknownType(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.csv", "id,day,n\n1,2024-05-01,5\n")
	j := e.Job(`job: types
source:
  files: in/x.csv
strategy: partition
partition:
  column: day
columns:
  n: NOTATYPE
  id: ALSONOTATYPE
`)
	_, err := e.Run(j, "2024-05-01")
	var je *job.Error
	require.ErrorAs(t, err, &je, "%v", err)
	require.Contains(t, err.Error(), `columns.id: "ALSONOTATYPE" is not a type idem reads; the types are`)
	require.Contains(t, err.Error(), `columns.n: "NOTATYPE" is not a type idem reads`)
	require.Equal(t, 0, e.LedgerRows(j.Name, "2024-05-01", ""))
}

func testBadCSV(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/x.csv", "id,day,n\n1,2024-05-01,5\n")
	body := `job: bad
source:
  files: in/x.csv
strategy: partition
partition:
  column: day
`
	j := e.Job(body)
	e.MustRun(j, "2024-05-01")
	before := e.Checksum("")
	for _, tc := range []struct{ content, want string }{
		{"id,day,n\n1,2024-05-01,5\n2,2024-05-01\n3,2024-05-01,30,99\n", "x.csv line 3: expected 3 fields, as the header has, found 2"},
		{"id,day,n\n1,2024-05-01,\"10\n2,2024-05-01,20\n", "x.csv line 2: a quoted field opened on this line is never closed"},
		{"id,day,n\n1,2024-05-01,\"alice\n", "x.csv line 2: a quoted field opened on this line is never closed"},
		{"", "x.csv is empty (0 bytes)"},
		{"\n\n", "x.csv has no header line: it holds only blank lines"},
		{"\ufeff", "x.csv line 1: the header line names no column"},
		{" \n1,2024-05-01,5\n", "x.csv line 1: the header line names no column"},
		{"id,day,n,\n1,2024-05-01,5,\n", "x.csv line 1: field 4 of the header is empty: every column needs a name"},
		{"id,day,n,N\n1,2024-05-01,5,6\n", `x.csv line 1: the header names column "N" twice (fields 3 and 4; names are compared without case)`},
		{"This is a prose file, not a CSV.\nIt has two lines.\n", "x.csv line 2: expected 2 fields, as the header has, found 1"},
		{"sep=;\nid;day;n\n1;2024-05-01;5\n", `x.csv line 1: "sep=;" is a spreadsheet's delimiter line, not a header`},
		{"sep=,\nid,day,n\n1,2024-05-01,5\n", `x.csv line 1: "sep=," is a spreadsheet's delimiter line, not a header`},
	} {
		e.Write("in/x.csv", tc.content)
		_, err := e.Run(j, "2024-05-01", Force)
		requireInputError(t, err, tc.want)
		require.Equal(t, before, e.Checksum(""), tc.content)
		// The location is data too, for a caller that reports it.
		var ie *runner.InputError
		require.ErrorAs(t, err, &ie)
		if _, rest, ok := strings.Cut(tc.want, ".csv line "); ok {
			line, _, _ := strings.Cut(rest, ":")
			require.Equal(t, line, strconv.Itoa(ie.Line), "%+v", ie)
			require.Equal(t, "x.csv", filepath.Base(ie.File))
		}
	}
	// Files whose headers name other columns: the file that differs and how.
	e.Write("in/x.csv", "id,day,n\n1,2024-05-01,5\n")
	e.Write("in/y.csv", "day,ID\n2024-05-01,2\n")
	_, err := e.Run(e.Job(strings.Replace(body, "files: in/x.csv", "files: in/*.csv", 1)), "2024-05-01", Force)
	requireInputError(t, err, "y.csv line 1: its header names other columns than x.csv's (more: none; fewer: n): every file must name the same columns, in any order")
	require.Equal(t, before, e.Checksum(""))
}
