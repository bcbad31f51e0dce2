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
	noEmpty := "id,name,n,d,ts,amount\n" +
		"1,plain,10,2026-11-28,2026-11-28 10:00:00,1.50\n" +
		"2,\"quoted, with a comma\",+2,2026-11-29,2026-11-28T10:00:01,-0.5\n" +
		"3,back\\slash \\N and \\n,-3,2026-11-30,2026-11-28 10:00:02.123456,0\n" +
		"4, blanks ,  4,2026-12-01,2026-11-28 23:59:59.5,100\n" +
		"5,\"two\nlines\",5,2026-12-02,2026-11-28 00:00:00,007\n" +
		"6,ünïcödé ✓,6,2026-12-03,2026-11-28 00:00:00,3.25\n"
	for _, tc := range []struct {
		name, body string
		raw        int // 1: the raw path's load stands; 0: it falls back; -1: it is not tried
	}{
		{"lf", body, 1},
		{"crlf", strings.ReplaceAll(body, "\n", "\r\n"), 0},
		{"no_final_newline", strings.TrimSuffix(body, "\n"), 1},
		{"word_null", withNull, -1},
		// No empty field: LOAD DATA reads the fields straight into the
		// columns, no NULLIF: the same values.
		{"no_empty_field", noEmpty, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".csv")
			require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o644))
			types := map[string]string{"amount": "DECIMAL(12,2)"}
			want, _, err := stageCSV(t, url, path, types, true)
			require.NoError(t, err)
			require.NotEmpty(t, want)
			if tc.name == "no_empty_field" {
				require.Len(t, want, 6)
			} else {
				require.Len(t, want, 10)
			}
			got, ran, err := stageCSV(t, url, path, types, false)
			require.NoError(t, err)
			require.Equal(t, want, got)
			all := strings.Join(ran, "\n")
			require.Equal(t, tc.raw >= 0, strings.Contains(all, "raw CSV"), all)
			require.Equal(t, tc.raw == 0, strings.Contains(all, "TRUNCATE"), all)
			require.Equal(t, tc.name != "no_empty_field" && tc.raw >= 0, strings.Contains(all, "NULLIF"), all)
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
