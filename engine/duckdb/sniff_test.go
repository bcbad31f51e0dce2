package duckdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/engine/enginetest"
)

// SniffColumns stands in for DESCRIBE of the read (one sniff instead of
// two): for every file here, dirty ones and those whose types only rows
// past the sample show, it gives DESCRIBE's columns and the formats of a
// sniff_csv, or declines (and the read is described).
func TestSniffColumnsIsDescribe(t *testing.T) {
	db := memDB(t)
	ctx := context.Background()
	dir := t.TempDir()
	for name, content := range sniffFiles() {
		p := filepath.Join(dir, name+".csv")
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		for _, types := range []map[string]string{nil, {"v": "VARCHAR"}, {"id": "DECIMAL(12,2)"}} {
			in := engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ",", Types: types}
			sel, err := duckdb.Dialect{}.SelectFiles(in)
			require.NoError(t, err)
			want, describeErr := duckdb.Describe(ctx, db, sel)
			got, s, ok := duckdb.SniffColumns(ctx, db, in)
			if describeErr != nil {
				require.False(t, ok, "%s %v: DESCRIBE failed (%v), the sniff must decline", name, types, describeErr)
				continue
			}
			if !ok {
				continue // declined: described instead
			}
			require.Equal(t, want, got, "%s %v", name, types)
			var dateFmt, tsFmt sql.NullString
			require.NoError(t, db.QueryRowContext(ctx, "SELECT DateFormat, TimestampFormat FROM sniff_csv('"+p+"', header = true"+duckdb.CSVLineOptions+")").Scan(&dateFmt, &tsFmt))
			if types == nil {
				require.Equal(t, [2]string{dateFmt.String, tsFmt.String}, [2]string{s.DateFormat, s.TimestampFormat}, name)
			}
		}
	}
	// Several files are described, not sniffed.
	a := filepath.Join(dir, "one.csv")
	_, _, ok := duckdb.SniffColumns(ctx, db, engine.FileInput{Paths: []string{a, a}, Format: "csv", Delim: ","})
	require.False(t, ok)
}

// A CSV read with the resolver's sniff (FileInput.Sniffed: auto_detect
// off, the sniffed columns and formats) reads what DuckDB's own sniffing
// read would: the same columns, types and values, or an error where that
// read fails, for every file here and with declared or resolved types.
func TestSniffedReadIsAutoDetect(t *testing.T) {
	db := memDB(t)
	ctx := context.Background()
	dir := t.TempDir()
	read := func(in engine.FileInput) ([]engine.Column, []string, error) {
		sel, err := duckdb.Dialect{}.SelectFiles(in)
		require.NoError(t, err)
		cols, err := duckdb.Describe(ctx, db, sel)
		if err != nil {
			return nil, nil, err
		}
		rows, err := db.QueryContext(ctx, "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM ("+sel+") ORDER BY ALL")
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			got = append(got, fmt.Sprint(vals))
		}
		return cols, got, rows.Err()
	}
	sniffedReads := 0
	compared := map[string]bool{}
	for name, content := range sniffFiles() {
		p := filepath.Join(dir, name+".csv")
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		for _, types := range []map[string]string{nil, {"v": "VARCHAR"}, {"id": "DECIMAL(12,2)"}, {"v": "DOUBLE"}, {"t": "TIMESTAMPTZ"}, {"d": "VARCHAR"}} {
			in := engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ",", Types: types}
			resolved, resolveErr := duckdb.Resolve(ctx, db, in)
			if resolveErr != nil {
				continue // the input's error, before any read
			}
			if resolved.Sniffed == nil {
				continue // described: read as before
			}
			plain := resolved
			plain.Sniffed = nil
			wantCols, wantRows, wantErr := read(plain)
			gotCols, gotRows, gotErr := read(resolved)
			if wantErr != nil {
				require.Error(t, gotErr, "%s %v: the sniffing read failed (%v)", name, types, wantErr)
				continue
			}
			require.NoError(t, gotErr, "%s %v", name, types)
			require.Equal(t, wantCols, gotCols, "%s %v", name, types)
			require.Equal(t, wantRows, gotRows, "%s %v", name, types)
			sel, err := duckdb.Dialect{}.SelectFiles(resolved)
			require.NoError(t, err)
			if strings.Contains(sel, "auto_detect = false") {
				sniffedReads++
				compared[name] = compared[name] || types == nil
			}
		}
	}
	require.Greater(t, sniffedReads, 40, "the reads compared must use the sniff")
	for _, name := range []string{"usdates", "eudates", "comment", "hashval", "cr", "crlf", "bom", "quotedrow", "nulls", "zoned", "late0", "late5"} {
		require.True(t, compared[name], "%s: its read with the sniff and no declared type was not compared", name)
	}
}

// sniffFiles are CSV files by name: dirty ones, and those whose types
// only rows past the sample (20480) show.
func sniffFiles() map[string]string {
	files := map[string]string{
		"tricky":    enginetest.TrickyCSV,
		"dup":       "a,a,b\n1,2,3\n",
		"empty":     "a,,c\n1,2,3\n",
		"case":      "A,a\n1,2\n",
		"header":    "x,y\n",
		"one":       "id\n",
		"ragged":    "x,y\n1,2\n3\n4,5,6\n",
		"spaces":    "\" sp \",y\n1,2\n",
		"huge":      "id,v\n12345678901234567890,1.5\n",
		"dayfirst":  "d,t\n01/02/2026,2026-01-01T10:00:00+02:00\n13/02/2026,2026-01-01T10:00:00+02:00\n",
		"monthdate": "d\n02/13/2026\n",
		"bom":       "\xef\xbb\xbfid,v\n1,2\n",
		"crlf":      "id,v\r\n1,2\r\n",
		"quoted":    "\"id\",\"v\"\n\"1\",\"a,b\"\n",
		"allnull":   "id,v\n1,\n2,\n",
		"bools":     "id,ok\n1,true\n2,false\n",
		"times":     "id,t\n1,10:00:00\n2,23:59:59.5\n",
		"zoned":     "id,t\n1,2026-11-28 10:00:00+01\n",
		"mixed":     "id,v\r\n1,2\n3,4\r\n",
		"cr":        "id,v\r1,2\r3,4\r",
		"comment":   "id,v\n# a note\n1,2\n#2,3\n",
		"hashval":   "id,v\n1,#2\n2,#3\n",
		"usdates":   "id,d,t\n1,12/31/2026,12/31/2026 10:00:00\n2,01/02/2026,01/02/2026 23:00:00\n",
		"eudates":   "id,d,t\n1,31.12.2026,31.12.2026 10:00\n2,01.02.2026,01.02.2026 23:00\n",
		"nulls":     "id,v,d\n1,NULL,\n2,,2026-01-01\n",
		"quotedrow": "id,v\n1,\"line\nbreak\"\n2,\"a\"\"b\"\n",
		"semi":      "id;v\n1;2\n",
	}
	// Values the sample (20480 rows) does not reach.
	for i, late := range []string{"5.7", "x", "2026-11-28", "2026-11-28 10:00:00", "99999999999999999999", "02134", "+5", ""} {
		var b strings.Builder
		b.WriteString("id,v\n")
		for r := range 30000 {
			fmt.Fprintf(&b, "%d,%d\n", r, r)
		}
		b.WriteString("1," + late + "\n")
		files[fmt.Sprintf("late%d", i)] = b.String()
	}
	return files
}

// memDB is an in-memory DuckDB on one connection, closed with the test.
func memDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	return db
}
