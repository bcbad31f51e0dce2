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
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	dir := t.TempDir()
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
	for name, content := range files {
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
				require.Equal(t, duckdb.CSVSniff{DateFormat: dateFmt.String, TimestampFormat: tsFmt.String}, s, name)
			}
		}
	}
	// Several files are described, not sniffed.
	a := filepath.Join(dir, "one.csv")
	_, _, ok := duckdb.SniffColumns(ctx, db, engine.FileInput{Paths: []string{a, a}, Format: "csv", Delim: ","})
	require.False(t, ok)
}
