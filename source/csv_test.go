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
