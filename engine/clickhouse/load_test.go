package clickhouse_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/enginetest"
)

// staged is what one LoadFiles staged: the columns and their types, the
// rows as text in order, or the error; and whether ClickHouse's reading of
// the raw files stood.
type staged struct {
	types []string
	rows  []string
	err   string
	raw   bool
}

// stageCSV loads files into the staging table, raw where the engine can
// (parquet false) or through the embedded reader and Parquet.
func stageCSV(t *testing.T, db *clickhouse.DB, paths []string, types map[string]string, parquet bool) staged {
	t.Helper()
	ctx := context.Background()
	db.SetCSVParquet(parquet)
	var ran []string
	err := db.LoadFiles(ctx, nil, engine.StageTable, engine.FileInput{
		Paths: paths, Format: "csv", Types: types,
		Record: func(s string) { ran = append(ran, s) },
	})
	all := strings.Join(ran, "\n")
	var out staged
	out.raw = err == nil && strings.Contains(all, "raw CSV") && !strings.Contains(all, "via Parquet")
	if err != nil {
		out.err = scratchRE.ReplaceAllString(strings.ReplaceAll(err.Error(), filepath.Dir(paths[0]), "$DIR"), "$$SCRATCH")
		return out
	}
	stage := clickhouse.Dialect{}.Ident(engine.StageTable)
	r, err := db.Conn().QueryContext(ctx, "SELECT * FROM "+stage)
	require.NoError(t, err)
	defer r.Close()
	cts, err := r.ColumnTypes()
	require.NoError(t, err)
	for _, c := range cts {
		out.types = append(out.types, c.Name()+" "+c.DatabaseTypeName())
	}
	for r.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, r.Scan(ptrs...))
		out.rows = append(out.rows, fmt.Sprintf("%#v", vals))
	}
	require.NoError(t, r.Err())
	// A staged table has no row order: ClickHouse may read two files on
	// two threads, in either order.
	sort.Strings(out.rows)
	_, err = db.Conn().ExecContext(ctx, "DROP TABLE IF EXISTS "+stage)
	require.NoError(t, err)
	return out
}

// scratchRE matches the Parquet file's folder in an error.
var scratchRE = regexp.MustCompile(`/[^ ]*/idem-load-[0-9]+`)

// plainRows are enough ordinary rows for DuckDB's sniffer to decide the
// types before a tricky value comes (its sample is 20480 rows).
func plainRows(header string, n int, row string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range n {
		fmt.Fprintf(&b, row+"\n", i+1000)
	}
	return b.String()
}

// ClickHouse's reading of the raw bytes and the embedded reader's stage
// the same rows with the same types, or fail alike (the raw path then
// falls back, and the reader names the file and line): text ClickHouse's
// CSV defaults would read otherwise (blanks, \N, quotes, empty fields),
// dialects, and values of every raw type that DuckDB reads its own way or
// refuses, both in the sniffer's sample and after it.
func TestLoadPathsAgree(t *testing.T) {
	needChDB(t)
	ctx := context.Background()
	db, err := clickhouse.Open(ctx, filepath.Join(t.TempDir(), "t.chdb"), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	dir := t.TempDir()
	body := enginetest.TrickyCSV +
		"11,\"a\r\nb\",11,2026-12-07,2026-11-28 00:00:00,9\n"
	amount := map[string]string{"amount": "DECIMAL(12,2)"}
	type tc struct {
		name  string
		files []string // contents; more than one: several files
		types map[string]string
		raw   int // 1: the raw load must stand; -1: it must not; 0: either
	}
	cases := []tc{
		{"lf", []string{body}, amount, 1},
		{"no_final_newline", []string{strings.TrimSuffix(body, "\n")}, amount, 1},
		{"crlf", []string{strings.ReplaceAll(body, "\n", "\r\n")}, amount, 0},
		{"two_files", []string{body, "id,name,n,d,ts,amount\n12,last,12,2026-12-08,2026-11-29 10:00:00,9.75\n"}, amount, 1},
		{"semicolons", []string{"id;name\n1;a,b\n2;\"c;d\"\n"}, nil, 0},
		{"tabs", []string{"id\tname\n1\ta b\n2\t\n"}, nil, 0},
		{"bom", []string{"\ufeffid,name\n1,a\n2,b\n"}, nil, 0},
		{"unquoted_quote", []string{"id,name\n1,5\" screen\n2,a \"b\" c\n3,\n"}, nil, 0},
		{"blank_line", []string{"id,name\n1,a\n\n2,b\n"}, nil, 0},
		{"trailing_blank_lines", []string{"id,name\n1,a\n2,b\n\n\n"}, nil, 0},
		{"ragged_short", []string{"id,name,x\n1,a,1\n2,b\n"}, nil, 0},
		{"ragged_long", []string{"id,name\n1,a\n2,b,c\n"}, nil, -1},
		{"header_order", []string{"id,name\n1,a\n", "name,id\nb,2\n"}, nil, 0},
		{"backslash_escape", []string{"id,name\n1,\"a\\\"b\"\n2,c\n"}, nil, 0},
		{"declared_text", []string{"id,zip\n1,00123\n2,\n3,\"\"\n"}, map[string]string{"zip": "VARCHAR"}, 1},
		{"declared_bigint", []string{"id,n\n1,5\n2,\n"}, map[string]string{"n": "BIGINT"}, 1},
	}
	named := len(cases)
	// Values in the sample: DuckDB types the column from them.
	for i, v := range []string{
		"+5", "05", "-0", " 5", "5 ", "5.0", "1e3", "0x1F", "9223372036854775807", "9223372036854775808",
		"-9223372036854775809", "1_000", "\"7\"", "nan", "inf", "\"1,5\"", "true", "2026-1-5", "2026-01-05 ",
		"20260105", "2026-02-30", "1899-12-31", "2300-01-01", "0001-01-01", "2026/01/05", "2026-11-28 10:00:00.1234567",
		"2026-11-28T10:00:00Z", "2026-11-28 10:00:00+01:00", "2026-11-28 24:00:00", "2026-11-28 10:00:60",
		"1899-12-31 23:59:59", "2026-11-28 10:00:00 UTC", "\"2026-11-28\"", "1.505", ".5", "5.", "1.5e2",
	} {
		cases = append(cases, tc{fmt.Sprintf("sample_%d", i), []string{"id,v\n1," + v + "\n2,\n"}, nil, 0})
	}
	// Values after the sample, in a column typed by the rows before them.
	late := []struct {
		typ, plain string
		values     []string
		declared   string
	}{
		{"int", "%[1]d", []string{"+5", "05", "-0", " 5", "5 ", "5.0", "5.5", "1e3", "0x1F", "9223372036854775807",
			"9223372036854775808", "-9223372036854775809", "1_000", "\"7\"", "\"\"", "\\N", "NULL", "nan", "٣", "\"1,5\""}, ""},
		{"decimal", "%[1]d.25", []string{"1.505", "1.999", "1.5e2", "+1.5", ".5", "5.", "-0.00", "1234567890.12",
			"12345678901.12", " 1.5", "1.5 ", "\"1,5\"", "\"\"", "1,5", "0x10", "nan", "-", "."}, "DECIMAL(12,2)"},
		{"date", "2026-01-01", []string{"2026-1-5", "2026-01-05 ", " 2026-01-05", "20260105", "2026-02-30",
			"1899-12-31", "1900-01-01", "2299-12-31", "2300-01-01", "0001-01-01", "2026/01/05", "2026-01-05T00:00:00",
			"2026-01-05 00:00:00", "\"2026-01-05\"", "\"\"", "infinity", "-2026-01-05", "12026-01-05"}, ""},
		{"timestamp", "2026-11-28 10:00:00", []string{"2026-11-28 10:00:00.1234567", "2026-11-28 10:00:00.9999995",
			"2026-11-28T10:00:00Z", "2026-11-28 10:00:00+01:00", "2026-11-28", "2026-11-28 24:00:00", "2026-11-28 10:00",
			"2026-11-28 10:00:00.", "2026-11-28 10:00:60", "1899-12-31 23:59:59", "2300-01-01 00:00:00", "2026-11-28  10:00:00",
			"2026-11-28 10:00:00 UTC", "2026-11-28T10:00:00.5", "2026-11-28 1:2:3", "\"\"", "infinity", "1764324000"}, ""},
		{"timestamptz", "2026-11-28 10:00:00+00", []string{"2026-11-28 23:30:00 EST", "2026-11-28 10:00:00 CET",
			"2026-11-28 10:00:00+05:30", "2026-11-28 10:00:00+0530", "2026-11-28 10:00:00+05", "2026-11-28T10:00:00Z",
			"2026-11-28 10:00:00", "2026-11-28 10:00:00 Europe/Berlin", "2026-03-29 02:30:00 Europe/Berlin",
			"2026-11-28 10:00:00.1234567+01", "2026-11-28 10:00:00 UTC", "2026-11-28 10:00:00 -00:30"}, "TIMESTAMPTZ"},
		{"text", "t%[1]d", []string{" sp ", "\\N", "NULL", "\"\"", "\"a\"\"b\"", "a\"b", "\"two\nlines\"", "'q'", "\t tab", ""}, ""},
	}
	for _, l := range late {
		for i, v := range l.values {
			var types map[string]string
			if l.declared != "" {
				types = map[string]string{"v": l.declared}
			}
			plain := l.plain
			if !strings.Contains(plain, "%[1]d") {
				plain += "%.0[1]d"
			}
			cases = append(cases, tc{fmt.Sprintf("late_%s_%d", l.typ, i),
				[]string{plainRows("id,v", 30000, "%[1]d,"+plain) + "1," + v + "\n"}, types, 0})
		}
	}
	stood, ran := 0, 0
	for i, c := range cases {
		if testing.Short() && i >= named && i%4 != 0 { // -short: the named cases and a quarter of the values
			continue
		}
		ran++
		t.Run(c.name, func(t *testing.T) {
			var paths []string
			for i, content := range c.files {
				p := filepath.Join(dir, fmt.Sprintf("%s_%d.csv", c.name, i))
				require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
				paths = append(paths, p)
			}
			want := stageCSV(t, db, paths, c.types, true)
			got := stageCSV(t, db, paths, c.types, false)
			require.False(t, want.raw)
			switch c.raw {
			case 1:
				require.True(t, got.raw, "the raw load stands")
			case -1:
				require.False(t, got.raw, "the raw load is refused")
			}
			if got.raw {
				stood++
			}
			require.Equal(t, want.err, got.err)
			require.Equal(t, want.types, got.types)
			require.Equal(t, want.rows, got.rows)
		})
	}
	t.Logf("the raw load stood in %d of %d cases", stood, ran)
}
