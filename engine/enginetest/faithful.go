package enginetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
)

// faithfulCases: what reaches the target is what the input says, whatever
// the host, the reader's sample or the target path (issue 7, sections 4, 5
// and 8).
var faithfulCases = []struct {
	name string
	fn   func(*testing.T, Harness)
}{
	{"TargetNotADatabase", testTargetNotADatabase},
	{"TimestampTZIndependentOfHostTZ", testHostTZ},
}

// A DuckDB target path naming an existing file that is not a DuckDB
// database (DuckDB would open a .csv as an in-memory database with a view
// over it) or a directory is refused as a usage error, and the file is
// never modified.
func testTargetNotADatabase(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	if !strings.HasPrefix(e.URL, "duckdb:") {
		t.Skip("about DuckDB target files")
	}
	const precious = "id,day\n1,2026-11-28\n"
	csvPath := e.Write("precious.csv", precious)
	require.NoError(t, os.Mkdir(filepath.Join(e.Dir, "adir"), 0o755))
	e.Write("in/x.csv", "id,day\n1,2026-11-28\n")
	for _, target := range []string{"precious.csv", "adir"} {
		jobPath := e.Write("job_"+target+".yaml", `idem: 1
job: not_a_db
target:
  url: duckdb:`+target+`
  table: t
source:
  files: in/x.csv
strategy: partition
partition:
  column: day
`)
		for range 2 {
			code, stdout, stderr := RunBinary(t, nil, "run", jobPath, "--date", "2026-11-28")
			require.Equal(t, 2, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.NotContains(t, stdout, "loaded")
			require.Contains(t, stderr, "duckdb:"+target+": ")
			require.Contains(t, stderr, "not a DuckDB database")
		}
		j, err := job.Load(jobPath)
		require.NoError(t, err)
		_, err = idem.Run(context.Background(), j, idem.Options{Date: "2026-11-28", AsOf: e.Now})
		require.ErrorIs(t, err, idem.ErrTarget)
	}
	got, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	require.Equal(t, precious, string(got), "the file is untouched")
	entries, err := os.ReadDir(e.Dir)
	require.NoError(t, err)
	for _, en := range entries {
		require.False(t, strings.HasPrefix(en.Name(), "precious.csv."), "no %s beside it", en.Name())
	}
	adir, err := os.ReadDir(filepath.Join(e.Dir, "adir"))
	require.NoError(t, err)
	require.Empty(t, adir)
}

const offsetJob = `job: offsets
source:
  files: in/e.csv
strategy: partition
partition:
  column: ts
key: [id]
`

// A TIMESTAMPTZ column's partition does not depend on the host's time zone:
// the binary run under three TZ settings writes the same rows, with the
// same run id. Zoneless values are UTC.
func testHostTZ(t *testing.T, h Harness) {
	const input = "id,ts\n" +
		"1,2026-01-01 23:30:00\n" + // 2026-01-01 in UTC; 01-02 in UTC if read in New York
		"2,2026-01-01T20:30:00-05:00\n" + // 2026-01-02 01:30 UTC wherever it is read
		"3,2026-01-02 00:30:00\n" + // 2026-01-02 in UTC; 01-01 in UTC if read in Tokyo
		"4,2026-01-02 12:00:00\n"
	for _, declared := range []bool{true, false} {
		body := offsetJob
		if declared {
			body += "columns:\n  ts: TIMESTAMPTZ\n"
		}
		var first map[string]any
		for _, tz := range []string{"UTC", "America/New_York", "Asia/Tokyo"} {
			e := NewEnv(t, h)
			e.Write("in/e.csv", input)
			j := e.Job(body)
			code, stdout, stderr := RunBinary(t, []string{"TZ=" + tz}, "run", j.Path, "--date", "2026-01-02", "--as-of", "2026-02-01T00:00:00Z", "--json")
			require.Equal(t, 0, code, "TZ=%s: %s", tz, stderr)
			var res map[string]any
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			require.Equal(t, float64(3), res["row_count"], "TZ=%s declared=%v", tz, declared)
			require.Equal(t, []string{"2", "3", "4"}, e.Rows("", "id"), "TZ=%s", tz)
			if first == nil {
				first = res
				continue
			}
			for _, k := range []string{"run_id", "checksum", "rows_out_of_window"} {
				require.Equal(t, first[k], res[k], "TZ=%s: %s", tz, k)
			}
		}
	}
}
