package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// checksum --where is read by the target engine's lexical rules, before
// anything is opened: what is a comment or a quoted identifier on one
// engine is an operator or an error on another. (Accepted conditions then
// fail to open the target, which does not exist.)
func TestChecksumWhereByTheTargetsRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		url, where string
		refused    string // the --where error, "" when the condition passes
	}{
		{"duckdb:" + filepath.Join(dir, "x.duckdb"), "x // 2 = 1", ""}, // integer division
		{"duckdb:" + filepath.Join(dir, "x.duckdb"), "`x` = 1", "--where contains '`'"},
		{"chdb:" + filepath.Join(dir, "x.chdb"), "x // 2 = 1", "--where contains a comment"},
		{"chdb:" + filepath.Join(dir, "x.chdb"), "note = $a b$;$a b$", ""}, // a heredoc
		{"chdb:" + filepath.Join(dir, "x.chdb"), `note = 'a\'; b'`, ""},
		{"clickhouse://default@127.0.0.1:1/db", "x // 2 = 1", "--where contains a comment"},
		{"postgres://u@127.0.0.1:1/db?sslmode=disable", "a # b = 0", ""}, // XOR
		{"postgres://u@127.0.0.1:1/db?sslmode=disable", `note = 'a\'; DROP TABLE t; --'`, "--where contains"},
		{"mysql://root@127.0.0.1:1/db", "`order id` = 1", ""},
		{"mysql://root@127.0.0.1:1/db", "x = 1 # y", "--where contains a comment"},
		{"mysql://root@127.0.0.1:1/db", `note = "a\"; DROP TABLE t; --"`, "--where contains"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, "checksum", c.url, "t", "--where", c.where)
		require.NotEqual(t, 0, code, errOut)
		if c.refused == "" {
			require.NotContains(t, errOut, "--where", "%s: %s", c.url, c.where)
			continue
		}
		require.Equal(t, 2, code, errOut)
		require.Contains(t, errOut, c.refused, "%s: %s", c.url, c.where)
	}
}
