package mysql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/engine/mysql"
)

// stageCSV loads one CSV file into a staging table, by raw bytes where the
// engine can (rows false) or as rows read by the embedded reader, and
// returns the staged rows as text, and what ran.
func stageCSV(t *testing.T, url, path string, types map[string]string, rows bool) ([]string, []string, error) {
	t.Helper()
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	db.SetCSVRows(rows)
	var ran []string
	err = db.LoadFiles(ctx, nil, "idem_stage", engine.FileInput{
		Paths: []string{path}, Format: "csv", Delim: ",", Types: types,
		Record: func(s string) { ran = append(ran, s) },
	})
	if err != nil {
		return nil, ran, err
	}
	r, err := db.Conn().QueryContext(ctx, `SELECT * FROM "idem_stage" ORDER BY 1`)
	require.NoError(t, err)
	defer r.Close()
	cols, err := r.Columns()
	require.NoError(t, err)
	var out []string
	for r.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, r.Scan(ptrs...))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, fmt.Sprintf("%q", vals))
	}
	require.NoError(t, r.Err())
	return out, ran, nil
}

// The raw path stages what the embedded reader stages, value for value,
// for text that LOAD DATA's defaults would read otherwise (backslashes,
// \N, doubled quotes, empty fields, newlines in quotes), and hands a file
// it would read otherwise (CRLF lines) to the reader.
func TestLoadCSVRawMatchesRows(t *testing.T) {
	url := testDatabase(t)
	dir := t.TempDir()
	// LOAD DATA reads the unquoted word NULL as NULL: a file holding it
	// goes to the reader (DuckDB keeps it as text).
	withNull := enginetest.TrickyCSV
	body := strings.ReplaceAll(withNull, "9,NULL,", "9,Null,")
	for _, tc := range []struct {
		name, body string
		raw        int // 1: the raw path's load stands; 0: it falls back; -1: it is not tried
	}{
		{"lf", body, 1},
		{"crlf", strings.ReplaceAll(body, "\n", "\r\n"), 0},
		{"no_final_newline", strings.TrimSuffix(body, "\n"), 1},
		{"word_null", withNull, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".csv")
			require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o644))
			types := map[string]string{"amount": "DECIMAL(12,2)"}
			want, _, err := stageCSV(t, url, path, types, true)
			require.NoError(t, err)
			require.Len(t, want, 10)
			got, ran, err := stageCSV(t, url, path, types, false)
			require.NoError(t, err)
			require.Equal(t, want, got)
			all := strings.Join(ran, "\n")
			require.Equal(t, tc.raw >= 0, strings.Contains(all, "raw CSV"), all)
			require.Equal(t, tc.raw == 0, strings.Contains(all, "TRUNCATE"), all)
		})
	}
}

// A value the column cannot hold fails the load naming the file and the
// line, as the embedded reader names them: LOAD DATA LOCAL only warns.
func TestLoadCSVRawBadValueNamesLine(t *testing.T) {
	url := testDatabase(t)
	path := filepath.Join(t.TempDir(), "bad.csv")
	require.NoError(t, os.WriteFile(path, []byte("id,n\n1,10\n2,x7\n3,30\n"), 0o644))
	_, ran, err := stageCSV(t, url, path, map[string]string{"n": "BIGINT"}, false)
	require.Error(t, err)
	require.Contains(t, err.Error(), "bad.csv")
	require.Contains(t, err.Error(), "Line: 3")
	require.Contains(t, strings.Join(ran, "\n"), "raw CSV")
}
