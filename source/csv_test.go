package source

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCSVDelimiter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		content string
		want    byte
	}{
		{"a,b,c\n1,2,3\n", ','},
		{"a;b;c\n1;2;3\n", ';'},
		{"a\tb\n1\t2\n", '\t'},
		{"a|b\n", '|'},
		{"only\n1\n", ','},
		{`"x;y",b,c` + "\n", ','},
		{"a;b,c;d\r\n", ';'},
		{"", ','},
	} {
		got, err := CSVDelimiter(write(t, dir, "f.csv", tc.content))
		require.NoError(t, err)
		require.Equal(t, string(tc.want), string(got), tc.content)
	}
}

func TestCheckCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"id,day,n\n1,2024-05-01,5\n2,2024-05-01,6\n", ""},
		{"id,day,n\n1,2024-05-01,5\n2,2024-05-01\n3,2024-05-01,30,99\n", "r.csv line 3: expected 3 fields, as the header has, found 2"},
		{"id,day,n\n1,2024-05-01,5,6\n", "r.csv line 2: expected 3 fields, as the header has, found 4"},
		{"id,day,n\n1,2024-05-01,\"10\n2,2024-05-01,20\n", "r.csv line 2: a quoted field opened on this line is never closed"},
		{"id,name\n1,\"say \"\"hi\"\"\"\n2,a \"b\" c\n", ""},
		{"id,name\n1,\"multi\nline\"\n", ""},
		{"", "r.csv is empty (0 bytes)"},
		{"This is prose, not a CSV.\nIt has two lines.\n", "r.csv line 2: expected 2 fields, as the header has, found 1"},
	} {
		p := write(t, dir, "r.csv", tc.content)
		err := CheckCSV(p, ',')
		if tc.want == "" {
			require.NoError(t, err, tc.content)
			continue
		}
		require.ErrorContains(t, err, tc.want, tc.content)
	}
}

// A spreadsheet's "sep=" first line is told from a header, whichever
// delimiter reads it; a header with a column named sep is a header.
func TestSepLine(t *testing.T) {
	for _, rec := range [][]string{{"sep=;"}, {"sep=", ""}, {"\ufeffSEP=|"}, {"sep=\t"}} {
		require.True(t, sepLine(rec), "%q", rec)
	}
	for _, rec := range [][]string{{"sep"}, {"sep", "day"}, {"sep=;", "day"}, {"sep=;;"}, {"id", ""}, {}} {
		require.False(t, sepLine(rec), "%q", rec)
	}
}
