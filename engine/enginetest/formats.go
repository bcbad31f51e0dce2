package enginetest

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/runner"
)

var formatCases = []testCase{
	{"FileFormatsAgree", testFileFormats},
	{"ColumnsOverrideInferredTypes", testColumnsOverride},
	{"TimezoneWindow", testTimezoneWindow},
	{"TimezoneWindowAcrossDaylightSaving", testTimezoneDST},
}

const formatJob = `job: formats
source:
  files: in/orders.%s
strategy: partition
partition:
  column: created_at
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  customer_id: BIGINT
  status: VARCHAR
  amount: DECIMAL(12,2)
  created_at: TIMESTAMP
  updated_at: TIMESTAMP
`

// convert writes the seed fixture as JSON Lines and Parquet with an
// embedded DuckDB, which every build links.
func convert(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	src := "read_csv('" + filepath.Join(dir, "in", "orders.csv") + "', header = true)"
	for _, q := range []string{
		fmt.Sprintf("COPY (SELECT * FROM %s) TO '%s' (FORMAT json)", src, filepath.Join(dir, "in", "orders.jsonl")),
		fmt.Sprintf("COPY (SELECT * FROM %s) TO '%s' (FORMAT parquet)", src, filepath.Join(dir, "in", "orders.parquet")),
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
}

// The same rows as CSV, JSON Lines or Parquet load to the same partition.
func testFileFormats(t *testing.T, h Harness) {
	var sums []string
	for _, format := range []string{"csv", "jsonl", "parquet"} {
		e := NewEnv(t, h)
		e.Write("in/orders.csv", orders)
		convert(t, e.Dir)
		r := e.MustRun(e.Job(fmt.Sprintf(formatJob, format)), "2026-11-28")
		require.Equal(t, runner.ActionLoaded, r.Action, format)
		require.Equal(t, int64(7), r.RowsIn, format)
		require.Equal(t, int64(1), r.RowsDeduped, format)
		require.Equal(t, int64(4), r.RowCount, format)
		require.Equal(t, []string{"2|placed|20.50", "3|shipped|5.25", "4|placed|7.00", "6|completed|1.00"},
			normalize(e.Rows("", "order_id", "status", "amount")), format)
		sums = append(sums, r.Checksum)
	}
	require.Equal(t, sums[0], sums[1], "jsonl")
	require.Equal(t, sums[0], sums[2], "parquet")
}

// normalize renders decimals the same way whatever the driver returns.
func normalize(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := strings.Split(r, "|")
		last := parts[len(parts)-1]
		var f float64
		if _, err := fmt.Sscanf(last, "%g", &f); err == nil {
			parts[len(parts)-1] = fmt.Sprintf("%.2f", f)
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

// columns: a zip code typed VARCHAR keeps its leading zero.
func testColumnsOverride(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/c.csv", "id,zip,day\n1,01234,2026-11-28\n2,98765,2026-11-28\n")
	j := e.Job(`job: zips
source:
  files: in/c.csv
strategy: partition
partition:
  column: day
columns:
  zip: VARCHAR
`)
	e.MustRun(j, "2026-11-28")
	require.Equal(t, []string{"1|01234", "2|98765"}, e.Rows("", "id", "zip"))
}

// ZonedJob is a partition job over in/e.csv (id, ts) whose days are the
// zone's days, ts an instant.
func ZonedJob(zone string) string {
	return `job: zoned
source:
  files: in/e.csv
strategy: partition
partition:
  column: ts
  timezone: ` + zone + `
columns:
  ts: TIMESTAMPTZ
`
}

// With partition.timezone, a day is the zone's day: an instant at 23:30Z
// on the 27th is 00:30 on the 28th in Berlin.
func testTimezoneWindow(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/e.csv", "id,ts\n1,2026-11-27T22:59:59Z\n2,2026-11-27T23:30:00Z\n3,2026-11-28T22:59:59Z\n4,2026-11-28T23:00:00Z\n")
	j := e.Job(ZonedJob("Europe/Berlin"))
	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(2), r.RowCount)
	require.Equal(t, int64(2), r.RowsOutOfWindow)
	require.Equal(t, []runner.PartitionRows{{Partition: "2026-11-27", Rows: 1}, {Partition: "2026-11-29", Rows: 1}}, r.OutOfWindow,
		"other rows are reported by their Berlin day")
	require.Equal(t, []string{"2", "3"}, e.Rows("", "id"))
}

// A zone's day is 23 or 25 hours long when its clocks change: Berlin's
// 2026-03-29 runs from 23:00Z on the 28th to 22:00Z on the 29th, its
// 2026-10-25 from 22:00Z on the 24th to 23:00Z on the 25th. Each row lands
// in its Berlin day, none is lost at either end of a short or long day,
// and the rows of the other days are reported by their Berlin day.
func testTimezoneDST(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.Write("in/e.csv", "id,ts\n"+
		"1,2026-03-28T22:59:59Z\n"+ // 23:59:59 CET on the 28th
		"2,2026-03-28T23:00:00Z\n"+ // 00:00 CET, the 29th starts
		"3,2026-03-29T00:59:59Z\n"+ // 01:59:59 CET, just before the change
		"4,2026-03-29T01:00:00Z\n"+ // 03:00 CEST, just after it
		"5,2026-03-29T21:59:59Z\n"+ // 23:59:59 CEST, the short day's last second
		"6,2026-03-29T22:00:00Z\n"+ // 00:00 CEST on the 30th
		"7,2026-10-24T21:59:59Z\n"+ // 23:59:59 CEST on the 24th
		"8,2026-10-24T22:00:00Z\n"+ // 00:00 CEST, the 25th starts
		"9,2026-10-25T00:30:00Z\n"+ // 02:30 CEST, the first 02:30
		"10,2026-10-25T01:30:00Z\n"+ // 02:30 CET, the second
		"11,2026-10-25T22:59:59Z\n"+ // 23:59:59 CET, the long day's last second
		"12,2026-10-25T23:00:00Z\n") // 00:00 CET on the 26th
	j := e.Job(ZonedJob("Europe/Berlin"))
	r := e.MustRun(j, "2026-03-29")
	require.Equal(t, int64(4), r.RowCount)
	require.Equal(t, []runner.PartitionRows{{Partition: "2026-03-28", Rows: 1}, {Partition: "2026-03-30", Rows: 1},
		{Partition: "2026-10-24", Rows: 1}, {Partition: "2026-10-25", Rows: 4}, {Partition: "2026-10-26", Rows: 1}}, r.OutOfWindow)
	r = e.MustRun(j, "2026-10-25")
	require.Equal(t, int64(4), r.RowCount)
	require.Equal(t, []string{"10", "11", "2", "3", "4", "5", "8", "9"}, e.Rows("", "id"))
}

// TrickyCSV is a CSV file whose text the engines' own CSV loaders read
// otherwise than DuckDB's reader unless told exactly how: quotes doubled
// and around commas, backslashes and \N, empty and quoted empty fields,
// a newline in quotes, blanks, NULL and single quotes as text. Load tests
// check that an engine's raw path stages it value for value as the
// reader does. 10 rows.
const TrickyCSV = "id,name,n,d,ts,amount\n" +
	"1,plain,10,2026-11-28,2026-11-28 10:00:00,1.50\n" +
	"2,\"quoted, with \"\"quotes\"\"\",,2026-11-29,2026-11-28T10:00:01,\n" +
	"3,back\\slash \\N and \\n,-3,,,-2.25\n" +
	"4,\"\",4,2026-11-30,2026-11-28 10:00:02.123456,0\n" +
	"5,\\N,5,2026-12-01,2026-11-28 23:59:59,3\n" +
	"6,\"two\nlines\",6,2026-12-02,2026-11-28 00:00:00,4.5\n" +
	"7,ünïcödé ✓,7,2026-12-03,2026-11-28 00:00:00,5\n" +
	"8, blanks ,8,2026-12-04,2026-11-28 00:00:00,6\n" +
	"9,NULL,9,2026-12-05,2026-11-28 00:00:00,7\n" +
	"10,'single',10,2026-12-06,2026-11-28 00:00:00,8\n"
