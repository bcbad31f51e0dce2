package job

import (
	"strings"
	"testing"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/stretchr/testify/require"
)

// fakeDialect renders typed time literals the way a SQL dialect would, so
// the tests see exactly which kind each template became.
type fakeDialect struct{}

func (fakeDialect) TimeLiteral(t time.Time, k engine.TimeKind) string {
	switch k {
	case engine.KindDate:
		return "DATE '" + t.Format("2006-01-02") + "'"
	case engine.KindTimestamp:
		return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05") + "'"
	case engine.KindTimestampTZ:
		return "TIMESTAMPTZ '" + t.Format("2006-01-02 15:04:05-07:00") + "'"
	}
	return "UNKNOWN_KIND"
}

var _ engine.Literaler = fakeDialect{}

// mustWindow parses date for a job of grain in zone tz ("" for UTC).
func mustWindow(t *testing.T, grain Grain, tz, date string) Window {
	t.Helper()
	w, err := windowJob(t, grain, 0, "", tz).Window(date)
	require.NoError(t, err)
	return w
}

func TestCheckTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		wantErr string
	}{
		{in: ""},
		{in: "SELECT 1"},
		{in: "{{ date }}"},
		{in: "{{date}}"},
		{in: "{{   start   }}"},
		{in: "{{ start }} {{ end }} {{ yyyy }} {{ mm }} {{ dd }} {{ hh }} {{ date }}"},
		{in: "data/{{yyyy}}/{{mm}}/{{dd}}/{{hh}}/*.csv"},
		{in: "SELECT '{' || '}' AS braces, '}}' AS close"},
		{in: "{{ foo }}", wantErr: "unknown template variable {{ foo }} (known: date, start, end, yyyy, mm, dd, hh)"},
		{in: "{{ Date }}", wantErr: "unknown template variable {{ Date }} (known: date, start, end, yyyy, mm, dd, hh)"},
		{in: "{{ date }} {{ foo }} {{ bar }}", wantErr: "unknown template variable {{ foo }} (known: date, start, end, yyyy, mm, dd, hh)"},
		{in: "{{}}", wantErr: "unknown template variable {{  }} (known: date, start, end, yyyy, mm, dd, hh)"},
		{in: "{{ date", wantErr: "unclosed or malformed {{ … }} template"},
		{in: "{{ date }", wantErr: "unclosed or malformed {{ … }} template"},
		{in: "{{ yyyy1 }}", wantErr: "unclosed or malformed {{ … }} template"},
		{in: "{{ date | upper }}", wantErr: "unclosed or malformed {{ … }} template"},
		{in: "{{ $date }}", wantErr: "unclosed or malformed {{ … }} template"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			err := checkTemplate(tc.in)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestParseTemplateProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		source string
		want   string
	}{
		{
			name:   "unknown variable in query",
			source: "source:\n  query: SELECT * FROM t WHERE d = {{ foo }}\n",
			want:   "source.query: unknown template variable {{ foo }} (known: date, start, end, yyyy, mm, dd, hh)",
		},
		{
			name:   "unknown variable in files",
			source: "source:\n  files: data/{{ day }}/*.csv\n",
			want:   "source.files: unknown template variable {{ day }} (known: date, start, end, yyyy, mm, dd, hh)",
		},
		{
			name:   "malformed in query",
			source: "source:\n  query: SELECT * FROM t WHERE d = {{ date\n",
			want:   "source.query: unclosed or malformed {{ … }} template",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := header + tc.source + "strategy: partition\npartition:\n  column: d\n"
			require.Equal(t, []string{tc.want}, pathMsgs(problems(t, src, noEnv)))
		})
	}
}

func TestRenderPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		grain Grain
		tz    string
		date  string
		in    string
		want  string
	}{
		{"day label", GrainDay, "", "2026-11-28", "data/orders/{{ date }}/*.csv", "data/orders/2026-11-28/*.csv"},
		{"hour label", GrainHour, "", "2026-11-28T13", "data/{{date}}.jsonl", "data/2026-11-28T13.jsonl"},
		{"month label", GrainMonth, "", "2026-11", "data/{{ date }}/*.parquet", "data/2026-11/*.parquet"},
		{"parts zero-padded", GrainHour, "", "2026-03-05T07", "data/{{ yyyy }}/{{ mm }}/{{ dd }}/{{ hh }}/*.csv", "data/2026/03/05/07/*.csv"},
		{"parts two digits", GrainHour, "", "2026-11-28T13", "{{yyyy}}{{mm}}{{dd}}{{hh}}", "2026112813"},
		{"day has hour 00", GrainDay, "", "2026-01-02", "{{ yyyy }}/{{ mm }}/{{ dd }}/{{ hh }}", "2026/01/02/00"},
		{"month has day 01", GrainMonth, "", "2026-12", "{{ yyyy }}-{{ mm }}-{{ dd }}", "2026-12-01"},
		{"year below 1000", GrainDay, "", "0999-01-02", "{{ yyyy }}", "0999"},
		{"start and end", GrainDay, "", "2026-12-31", "{{ start }}..{{ end }}", "2026-12-31T00:00:00..2027-01-01T00:00:00"},
		{"hour start and end", GrainHour, "", "2026-11-28T23", "{{ start }}/{{ end }}", "2026-11-28T23:00:00/2026-11-29T00:00:00"},
		{"zoned start is wall clock", GrainDay, "Europe/Berlin", "2026-11-28", "{{ start }} {{ hh }}", "2026-11-28T00:00:00 00"},
		{"repeated", GrainDay, "", "2026-11-28", "{{ date }}/{{ date }}", "2026-11-28/2026-11-28"},
		{"no templates", GrainDay, "", "2026-11-28", "data/*.csv", "data/*.csv"},
		{"other braces kept", GrainDay, "", "2026-11-28", "data/{a,b}/{{ date }}.csv", "data/{a,b}/2026-11-28.csv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := mustWindow(t, tc.grain, tc.tz, tc.date)
			got := RenderPath(tc.in, w)
			require.Equal(t, tc.want, got)
			require.NotContains(t, got, "'", "paths are plain text, not SQL literals")
		})
	}
}

func TestRenderSQL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		grain Grain
		tz    string
		date  string
		in    string
		want  string
	}{
		{
			name: "day as DATE", grain: GrainDay, date: "2026-11-28",
			in:   "WHERE created_at >= {{ start }} AND created_at < {{ end }}",
			want: "WHERE created_at >= DATE '2026-11-28' AND created_at < DATE '2026-11-29'",
		},
		{
			name: "date is the start", grain: GrainDay, date: "2026-11-28",
			in:   "SELECT {{ date }} AS d",
			want: "SELECT DATE '2026-11-28' AS d",
		},
		{
			name: "month as DATE", grain: GrainMonth, date: "2026-12",
			in:   "{{ date }} {{ start }} {{ end }}",
			want: "DATE '2026-12-01' DATE '2026-12-01' DATE '2027-01-01'",
		},
		{
			name: "hour as TIMESTAMP", grain: GrainHour, date: "2026-11-28T23",
			in:   "ts >= {{ start }} AND ts < {{ end }} AND h = {{ date }}",
			want: "ts >= TIMESTAMP '2026-11-28 23:00:00' AND ts < TIMESTAMP '2026-11-29 00:00:00' AND h = TIMESTAMP '2026-11-28 23:00:00'",
		},
		{
			name: "zoned day as TIMESTAMPTZ", grain: GrainDay, tz: "Europe/Berlin", date: "2026-11-28",
			in:   "{{ start }} {{ end }}",
			want: "TIMESTAMPTZ '2026-11-28 00:00:00+01:00' TIMESTAMPTZ '2026-11-29 00:00:00+01:00'",
		},
		{
			name: "parts are integers", grain: GrainHour, date: "2026-03-05T07",
			in:   "y = {{ yyyy }} AND m = {{ mm }} AND d = {{ dd }} AND h = {{ hh }}",
			want: "y = 2026 AND m = 3 AND d = 5 AND h = 7",
		},
		{
			name: "parts of a month", grain: GrainMonth, date: "2026-11",
			in:   "{{yyyy}}*100+{{mm}}",
			want: "2026*100+11",
		},
		{
			name: "no templates", grain: GrainDay, date: "2026-11-28",
			in:   "SELECT '{{' || 'x' AS s",
			want: "SELECT '{{' || 'x' AS s",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := mustWindow(t, tc.grain, tc.tz, tc.date)
			require.Equal(t, tc.want, RenderSQL(tc.in, w, fakeDialect{}))
		})
	}
}

func TestRenderSQLOfParsedJob(t *testing.T) {
	t.Parallel()
	j := mustParse(t, validPartitionJob, noEnv)
	w, err := j.Window("2026-11-28")
	require.NoError(t, err)
	got := RenderSQL(j.Source.Query, w, fakeDialect{})
	require.Contains(t, got, "WHERE created_at >= DATE '2026-11-28' AND created_at < DATE '2026-11-29'")
	require.NotContains(t, got, "{{")
}

func TestRenderPathOfParsedJob(t *testing.T) {
	t.Parallel()
	j := mustParse(t, validMergeJob, noEnv)
	w, err := j.Window("2026-11-28")
	require.NoError(t, err)
	require.Equal(t, "data/customers/2026-11-28/*.jsonl", RenderPath(j.Source.Files[0], w))
	require.False(t, strings.Contains(RenderPath(j.Source.Files[0], w), "{{"))
}
