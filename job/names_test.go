package job

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A name one engine would cut short or fold into another is refused on
// every engine, with the path that gives it.
func TestNamesRefused(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 64)
	mergeJob := func(table, tail string) string {
		return "idem: 1\njob: m\ntarget:\n  table: " + table + "\nsource:\n  query: SELECT 1 AS id\nstrategy: merge\nkey: [id]\nlatest_by: v\n" + tail
	}
	tests := []struct {
		name, src string
		want      []string // path: start of the message
	}{
		{"table of 64 bytes", strings.Replace(header, "daily_orders", long, 1) + partitionTail,
			[]string{`target.table: table name "` + long + `" is 64 bytes, too long: a run may build it anew beside it in "` + long + `__idem_build", longer than 63 bytes (PostgreSQL's limit, kept on every engine); use a table name of at most 51 bytes`}},
		{"table of 52 bytes: its built table is 64", strings.Replace(header, "daily_orders", long[:52], 1) + partitionTail,
			[]string{`target.table: table name "` + long[:52] + `" is 52 bytes, too long: a run may build it anew beside it in`}},
		{"schema of 64 bytes", strings.Replace(header, "analytics", long, 1) + partitionTail,
			[]string{`target.table: schema name "` + long + `" is 64 bytes, longer than 63`}},
		{"delete_when: table of 50 bytes", mergeJob("s."+long[:50], "delete_when: gone\n"),
			[]string{`target.table: table name "` + long[:50] + `" is 50 bytes, too long: delete_when remembers deleted keys in "` + long[:50] + `__idem_deleted", longer than 63 bytes (PostgreSQL's limit, kept on every engine); use a table name of at most 49 bytes`}},
		{"a name idem gives its own tables", strings.Replace(header, "daily_orders", "orders__IDEM_deleted", 1) + partitionTail,
			[]string{`target.table: table name "orders__IDEM_deleted" holds "__idem_"`}},
		{"key column of 64 bytes", strings.Replace(mergeJob("s.t", ""), "[id]", "["+long+"]", 1),
			[]string{`key[0]: column name "` + long + `" is 64 bytes, longer than 63: PostgreSQL would cut it short (two such names would be one column), so no engine takes it`}},
		{"partition column of 64 bytes", header + strings.Replace(partitionTail, "column: d", "column: "+long, 1),
			[]string{`partition.column: column name "` + long + `" is 64 bytes, longer than 63`}},
		{"loaded_at of 64 bytes", header + partitionTail + "loaded_at: " + long + "\n",
			[]string{`loaded_at: column name "` + long + `" is 64 bytes`}},
		{"columns: entry of 64 bytes", header + partitionTail + "columns:\n  " + long + ": BIGINT\n",
			[]string{`columns.` + long + `: column name "` + long + `" is 64 bytes`}},
		{"key columns differing in case", strings.Replace(mergeJob("s.t", ""), "[id]", "[id, ID]", 1),
			[]string{`key[1]: column "ID" differs from "id" (key[0]) only in case`}},
		{"columns: entries differing in case", header + partitionTail + "columns:\n  Amount: BIGINT\n  amount: DECIMAL(12,2)\n",
			[]string{`columns.amount: column "amount" differs from "Amount" (columns.Amount) only in case`}},
		{"latest_by and columns: differing in case", mergeJob("s.t", "columns:\n  V: TIMESTAMP\n"),
			[]string{`columns.V: column "V" differs from "v" (latest_by) only in case`}},
		{"loaded_at and a key differing in case", mergeJob("s.t", "loaded_at: Id\n"),
			[]string{`loaded_at: column "Id" differs from "id" (key[0]) only in case`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := pathMsgs(problems(t, tc.src, noEnv))
			require.Len(t, got, len(tc.want), "%q", got)
			for i, w := range tc.want {
				require.True(t, strings.HasPrefix(got[i], w), "got %q\nwant %q…", got[i], w)
			}
		})
	}
}

// The longest names the limits leave are taken, and a name given twice
// alike (a key column also typed under columns:) is one column.
func TestNamesAtTheLimit(t *testing.T) {
	t.Parallel()
	n := func(k int) string { return strings.Repeat("n", k) }
	mustParse(t, strings.Replace(strings.Replace(header, "daily_orders", n(51), 1), "analytics", n(63), 1)+
		strings.Replace(partitionTail, "column: d", "column: "+n(63), 1)+"columns:\n  "+n(63)+": DATE\n", noEnv)
	mustParse(t, "idem: 1\njob: m\ntarget:\n  table: "+n(49)+"\nsource:\n  query: SELECT 1 AS id\nstrategy: merge\nkey: [id]\nlatest_by: v\ndelete_when: gone\ncolumns:\n  id: BIGINT\n", noEnv)
}
