package job

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const filesTail = `strategy: partition
partition:
  column: d
`

func TestParseFilesList(t *testing.T) {
	t.Parallel()
	j := mustParse(t, header+"source:\n  files:\n    - in/a-{{ date }}*.csv\n    - in/a-{{ date + 1d }}*.csv\n"+filesTail+"  closed_after: 1d\n", noEnv)
	require.Equal(t, StringList{"in/a-{{ date }}*.csv", "in/a-{{ date + 1d }}*.csv"}, j.Source.Files)
	require.Equal(t, "csv", j.Source.Format)
	w, err := j.Window("2026-11-01")
	require.NoError(t, err)
	require.Equal(t, "in/a-2026-11-02*.csv", RenderPath(j.Source.Files[1], w))
}

// A one-glob job hashes as it did when files was a string: upgrading idem
// keeps run ids.
func TestDefinitionHashOneGlobUnchanged(t *testing.T) {
	t.Parallel()
	a := mustParse(t, header+"source:\n  files: in/*.csv\n"+filesTail, noEnv)
	b := mustParse(t, header+"source:\n  files: [in/*.csv]\n"+filesTail, noEnv)
	c := mustParse(t, header+"source:\n  files: [in/*.csv, more/*.csv]\n"+filesTail, noEnv)
	require.Equal(t, a.DefinitionHash(), b.DefinitionHash())
	require.NotEqual(t, a.DefinitionHash(), c.DefinitionHash())
	require.Equal(t, "0e7437f78dd02355a6f5c4244a32cb78", a.DefinitionHash(), "the hash main had before lists were allowed")
}

func TestParseSourceProblems(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, path, msg string }{
		{"source:\n  files: [in/*.csv, '']\n" + filesTail, "source.files[1]", "empty glob"},
		{"source:\n  files: [in/*.csv, in/*.parquet]\n" + filesTail, "source.files", "more than one format"},
		{"source:\n  files: in/{{ date + 1x }}.csv\n" + filesTail, "source.files", `unknown unit "x"`},
		{"source:\n  files: in/{{ date + 1d }}.csv\n" + filesTail, "partition.closed_after", "closed_after must be at least 1d (it is 0s)"},
		{"source:\n  files: in/{{ date + 2h }}.csv\n" + filesTail + "  closed_after: 1h\n", "partition.closed_after", "at least 2h (it is 1h)"},
		{"source:\n  files: in/*.csv\n" + filesTail + "  out_of_window: drop\n", "partition.out_of_window", `"drop" is not one of report, fail`},
		{"source:\n  files: in/*.csv\n" + filesTail + "  on_null: ignore\n", "partition.on_null", `"ignore" is not one of fail, skip`},
		{"source:\n  files: in/*.csv\n" + filesTail + "on_schema_change: sync_all_columns\n", "on_schema_change", `not one of fail, add_columns`},
		{"source:\n  files: ftp://b/{{ date }}/*.csv\n" + filesTail, "source.files", "ftp:// is not a scheme idem reads inputs from"},
		{"source:\n  files: [s3://b/x/*.csv, in/*.csv]\n" + filesTail, "source.files", "names both URLs and local files"},
	}
	for _, tc := range tests {
		ps := problems(t, header+tc.src, noEnv)
		p := findProblem(t, ps, tc.path)
		require.Contains(t, p.Msg, tc.msg, tc.src)
	}
}

// A URL's query (an S3-compatible endpoint) is not its name: the format
// comes from the key's extension.
func TestFormatOfAURL(t *testing.T) {
	t.Parallel()
	j := mustParse(t, header+"source:\n  files: 's3://b/{{ date }}/*.jsonl.gz?endpoint=http://h:9000&use_path_style=true'\n"+filesTail, noEnv)
	require.Equal(t, "jsonl", j.Source.Format)
	require.Empty(t, urlScheme("C://data/x.csv"), "a drive letter is no scheme")
	require.Equal(t, "https", urlScheme("HTTPS://h/x.csv"))
}

func TestParseBackwardOffsetNeedsNoClosing(t *testing.T) {
	t.Parallel()
	j := mustParse(t, header+"source:\n  files:\n    - in/{{ date }}.csv\n    - in/{{ date - 1d }}.csv\n"+filesTail, noEnv)
	w, err := j.Window("2026-03-01")
	require.NoError(t, err)
	require.Equal(t, "in/2026-02-28.csv", RenderPath(j.Source.Files[1], w))
}

func TestRenderOffsets(t *testing.T) {
	t.Parallel()
	day := mustWindow(t, GrainDay, "", "2026-12-31")
	require.Equal(t, "2027/01/01 2027-01-01T00:00:00", RenderPath("{{ yyyy + 1d }}/{{ mm + 1d }}/{{ dd + 1d }} {{ start + 1d }}", day))
	require.Equal(t, "DATE '2026-12-30' DATE '2026-12-31'", RenderSQL("{{ start - 1d }} {{ end - 1d }}", day, fakeDialect{}))
	month := mustWindow(t, GrainMonth, "", "2026-01")
	require.Equal(t, "2026-02 2025-12", RenderPath("{{ date + 1mo }} {{ date - 1mo }}", month))
	hour := mustWindow(t, GrainHour, "", "2026-11-28T23")
	require.Equal(t, "2026-11-29T01", RenderPath("{{ date + 2h }}", hour))
}

func TestHeldBackByClosure(t *testing.T) {
	t.Parallel()
	merge := "source:\n  files: in/*.csv\nstrategy: merge\nkey: id\nlatest_by: v\n"
	require.False(t, mustParse(t, header+merge, noEnv).HeldBackByClosure(), "a merge without closed_after")
	require.True(t, mustParse(t, header+merge+"partition:\n  closed_after: 0s\n", noEnv).HeldBackByClosure())
	j := mustParse(t, header+"source:\n  files: in/*.csv\n"+filesTail+"  closed_after: 6h\n", noEnv)
	require.True(t, j.HeldBackByClosure())
	w, err := j.Window("2026-11-28")
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC), j.ClosesAt(w))
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", 90 * time.Second: "1m30s", 6 * time.Hour: "6h", 90 * time.Minute: "1h30m",
		48 * time.Hour: "2d", 25 * time.Hour: "25h", time.Minute: "1m",
	} {
		require.Equal(t, want, FormatDuration(d))
	}
}

func TestParseDatabaseSource(t *testing.T) {
	t.Parallel()
	j := mustParse(t, header+"source:\n  url: postgres://u:pw@db/app\n  table: public.orders\n"+filesTail+"max_shrink: 20%\n", noEnv)
	require.True(t, j.Source.IsDatabase())
	require.True(t, j.Source.IsQuery())
	require.Equal(t, Percent(20), j.MaxShrink)
	other := mustParse(t, header+"source:\n  url: postgres://u:other@db2/app\n  table: public.orders\n"+filesTail, noEnv)
	require.NotEqual(t, j.DefinitionHash(), other.DefinitionHash(), "another source database is another definition")
	same := mustParse(t, header+"source:\n  url: postgres://u:changed@db/app\n  table: public.orders\n"+filesTail+"max_shrink: 20%\n", noEnv)
	require.Equal(t, j.DefinitionHash(), same.DefinitionHash(), "a new password is the same source")

	tests := []struct{ src, path, msg string }{
		{"source:\n  table: orders\n" + filesTail, "source.table", "needs source.url"},
		{"source:\n  url: postgres://u@db/app\n  files: in/*.csv\n" + filesTail, "source.url", "applies to query and table only"},
		{"source:\n  url: postgres://u@db/app\n  query: SELECT 1\n  table: orders\n" + filesTail, "source", "give one of query, table or files"},
		{"source:\n  url: nosuch://db/app\n  table: orders\n" + filesTail, "source.url", "is not a database URL"},
		{"source:\n  url: postgres://u@db/app\n  table: orders\n" + filesTail + "max_shrink: 120%\n", "max_shrink", "at most 100%"},
		{"source:\n  url: postgres://u@db/app\n  table: orders\n" + filesTail + "max_shrink: lots\n", "max_shrink", "not a percentage"},
		{"source:\n  url: postgres://u@db/app\n  table: orders\nstrategy: merge\nkey: id\nlatest_by: v\nmax_shrink: 20%\n", "max_shrink", "applies to strategy partition only"},
	}
	for _, tc := range tests {
		ps := problems(t, header+tc.src, noEnv)
		p := findProblem(t, ps, tc.path)
		require.Contains(t, p.Msg, tc.msg, tc.src)
	}
}
