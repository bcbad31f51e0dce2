package job

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeEnv is a lookup func over a fixed map: tests never read the real
// environment.
func fakeEnv(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// noEnv is a lookup func with nothing set.
var noEnv = fakeEnv(nil)

const validPartitionJob = `idem: 1
job: orders_daily
target:
  url: ${IDEM_TARGET:-duckdb:warehouse.duckdb}
  table: analytics.daily_orders
source:
  query: |
    SELECT CAST(created_at AS DATE) AS order_date, order_id, status, amount, updated_at
    FROM raw_orders
    WHERE created_at >= {{ start }} AND created_at < {{ end }}
strategy: partition
partition:
  column: order_date
  grain: day
  lookback: 0
  closed_after: 0s
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
loaded_at: _loaded_at
allow_empty: false
`

const validMergeJob = `idem: 1
job: customers
target:
  url: postgres://idem:secret@db.example.com:5432/warehouse
  table: customers
source:
  files: data/customers/{{ date }}/*.jsonl
strategy: merge
key: [customer_id, region]
latest_by: updated_at
delete_when: is_deleted
`

// header is the start of a job file that is valid up to source and strategy.
const header = `idem: 1
job: orders_daily
target:
  table: analytics.daily_orders
`

// partitionTail completes header into a valid partition job.
const partitionTail = `source:
  query: SELECT 1 AS d
strategy: partition
partition:
  column: d
`

func mustParse(t *testing.T, src string, lookup func(string) (string, bool)) *Job {
	t.Helper()
	j, err := Parse([]byte(src), "/jobs", lookup)
	require.NoError(t, err)
	require.NotNil(t, j)
	return j
}

// problems parses src, requires it to fail with an *Error, and returns its
// problems.
func problems(t *testing.T, src string, lookup func(string) (string, bool)) []Problem {
	t.Helper()
	j, err := Parse([]byte(src), "/jobs", lookup)
	require.Error(t, err)
	require.Nil(t, j)
	var je *Error
	require.True(t, errors.As(err, &je), "error %T is not a *job.Error: %v", err, err)
	require.NotEmpty(t, je.Problems)
	return je.Problems
}

// pathMsg renders a problem as "path: msg", without its line number.
func pathMsg(p Problem) string {
	if p.Path == "" {
		return p.Msg
	}
	return p.Path + ": " + p.Msg
}

func pathMsgs(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = pathMsg(p)
	}
	return out
}

// findProblem returns the first problem at path.
func findProblem(t *testing.T, ps []Problem, path string) Problem {
	t.Helper()
	for _, p := range ps {
		if p.Path == path {
			return p
		}
	}
	require.Failf(t, "no problem at path", "path %q not among %q", path, pathMsgs(ps))
	return Problem{}
}

func TestParseValidPartitionJob(t *testing.T) {
	t.Parallel()
	j := mustParse(t, validPartitionJob, noEnv)

	require.Equal(t, 1, j.Idem)
	require.Equal(t, "orders_daily", j.Name)
	require.Equal(t, "duckdb:warehouse.duckdb", j.Target.URL)
	require.Equal(t, "analytics.daily_orders", j.Target.Table)
	require.Equal(t, TableName{Schema: "analytics", Name: "daily_orders"}, j.Table())
	require.Contains(t, j.Source.Query, "WHERE created_at >= {{ start }} AND created_at < {{ end }}")
	require.Empty(t, j.Source.Files)
	require.Empty(t, j.Source.Format, "format applies to files only")
	require.Equal(t, StrategyPartition, j.Strategy)
	zero := Duration(0)
	require.Equal(t, Partition{Column: "order_date", Grain: GrainDay, ClosedAfter: &zero, OutOfWindow: OutOfWindowReport, OnNull: OnNullFail}, j.Partition)
	require.Equal(t, StringList{"order_id"}, j.Key)
	require.Equal(t, "updated_at", j.LatestBy)
	require.Empty(t, j.DeleteWhen)
	require.Equal(t, map[string]string{"order_id": "BIGINT", "amount": "DECIMAL(12,2)"}, j.Columns)
	require.Equal(t, "_loaded_at", j.LoadedAt)
	require.False(t, j.AllowEmpty)
	require.Equal(t, "/jobs", j.Dir)
	require.Empty(t, j.Path, "Path is set by Load only")
	require.Empty(t, j.Validate())
}

func TestParseValidMergeJob(t *testing.T) {
	t.Parallel()
	j := mustParse(t, validMergeJob, noEnv)

	require.Equal(t, StrategyMerge, j.Strategy)
	require.Equal(t, "postgres://idem:secret@db.example.com:5432/warehouse", j.Target.URL)
	require.Equal(t, TableName{Name: "customers"}, j.Table())
	require.Equal(t, StringList{"data/customers/{{ date }}/*.jsonl"}, j.Source.Files)
	require.Equal(t, "jsonl", j.Source.Format, "format from the file extension")
	require.Equal(t, GrainDay, j.Partition.Grain, "grain defaults to day")
	require.Equal(t, StringList{"customer_id", "region"}, j.Key)
	require.Equal(t, "is_deleted", j.DeleteWhen)
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	j := mustParse(t, header+"source:\n  files: in/*.csv\nstrategy: partition\npartition:\n  column: d\n", noEnv)
	require.Equal(t, GrainDay, j.Partition.Grain)
	require.Equal(t, "duckdb:warehouse.duckdb", j.Target.URL, "target.url defaults to the embedded DuckDB")
	require.Equal(t, "csv", j.Source.Format)
	require.Zero(t, j.Partition.Lookback)
	require.Nil(t, j.Partition.ClosedAfter)
	require.Empty(t, j.Partition.Timezone)
	require.Empty(t, j.Key)
}

func TestParseFormatFromExtension(t *testing.T) {
	t.Parallel()
	tests := []struct {
		files, format, want string
	}{
		{files: "data/{{ date }}/*.csv", want: "csv"},
		{files: "data/*.CSV", want: "csv"},
		{files: "data/*.tsv", want: "csv"},
		{files: "data/*.jsonl", want: "jsonl"},
		{files: "data/*.ndjson", want: "jsonl"},
		{files: "data/*.json", want: "jsonl"},
		{files: "data/*.parquet", want: "parquet"},
		{files: "data/{{ yyyy }}/{{ mm }}/part-*.Parquet", want: "parquet"},
		{files: "data/*.txt", format: "csv", want: "csv"},
		{files: "data/*.csv", format: "parquet", want: "parquet"},
	}
	for _, tc := range tests {
		t.Run(tc.files+"/"+tc.format, func(t *testing.T) {
			t.Parallel()
			src := header + "source:\n  files: " + tc.files + "\n"
			if tc.format != "" {
				src += "  format: " + tc.format + "\n"
			}
			src += "strategy: partition\npartition:\n  column: d\n"
			j := mustParse(t, src, noEnv)
			require.Equal(t, tc.want, j.Source.Format)
		})
	}
}

func TestParseFormatUnknownExtension(t *testing.T) {
	t.Parallel()
	ps := problems(t, header+"source:\n  files: data/*.txt\nstrategy: partition\npartition:\n  column: d\n", noEnv)
	require.Equal(t, []string{`source.format: required: cannot tell the format from "data/*.txt" (csv, jsonl or parquet)`}, pathMsgs(ps))
}

func TestParseUnknownKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "nested typo with suggestion",
			src:  "idem: 1\njob: j\ntarget:\n  table: t\n  tabel: t\n" + partitionTail,
			want: `target.tabel: unknown key (did you mean "table"?)`,
		},
		{
			name: "top-level typo",
			src:  header + partitionTail + "latestby: updated_at\n",
			want: `latestby: unknown key (did you mean "latest_by"?)`,
		},
		{
			name: "partition typo",
			src:  header + partitionTail + "  grian: day\n",
			want: `partition.grian: unknown key (did you mean "grain"?)`,
		},
		{
			name: "source typo",
			src:  header + "source:\n  query: SELECT 1\n  fromat: csv\nstrategy: partition\npartition:\n  column: d\n",
			want: `source.fromat: unknown key (did you mean "format"?)`,
		},
		{
			name: "no near key",
			src:  header + partitionTail + "schedule: daily\n",
			want: `schedule: unknown key`,
		},
		{
			name: "internal fields are not keys",
			src:  header + partitionTail + "Dir: /tmp\n",
			want: `Dir: unknown key`,
		},
		{
			name: "key given twice",
			src:  header + partitionTail + "job: again\n",
			want: `job: given twice`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := problems(t, tc.src, noEnv)
			require.Equal(t, []string{tc.want}, pathMsgs(ps))
			require.Positive(t, ps[0].Line, "unknown keys carry their line")
		})
	}
}

func TestParseUnknownKeyLine(t *testing.T) {
	t.Parallel()
	ps := problems(t, "idem: 1\njob: j\ntarget:\n  tabel: t\n"+partitionTail, noEnv)
	require.Len(t, ps, 2)
	require.Equal(t, `target.tabel: unknown key (did you mean "table"?) (line 4)`, ps[0].String())
}

// A typo usually leaves a required key missing: both are reported at once.
func TestParseUnknownKeyAndMissingKey(t *testing.T) {
	t.Parallel()
	ps := problems(t, "idem: 1\njob: j\ntarget:\n  tabel: t\n"+partitionTail+"stratgy: merge\n", noEnv)
	require.Equal(t, []string{
		`target.tabel: unknown key (did you mean "table"?)`,
		`stratgy: unknown key (did you mean "strategy"?)`,
		"target.table: required: the table to load (schema.table or table)",
	}, pathMsgs(ps))
}

func TestParseReportsAllProblemsAtOnce(t *testing.T) {
	t.Parallel()
	src := `idem: 1
job: orders_daily
target:
  tabel: analytics.daily_orders
source:
  query: SELECT 1
strategy: partition
partition:
  column: d
  grian: day
  lookback: abc
keys: [id]
`
	j, err := Parse([]byte(src), "/jobs", noEnv)
	require.Nil(t, j)
	var je *Error
	require.ErrorAs(t, err, &je)
	require.ElementsMatch(t, []string{
		`target.tabel: unknown key (did you mean "table"?)`,
		`partition.grian: unknown key (did you mean "grain"?)`,
		"partition.lookback: cannot unmarshal !!str `abc` into int",
		`keys: unknown key (did you mean "key"?)`,
	}, pathMsgs(je.Problems))
	require.True(t, strings.HasPrefix(err.Error(), "job file: 4 problems:\n  "), err.Error())
	for _, p := range je.Problems {
		require.Contains(t, err.Error(), "\n  "+p.String())
	}
}

func TestParseReportsAllValidationProblemsAtOnce(t *testing.T) {
	t.Parallel()
	src := `idem: 2
job: "orders daily"
target:
  url: sqlite:x.db
  table: a.b.c
source:
  query: SELECT {{ foo }}
  files: x.csv
strategy: partition
partition:
  grain: week
  lookback: -1
  closed_after: -1h
  timezone: Mars/Olympus
key: [id, id, ""]
delete_when: gone
columns:
  id: "BIGINT; DROP TABLE x"
`
	ps := problems(t, src, noEnv)
	require.ElementsMatch(t, []string{
		"idem: format version 2 is not supported by this idem (it reads version 1)",
		`job: "orders daily" may hold only letters, digits, _ . and -`,
		`target.table: "a.b.c" has too many dots (schema.table or table)`,
		`target.url: "sqlite:x.db" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`,
		"source: give one of query, table or files, not more",
		"partition.column: required for strategy partition",
		"delete_when: applies to strategy merge only",
		`partition.grain: "week" is not one of hour, day, month`,
		"partition.lookback: must not be negative",
		"partition.closed_after: must not be negative",
		`partition.timezone: "Mars/Olympus" is not an IANA time zone (like Europe/Berlin)`,
		`key[1]: column "id" is listed twice`,
		"key[2]: empty column name",
		`columns.id: "BIGINT; DROP TABLE x" is not a SQL type name (like BIGINT or DECIMAL(12,2))`,
	}, pathMsgs(ps))
}

func TestParsePartitionColumnRequired(t *testing.T) {
	t.Parallel()
	ps := problems(t, header+"source:\n  query: SELECT 1\nstrategy: partition\n", noEnv)
	require.Len(t, ps, 1)
	require.True(t, strings.HasPrefix(ps[0].String(), "partition.column: required for strategy partition"), ps[0].String())

	// Also with an explicit partition block that names no column.
	ps = problems(t, header+"source:\n  query: SELECT 1\nstrategy: partition\npartition:\n  grain: hour\n", noEnv)
	require.Len(t, ps, 1)
	require.True(t, strings.HasPrefix(ps[0].String(), "partition.column: required for strategy partition"), ps[0].String())
}

func TestParseValidationProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "idem missing",
			src:  "job: j\ntarget:\n  table: t\n" + partitionTail,
			want: []string{"idem: required: the job file format version (idem: 1)"},
		},
		{
			name: "job missing",
			src:  "idem: 1\ntarget:\n  table: t\n" + partitionTail,
			want: []string{"job: required: a stable name for the job; it is part of every run id"},
		},
		{
			name: "table missing",
			src:  "idem: 1\njob: j\n" + partitionTail,
			want: []string{"target.table: required: the table to load (schema.table or table)"},
		},
		{
			name: "source missing",
			src:  header + "strategy: partition\npartition:\n  column: d\n",
			want: []string{"source: required: one of query, table or files"},
		},
		{
			name: "format with query",
			src:  header + "source:\n  query: SELECT 1\n  format: csv\nstrategy: partition\npartition:\n  column: d\n",
			want: []string{"source.format: applies to files only"},
		},
		{
			name: "unknown format",
			src:  header + "source:\n  files: a.csv\n  format: xlsx\nstrategy: partition\npartition:\n  column: d\n",
			want: []string{`source.format: "xlsx" is not one of csv, jsonl, parquet`},
		},
		{
			name: "strategy missing",
			src:  header + "source:\n  query: SELECT 1\n",
			want: []string{"strategy: required: partition or merge"},
		},
		{
			name: "strategy unknown",
			src:  header + "source:\n  query: SELECT 1\nstrategy: upsert\n",
			want: []string{`strategy: "upsert" is not one of partition, merge`},
		},
		{
			name: "merge without key and latest_by",
			src:  header + "source:\n  query: SELECT 1\nstrategy: merge\n",
			want: []string{
				"key: required for strategy merge: the natural key rows are matched on",
				"latest_by: required for strategy merge: the version column (the newest wins)",
			},
		},
		{
			name: "latest_by in the key",
			src:  header + "source:\n  query: SELECT 1\nstrategy: merge\nkey: [symbol, date]\nlatest_by: date\n",
			want: []string{`latest_by: "date" is a column of the key: every copy of a key has the same value there, so the newest copy cannot be told (an older file loaded later would win or lose by its content alone). ` +
				"Name a column that grows when a row changes (updated_at, a version number), or set latest_by: run to let a later partition's rows (--date) replace an earlier one's"},
		},
		{
			name: "latest_by in the key of a partition job",
			src:  header + partitionTail + "key: [id]\nlatest_by: id\n",
			want: []string{`latest_by: "id" is a column of the key: every copy of a key has the same value there, so the newest copy cannot be told (an older file loaded later would win or lose by its content alone). ` +
				"Name a column that grows when a row changes (updated_at, a version number), or set latest_by: run to let a later partition's rows (--date) replace an earlier one's"},
		},
		{
			name: "latest_by run on a partition job",
			src:  header + partitionTail + "key: [id]\nlatest_by: run\n",
			want: []string{"latest_by: run applies to strategy merge only: a partition run replaces its whole partition, so its rows need no version from the run"},
		},
		{
			name: "duckdb url without path",
			src:  "idem: 1\njob: j\ntarget:\n  url: 'duckdb:'\n  table: t\n" + partitionTail,
			want: []string{"target.url: duckdb: needs a file path (duckdb:warehouse.duckdb or duckdb::memory:)"},
		},
		{
			name: "bad url is redacted",
			src:  "idem: 1\njob: j\ntarget:\n  url: postgress://u:hunter2@h/db\n  table: t\n" + partitionTail,
			want: []string{`target.url: "postgress://u:xxxxx@h/db" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
		},
		{
			name: "loaded_at names a key column",
			src:  header + partitionTail + "key: [id]\nloaded_at: id\n",
			want: []string{`loaded_at: "id" is also key[0]: loaded_at is metadata filled by idem and is never used in logic`},
		},
		{
			name: "loaded_at names the partition column",
			src:  header + partitionTail + "loaded_at: d\n",
			want: []string{`loaded_at: "d" is also partition.column: loaded_at is metadata filled by idem and is never used in logic`},
		},
		{
			name: "columns sorted by name",
			src:  header + partitionTail + "columns:\n  zeta: 'x;'\n  alpha: INT)\n  ok: TIMESTAMP WITH TIME ZONE\n  arr: VARCHAR[]\n",
			want: []string{
				`columns.alpha: "INT)" is not a SQL type name (like BIGINT or DECIMAL(12,2))`,
				`columns.zeta: "x;" is not a SQL type name (like BIGINT or DECIMAL(12,2))`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, pathMsgs(problems(t, tc.src, noEnv)))
		})
	}
}

func TestParseWrongTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		path    string
		contain string
	}{
		{"lookback not a number", header + partitionTail + "  lookback: abc\n", "partition.lookback", "abc"},
		{"lookback a list", header + partitionTail + "  lookback: [1]\n", "partition.lookback", "int"},
		{"idem not a number", "idem: one\njob: j\ntarget:\n  table: t\n" + partitionTail, "idem", "one"},
		{"allow_empty not a bool", header + partitionTail + "allow_empty: maybe\n", "allow_empty", "maybe"},
		{"closed_after not a duration", header + partitionTail + "  closed_after: soon\n", "partition.closed_after", `"soon" is not a duration (like 90m, 6h or 2d)`},
		{"target a string", "idem: 1\njob: j\ntarget: analytics.t\n" + partitionTail, "target", "must be a mapping"},
		{"partition a list", header + "source:\n  query: SELECT 1\nstrategy: partition\npartition: [d]\n", "partition", "must be a mapping"},
		{"columns a list", header + partitionTail + "columns: [a, b]\n", "columns", "map"},
		{"job a mapping", "idem: 1\njob: {a: 1}\ntarget:\n  table: t\n" + partitionTail, "job", "string"},
		{"key a mapping", header + partitionTail + "key: {a: 1}\n", "key", "must be a column name or a list of column names"},
		{"key a nested list", header + partitionTail + "key: [[a]]\n", "key", "string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := problems(t, tc.src, noEnv)
			p := findProblem(t, ps, tc.path)
			require.Contains(t, p.Msg, tc.contain)
			require.NotRegexp(t, `^line \d+`, p.Msg, "the line is kept in Problem.Line, not in the message")
			require.Positive(t, p.Line)
			require.True(t, strings.HasPrefix(p.String(), tc.path+": "), p.String())
		})
	}
}

func TestParseLookbackWrongTypeMessage(t *testing.T) {
	t.Parallel()
	ps := problems(t, header+partitionTail+"  lookback: abc\n", noEnv)
	require.Len(t, ps, 1)
	require.Equal(t, "partition.lookback: cannot unmarshal !!str `abc` into int (line 10)", ps[0].String())
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		key  string
		want StringList
	}{
		{"string", "key: order_id\n", StringList{"order_id"}},
		{"quoted string", "key: \"order id\"\n", StringList{"order id"}},
		{"flow list", "key: [order_id, line_no]\n", StringList{"order_id", "line_no"}},
		{"block list", "key:\n  - order_id\n  - line_no\n", StringList{"order_id", "line_no"}},
		{"one-element list", "key: [order_id]\n", StringList{"order_id"}},
		{"empty list", "key: []\n", StringList{}},
		{"null", "key:\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := mustParse(t, header+partitionTail+tc.key, noEnv)
			require.Equal(t, tc.want, j.Key)
		})
	}
}

func TestParseKeyProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		key  string
		want []string
	}{
		{"empty string", "key: ''\n", []string{"key[0]: empty column name"}},
		{"blank element", "key: [a, ' ']\n", []string{"key[1]: empty column name"}},
		{"duplicate", "key: [a, b, a]\n", []string{`key[2]: column "a" is listed twice`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, pathMsgs(problems(t, header+partitionTail+tc.key, noEnv)))
		})
	}
}

func TestParseClosedAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"0", 0},
		{"0s", 0},
		{"''", 0},
		{"90m", 90 * time.Minute},
		{"2h", 2 * time.Hour},
		{"1h30m", 90 * time.Minute},
		{"1d", 24 * time.Hour},
		{"2d", 48 * time.Hour},
		{"' 2d '", 48 * time.Hour},
		{"~", -1}, // null: not given
		{"${CLOSE:-3h}", 3 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			j := mustParse(t, header+partitionTail+"  closed_after: "+tc.value+"\n", noEnv)
			require.Equal(t, tc.want, j.Partition.ClosedAfterOr(-1))
		})
	}
}

func TestParseClosedAfterProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		want  string
	}{
		{"1.5d", `partition.closed_after: "1.5d" is not a duration (like 90m, 6h or 2d)`},
		{"d", `partition.closed_after: "d" is not a duration (like 90m, 6h or 2d)`},
		{"1dd", `partition.closed_after: "1dd" is not a duration (like 90m, 6h or 2d)`},
		{"5", `partition.closed_after: "5" is not a duration (like 90m, 6h or 2d)`},
		{"-1d", "partition.closed_after: must not be negative"},
		{"-30m", "partition.closed_after: must not be negative"},
		// A mapping or a list is not a duration either: it must not be
		// silently read as 0.
		{"{h: 1}", "partition.closed_after: must be a duration (like 90m, 6h or 2d)"},
		{"[1h]", "partition.closed_after: must be a duration (like 90m, 6h or 2d)"},
		{"\"${CLOSE:-[1h]}\"", `partition.closed_after: "[1h]" is not a duration (like 90m, 6h or 2d)`},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, []string{tc.want}, pathMsgs(problems(t, header+partitionTail+"  closed_after: "+tc.value+"\n", noEnv)))
		})
	}
}

func TestParseGrainAndTimezone(t *testing.T) {
	t.Parallel()
	for _, g := range []Grain{GrainDay, GrainMonth} {
		j := mustParse(t, header+partitionTail+"  grain: "+string(g)+"\n  timezone: Europe/Berlin\n", noEnv)
		require.Equal(t, g, j.Partition.Grain)
		require.Equal(t, "Europe/Berlin", j.Partition.Timezone)
		require.Equal(t, "Europe/Berlin", j.Location().String())
	}
}

func TestParseNotAJobFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"empty", "", "the job file is empty"},
		{"only a comment", "# nothing here\n", "the job file is empty"},
		{"invalid yaml", "idem: 1\n  job: [x\n", "not valid YAML: "},
		{"tab indentation", "idem: 1\ntarget:\n\ttable: t\n", "not valid YAML: "},
		{"a scalar", "hello\n", "must be a mapping"},
		{"a list", "- idem: 1\n", "must be a mapping"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := problems(t, tc.src, noEnv)
			require.Len(t, ps, 1)
			require.Empty(t, ps[0].Path)
			require.True(t, strings.HasPrefix(ps[0].Msg, tc.want), ps[0].Msg)
			require.NotContains(t, ps[0].Msg, "yaml: ")
		})
	}
}

func TestParseOnlyFirstDocument(t *testing.T) {
	t.Parallel()
	j := mustParse(t, validPartitionJob+"---\nthis: is ignored\n", noEnv)
	require.Equal(t, "orders_daily", j.Name)
}

func TestParseAliases(t *testing.T) {
	t.Parallel()
	src := header + `source:
  query: &q SELECT 1 AS d
strategy: partition
partition:
  column: d
key: &k [a, b]
latest_by: updated_at
`
	j := mustParse(t, src, noEnv)
	require.Equal(t, StringList{"a", "b"}, j.Key)
	require.Equal(t, "SELECT 1 AS d", j.Source.Query)

	// An alias into a struct is checked against that struct's keys.
	ps := problems(t, "idem: 1\njob: j\nx: &t {tabel: t}\ntarget: *t\n"+partitionTail, noEnv)
	require.Contains(t, pathMsgs(ps), `target.tabel: unknown key (did you mean "table"?)`)
}

func TestExpand(t *testing.T) {
	t.Parallel()
	lookup := fakeEnv(map[string]string{
		"HOST":  "db.example.com",
		"PORT":  "5432",
		"EMPTY": "",
		"WEIRD": "${NOT_EXPANDED_AGAIN}",
	})
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"no variables", "no variables"},
		{"$HOST", "$HOST"},
		{"$", "$"},
		{"${HOST}", "db.example.com"},
		{"postgres://${HOST}:${PORT}/w", "postgres://db.example.com:5432/w"},
		{"${HOST:-fallback}", "db.example.com"},
		{"${UNSET:-fallback}", "fallback"},
		{"${UNSET:-}", ""},
		{"${UNSET:-duckdb:warehouse.duckdb}", "duckdb:warehouse.duckdb"},
		{"${UNSET:-a b-c/d}", "a b-c/d"},
		{"${EMPTY}", ""},
		{"${EMPTY:-fallback}", "fallback"},
		{"$${HOST}", "${HOST}"},
		{"$${UNSET}", "${UNSET}"},
		{"a$${X}b${HOST}", "a${X}bdb.example.com"},
		{"${WEIRD}", "${NOT_EXPANDED_AGAIN}"},
		{"{{ date }}", "{{ date }}"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := Expand(tc.in, lookup)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestExpandErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{"${UNSET}", "environment variable UNSET is not set (give a default with ${UNSET:-value})"},
		{"x ${A_1} y", "environment variable A_1 is not set (give a default with ${A_1:-value})"},
		{"${FIRST} ${SECOND}", "environment variable FIRST is not set (give a default with ${FIRST:-value})"},
		{"${}", `"${}" is not a variable reference (use ${NAME} or ${NAME:-default})`},
		{"${1ABC}", `"${1ABC}" is not a variable reference (use ${NAME} or ${NAME:-default})`},
		{"${A-B}", `"${A-B}" is not a variable reference (use ${NAME} or ${NAME:-default})`},
		{"${A:default}", `"${A:default}" is not a variable reference (use ${NAME} or ${NAME:-default})`},
		{"${UNCLOSED", `"${UNCLOSED" is not a variable reference (use ${NAME} or ${NAME:-default})`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			_, err := Expand(tc.in, noEnv)
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestParseExpandsVariables(t *testing.T) {
	t.Parallel()
	src := `idem: 1
job: ${JOB_NAME}
target:
  url: ${IDEM_TARGET:-duckdb:warehouse.duckdb}
  table: ${SCHEMA:-analytics}.orders
source:
  query: SELECT * FROM ${RAW_SCHEMA}.orders WHERE d = {{ date }} AND note <> '$${literal}'
strategy: partition
partition:
  column: d
  timezone: ${TZ:-UTC}
key: ["${KEY_COL}"]
`
	j := mustParse(t, src, fakeEnv(map[string]string{
		"JOB_NAME":    "orders_daily",
		"IDEM_TARGET": "postgres://u:p@h/db",
		"RAW_SCHEMA":  "raw",
		"KEY_COL":     "order_id",
		"TZ":          "",
	}))
	require.Equal(t, "orders_daily", j.Name)
	require.Equal(t, "postgres://u:p@h/db", j.Target.URL)
	require.Equal(t, "analytics.orders", j.Target.Table)
	require.Equal(t, "SELECT * FROM raw.orders WHERE d = {{ date }} AND note <> '${literal}'", j.Source.Query)
	require.Equal(t, "UTC", j.Partition.Timezone)
	require.Equal(t, StringList{"order_id"}, j.Key)
}

func TestParseExpandedValuesAreData(t *testing.T) {
	t.Parallel()
	vars := fakeEnv(map[string]string{
		"NAME":     "123",
		"TABLE":    "yes",
		"LOOKBACK": "3",
		"EMPTY_OK": "true",
		"CLOSE":    "2h",
	})
	src := `idem: 1
job: ${NAME}
target:
  table: "${TABLE}"
source:
  query: SELECT 1
strategy: partition
partition:
  column: d
  lookback: ${LOOKBACK}
  closed_after: ${CLOSE}
allow_empty: ${EMPTY_OK}
`
	j := mustParse(t, src, vars)
	require.Equal(t, "123", j.Name, "an expanded number stays a string where a string is expected")
	require.Equal(t, "yes", j.Target.Table)
	require.Equal(t, 3, j.Partition.Lookback, "an expanded number is a number where a number is expected")
	require.Equal(t, 2*time.Hour, j.Partition.ClosedAfterOr(0))
	require.True(t, j.AllowEmpty)

	// The default form works in typed fields too.
	j = mustParse(t, header+partitionTail+"  lookback: ${LOOKBACK_UNSET:-2}\n", vars)
	require.Equal(t, 2, j.Partition.Lookback)

	// A wrongly typed expanded value is reported with its path.
	ps := problems(t, header+partitionTail+"  lookback: ${NAME_X:-abc}\n", vars)
	require.Equal(t, []string{"partition.lookback: cannot unmarshal !!str `abc` into int"}, pathMsgs(ps))
}

func TestParseUnsetVariable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "target.url",
			src:  "idem: 1\njob: j\ntarget:\n  url: ${IDEM_TARGET}\n  table: t\n" + partitionTail,
			want: "target.url: environment variable IDEM_TARGET is not set (give a default with ${IDEM_TARGET:-value})",
		},
		{
			name: "source.query",
			src:  header + "source:\n  query: SELECT * FROM ${RAW}.t\nstrategy: partition\npartition:\n  column: d\n",
			want: "source.query: environment variable RAW is not set (give a default with ${RAW:-value})",
		},
		{
			name: "list element",
			src:  header + partitionTail + "key:\n  - a\n  - ${KEY2}\n",
			want: "key[1]: environment variable KEY2 is not set (give a default with ${KEY2:-value})",
		},
		{
			name: "map value",
			src:  header + partitionTail + "columns:\n  a: ${A_TYPE}\n",
			want: "columns.a: environment variable A_TYPE is not set (give a default with ${A_TYPE:-value})",
		},
		{
			name: "malformed reference",
			src:  "idem: 1\njob: j\ntarget:\n  url: ${IDEM-TARGET}\n  table: t\n" + partitionTail,
			want: `target.url: "${IDEM-TARGET}" is not a variable reference (use ${NAME} or ${NAME:-default})`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := problems(t, tc.src, noEnv)
			require.Equal(t, tc.want, pathMsg(ps[0]), "all: %q", pathMsgs(ps))
			require.Positive(t, ps[0].Line)
		})
	}
}

func TestParseUnsetVariableInTypedField(t *testing.T) {
	t.Parallel()
	ps := problems(t, header+partitionTail+"  lookback: ${LOOKBACK}\n", noEnv)
	require.Equal(t, "partition.lookback: environment variable LOOKBACK is not set (give a default with ${LOOKBACK:-value})", pathMsg(ps[0]))
	for _, p := range ps {
		require.Equal(t, "partition.lookback", p.Path)
	}
}

func TestParseUnsetVariablesAllReported(t *testing.T) {
	t.Parallel()
	src := "idem: 1\njob: ${JOB}\ntarget:\n  url: ${URL}\n  table: ${TABLE}\n" + partitionTail
	ps := problems(t, src, noEnv)
	got := pathMsgs(ps)
	for _, v := range []struct{ path, name string }{{"job", "JOB"}, {"target.url", "URL"}, {"target.table", "TABLE"}} {
		require.Contains(t, got, v.path+": environment variable "+v.name+" is not set (give a default with ${"+v.name+":-value})")
	}
}

func TestParseEscapedVariableStaysLiteral(t *testing.T) {
	t.Parallel()
	j := mustParse(t, header+"source:\n  query: SELECT '$${X}' AS d\nstrategy: partition\npartition:\n  column: d\n", noEnv)
	require.Equal(t, "SELECT '${X}' AS d", j.Source.Query)
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "orders.yaml")
	// Only defaulted variables: Load reads the real environment.
	src := strings.ReplaceAll(validPartitionJob, "${IDEM_TARGET:-", "${IDEM_JOB_TEST_UNSET_3F9A:-")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o600))

	j, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, path, j.Path)
	require.Equal(t, dir, j.Dir)
	require.True(t, filepath.IsAbs(j.Dir))
	require.Equal(t, "duckdb:warehouse.duckdb", j.Target.URL)
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	missing := filepath.Join(dir, "missing.yaml")
	_, err := Load(missing)
	var je *Error
	require.ErrorAs(t, err, &je)
	require.Equal(t, missing, je.File)
	require.Len(t, je.Problems, 1)
	require.True(t, strings.HasPrefix(err.Error(), missing+": "), err.Error())

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("idem: 1\njob: j\ntarget:\n  tabel: t\n"+partitionTail), 0o600))
	_, err = Load(bad)
	require.ErrorAs(t, err, &je)
	require.Equal(t, bad, je.File)
	require.Equal(t, bad+": 2 problems:\n"+
		`  target.tabel: unknown key (did you mean "table"?) (line 4)`+"\n"+
		"  target.table: required: the table to load (schema.table or table)", err.Error())
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{Msg: "the job file is empty"}, "the job file is empty"},
		{Problem{Path: "key[0]", Msg: "empty column name"}, "key[0]: empty column name"},
		{Problem{Path: "target.tabel", Line: 4, Msg: "unknown key"}, "target.tabel: unknown key (line 4)"},
		{Problem{Line: 2, Msg: "must be a mapping"}, "must be a mapping (line 2)"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, tc.p.String())
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	one := &Error{Problems: []Problem{{Path: "job", Msg: "required"}}}
	require.Equal(t, "job file: job: required", one.Error())
	one.File = "jobs/orders.yaml"
	require.Equal(t, "jobs/orders.yaml: job: required", one.Error())

	two := &Error{File: "a.yaml", Problems: []Problem{
		{Path: "job", Msg: "required"},
		{Path: "x", Line: 7, Msg: "unknown key"},
	}}
	require.Equal(t, "a.yaml: 2 problems:\n  job: required\n  x: unknown key (line 7)", two.Error())
}

func TestRequiredColumns(t *testing.T) {
	t.Parallel()
	j := mustParse(t, validPartitionJob, noEnv)
	require.Equal(t, [][2]string{
		{"partition.column", "order_date"},
		{"key[0]", "order_id"},
		{"latest_by", "updated_at"},
		{"columns.amount", "amount"},
		{"columns.order_id", "order_id"},
	}, j.RequiredColumns())

	m := mustParse(t, validMergeJob, noEnv)
	require.Equal(t, [][2]string{
		{"key[0]", "customer_id"},
		{"key[1]", "region"},
		{"latest_by", "updated_at"},
		{"delete_when", "is_deleted"},
	}, m.RequiredColumns())
}

var hexHash = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestDefinitionHash(t *testing.T) {
	t.Parallel()
	base := mustParse(t, validPartitionJob, noEnv)
	h := base.DefinitionHash()
	require.Regexp(t, hexHash, h)
	require.Equal(t, h, base.DefinitionHash(), "stable across calls")
	require.Equal(t, h, mustParse(t, validPartitionJob, noEnv).DefinitionHash(), "stable across parses")

	// Map order in the file does not matter.
	reordered := strings.Replace(validPartitionJob,
		"  order_id: BIGINT\n  amount: DECIMAL(12,2)\n",
		"  amount: DECIMAL(12,2)\n  order_id: BIGINT\n", 1)
	require.NotEqual(t, validPartitionJob, reordered)
	require.Equal(t, h, mustParse(t, reordered, noEnv).DefinitionHash())

	tests := []struct {
		name    string
		mutate  func(j *Job)
		changes bool
	}{
		{"query", func(j *Job) { j.Source.Query += " AND status <> 'x'" }, true},
		{"query whitespace", func(j *Job) { j.Source.Query += " " }, true},
		{"table", func(j *Job) { j.Target.Table = "analytics.orders_v2" }, true},
		{"name", func(j *Job) { j.Name = "orders_daily_v2" }, true},
		{"strategy", func(j *Job) { j.Strategy = StrategyMerge }, true},
		{"partition column", func(j *Job) { j.Partition.Column = "created_date" }, true},
		{"grain", func(j *Job) { j.Partition.Grain = GrainHour }, true},
		{"timezone", func(j *Job) { j.Partition.Timezone = "Europe/Berlin" }, true},
		{"key", func(j *Job) { j.Key = StringList{"order_id", "line"} }, true},
		{"latest_by", func(j *Job) { j.LatestBy = "version" }, true},
		{"column type", func(j *Job) { j.Columns = map[string]string{"order_id": "INTEGER", "amount": "DECIMAL(12,2)"} }, true},
		{"loaded_at", func(j *Job) { j.LoadedAt = "_ingested_at" }, true},
		{"files instead of query", func(j *Job) { j.Source.Query, j.Source.Files, j.Source.Format = "", StringList{"x/*.csv"}, "csv" }, true},
		{"target url", func(j *Job) { j.Target.URL = "postgres://u:p@h/db" }, false},
		{"lookback", func(j *Job) { j.Partition.Lookback = 7 }, false},
		{"closed_after", func(j *Job) { d := Duration(6 * time.Hour); j.Partition.ClosedAfter = &d }, false},
		{"dir and path", func(j *Job) { j.Dir, j.Path = "/elsewhere", "/elsewhere/j.yaml" }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := mustParse(t, validPartitionJob, noEnv)
			tc.mutate(j)
			if tc.changes {
				require.NotEqual(t, h, j.DefinitionHash())
			} else {
				require.Equal(t, h, j.DefinitionHash())
			}
		})
	}
}

func TestDefinitionHashIgnoresTargetURLFromEnvironment(t *testing.T) {
	t.Parallel()
	a := mustParse(t, validPartitionJob, noEnv)
	b := mustParse(t, validPartitionJob, fakeEnv(map[string]string{"IDEM_TARGET": "postgres://idem:pw@prod/warehouse"}))
	require.NotEqual(t, a.Target.URL, b.Target.URL)
	require.Equal(t, a.DefinitionHash(), b.DefinitionHash())
}

func TestParseTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    TableName
		wantErr string
	}{
		{in: "orders", want: TableName{Name: "orders"}},
		{in: "analytics.orders", want: TableName{Schema: "analytics", Name: "orders"}},
		{in: "Analytics.Daily_Orders", want: TableName{Schema: "Analytics", Name: "Daily_Orders"}},
		{in: "", wantErr: "required: the table to load (schema.table or table)"},
		{in: "a.b.c", wantErr: `"a.b.c" has too many dots (schema.table or table)`},
		{in: ".orders", wantErr: `".orders" is not a table name (schema.table or table)`},
		{in: "analytics.", wantErr: `"analytics." is not a table name (schema.table or table)`},
		{in: "a..b", wantErr: `"a..b" is not a table name (schema.table or table)`},
		{in: " . ", wantErr: `" . " is not a table name (schema.table or table)`},
		{in: `a"b`, wantErr: `"a\"b" is not a table name (schema.table or table)`},
		{in: "a`b", wantErr: "\"a`b\" is not a table name (schema.table or table)"},
		{in: "a\x00b", wantErr: `"a\x00b" is not a table name (schema.table or table)`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTable(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				require.Zero(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.in, got.String())
		})
	}
}

func TestTableNameString(t *testing.T) {
	t.Parallel()
	require.Equal(t, "orders", TableName{Name: "orders"}.String())
	require.Equal(t, "a.orders", TableName{Schema: "a", Name: "orders"}.String())
}

func TestSplitURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, engine, rest string
		wantErr           string
	}{
		{url: "duckdb:warehouse.duckdb", engine: "duckdb", rest: "warehouse.duckdb"},
		{url: "duckdb://warehouse.duckdb", engine: "duckdb", rest: "warehouse.duckdb"},
		{url: "duckdb:/var/lib/w.duckdb", engine: "duckdb", rest: "/var/lib/w.duckdb"},
		{url: "duckdb:///var/lib/w.duckdb", engine: "duckdb", rest: "/var/lib/w.duckdb"},
		{url: "duckdb::memory:", engine: "duckdb", rest: ":memory:"},
		{url: "postgres://u:p@h:5432/db", engine: "postgres", rest: "postgres://u:p@h:5432/db"},
		{url: "postgresql://h/db", engine: "postgres", rest: "postgresql://h/db"},
		{url: "mysql://u:p@tcp(h:3306)/db", wantErr: `"mysql://u:xxxxx@tcp(h:3306)/db" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
		{url: "duckdb:", wantErr: "duckdb: needs a file path (duckdb:warehouse.duckdb or duckdb::memory:)"},
		{url: "duckdb://", wantErr: "duckdb: needs a file path (duckdb:warehouse.duckdb or duckdb::memory:)"},
		{url: "", wantErr: `"" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
		{url: "warehouse.duckdb", wantErr: `"warehouse.duckdb" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
		{url: "DUCKDB:w.duckdb", wantErr: `"DUCKDB:w.duckdb" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
		{url: "postgres:db", wantErr: `"postgres:db" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
		{url: "host=db password=topsecret", wantErr: `"host=db password=xxxxx" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
		{url: "sqlserver://sa:topsecret@h/db", wantErr: `"sqlserver://sa:xxxxx@h/db" is not a target URL (duckdb:PATH, postgres://…, postgresql://…)`},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			t.Parallel()
			engine, rest, err := SplitURL(tc.url)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				require.NotContains(t, err.Error(), "topsecret")
				require.Empty(t, engine)
				require.Empty(t, rest)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.engine, engine)
			require.Equal(t, tc.rest, rest)
		})
	}
}

func TestEditDistanceAndClosest(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, editDistance("table", "table"))
	require.Equal(t, 2, editDistance("tabel", "table"))
	require.Equal(t, 5, editDistance("", "table"))
	require.Equal(t, 3, editDistance("kitten", "sitting"))
	require.Equal(t, "table", closest("tabel", []string{"url", "table"}))
	require.Empty(t, closest("zzzzzz", []string{"url", "table"}))
}
