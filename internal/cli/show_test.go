package cli_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/enginetest"
)

// showTargets is where the show and history tests load: a DuckDB file
// always, and a schema of its own on PostgreSQL when a server answers
// (the subtest skips otherwise, or fails when CI requires the server).
var showTargets = []struct {
	name string
	url  func(t *testing.T, dir string) string
}{
	{"duckdb", func(t *testing.T, dir string) string { return "duckdb:" + filepath.Join(dir, "w.duckdb") }},
	{"postgres", func(t *testing.T, _ string) string { return pgSchema(t, "idem_show") }},
}

// pgSchema makes a schema of its own on the tests' PostgreSQL server,
// dropped when the test ends, and returns a target URL whose tables (and
// ledger) live in it.
func pgSchema(t *testing.T, prefix string) string {
	t.Helper()
	dsn := enginetest.Postgres.DSN(t)
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("%s_%d_%s", prefix, os.Getpid(), strings.ToLower(regexp.MustCompile(`\W`).ReplaceAllString(t.Name(), "_")))
	_, err = db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE; CREATE SCHEMA ` + schema)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
		require.NoError(t, err)
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// showJobs writes a partition job and a merge job over the same file,
// whose rows come in no order.
func showJobs(t *testing.T, target string) (dir, part, merge string) {
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.csv"), []byte(`id,day,amount,paid,note
10,2026-11-28,2.50,true,"two
lines"
9,2026-11-27,10.00,false,
2,2026-11-28,,true,a	tab
1,2026-11-28,1.25,,plain
`), 0o644))
	body := func(name, strategy string) string {
		b := fmt.Sprintf("idem: 1\njob: %s\ntarget:\n  url: %q\n  table: %s\nsource:\n  files: in.csv\nstrategy: %s\nkey: [id]\ncolumns:\n  amount: DECIMAL(12,2)\n", name, target, name, strategy)
		if strategy == "partition" {
			return b + "partition:\n  column: day\n"
		}
		return b + "latest_by: day\n"
	}
	part, merge = filepath.Join(dir, "part.yaml"), filepath.Join(dir, "merge.yaml")
	require.NoError(t, os.WriteFile(part, []byte(body("daily", "partition")), 0o644))
	require.NoError(t, os.WriteFile(merge, []byte(body("merged", "merge")), 0o644))
	return dir, part, merge
}

// `idem show` prints the same rows the same way on every engine: ordered
// by the key (as numbers: 10 after 9), values on one line, NULL as NULL;
// --json as typed JSON. It reads only.
func TestShow(t *testing.T) {
	t.Parallel()
	outputs := map[string][]string{}
	for _, tc := range showTargets {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			target := tc.url(t, dir)
			_, part, merge := showJobs(t, target)

			code, out, errOut := run(t, "show", part)
			require.Equal(t, 1, code, out)
			require.Contains(t, errOut, "table daily does not exist: no run has loaded it yet")
			require.NoFileExists(t, filepath.Join(dir, "w.duckdb"), "show creates nothing")

			for _, d := range []string{"2026-11-27", "2026-11-28"} {
				code, _, errOut = run(t, "run", part, "--date", d)
				require.Equal(t, 0, code, errOut)
			}
			code, _, errOut = run(t, "run", merge, "--date", "2026-11-28")
			require.Equal(t, 0, code, errOut)

			code, all, errOut := run(t, "show", part)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, `daily: 4 of 4 rows, ordered by id, day, amount, paid, note
id  day         amount  paid   note
1   2026-11-28  1.25    NULL   plain
2   2026-11-28  NULL    true   a\ttab
9   2026-11-27  10.00   false  NULL
10  2026-11-28  2.50    true   two\nlines
`, all)

			code, out, errOut = run(t, "show", part, "--date", "2026-11-28", "--limit", "2")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, `daily partition 2026-11-28: 2 of 3 rows, ordered by id, day, amount, paid, note
id  day         amount  paid  note
1   2026-11-28  1.25    NULL  plain
2   2026-11-28  NULL    true  a\ttab
`, out)

			code, js, errOut := run(t, "show", merge, "--json")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, `{"id":1,"day":"2026-11-28","amount":1.25,"paid":null,"note":"plain"}
{"id":2,"day":"2026-11-28","amount":null,"paid":true,"note":"a\ttab"}
{"id":9,"day":"2026-11-27","amount":10.00,"paid":false,"note":null}
{"id":10,"day":"2026-11-28","amount":2.50,"paid":true,"note":"two\nlines"}
`, js)
			for _, l := range strings.Split(strings.TrimSpace(js), "\n") {
				require.True(t, json.Valid([]byte(l)), l)
			}

			code, _, errOut = run(t, "show", merge, "--date", "2026-11-28")
			require.Equal(t, 2, code)
			require.Contains(t, errOut, "its --date names a run, not rows of the table")
			code, _, errOut = run(t, "show", part, "--date", "2026-11-28T05")
			require.Equal(t, 2, code, errOut)

			// Nothing was written: the ledger still holds the three runs.
			code, out, errOut = run(t, "status", part, "--history", "--json")
			require.Equal(t, 0, code, errOut)
			require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 2)
			outputs[tc.name] = []string{all, js}
		})
	}
	if len(outputs) == 2 {
		require.Equal(t, outputs["duckdb"], outputs["postgres"], "one table, one print, on every engine")
	}
}

// `status --history` lists every committed run of each partition, with
// its input's fingerprint, counts and checksum, the last one marked.
func TestStatusHistory(t *testing.T) {
	t.Parallel()
	for _, tc := range showTargets {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, part, _ := showJobs(t, tc.url(t, dir))

			code, out, errOut := run(t, "status", part, "--history")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, "daily: no runs recorded\n", out)

			for _, d := range []string{"2026-11-27", "2026-11-28"} {
				code, _, errOut = run(t, "run", part, "--date", d)
				require.Equal(t, 0, code, errOut)
			}
			// A corrected file: 2026-11-28 loads again, under a new run id.
			in := filepath.Join(filepath.Dir(part), "in.csv")
			b, err := os.ReadFile(in)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(in, []byte(strings.Replace(string(b), "1.25", "1.30", 1)), 0o644))
			code, _, errOut = run(t, "run", part, "--date", "2026-11-28")
			require.Equal(t, 0, code, errOut)

			code, out, errOut = run(t, "status", part, "--history", "--json")
			require.Equal(t, 0, code, errOut)
			var runs []map[string]any
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var r map[string]any
				require.NoError(t, json.Unmarshal([]byte(l), &r), l)
				runs = append(runs, r)
			}
			require.Len(t, runs, 3)
			for i, want := range []struct {
				partition string
				seq       float64
				latest    bool
				inserted  float64
				deleted   float64
			}{{"2026-11-27", 1, true, 1, 0}, {"2026-11-28", 1, false, 3, 0}, {"2026-11-28", 2, true, 3, 3}} {
				r := runs[i]
				require.Equal(t, want.partition, r["partition"], "%v", r)
				require.Equal(t, want.seq, r["seq"], "%v", r)
				require.Equal(t, want.latest, r["latest"], "%v", r)
				require.Equal(t, want.inserted, r["inserted"], "%v", r)
				require.Equal(t, want.deleted, r["deleted"], "%v", r)
				require.EqualValues(t, 4, r["rows_in"])
				require.Regexp(t, `^[0-9a-f]{16}$`, r["checksum"])
				for _, k := range []string{"run_id", "input_fingerprint", "definition_hash", "started_at", "finished_at", "idem_version"} {
					require.NotEmpty(t, r[k], k)
				}
			}
			require.NotEqual(t, runs[1]["input_fingerprint"], runs[2]["input_fingerprint"], "the corrected file is another input")
			require.NotEqual(t, runs[1]["checksum"], runs[2]["checksum"])
			require.Equal(t, runs[0]["input_fingerprint"], runs[1]["input_fingerprint"], "one file, read by two partitions")

			code, out, errOut = run(t, "status", part, "--history", "--from", "2026-11-28", "--to", "2026-11-28")
			require.Equal(t, 0, code, errOut)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 4, out)
			require.Regexp(t, `^partition +seq +run +input +rows in +deduped +out of window +inserted +updated +deleted +row count +checksum +closed +started +finished$`, lines[0])
			require.Regexp(t, `^2026-11-28 +1 +[0-9a-f]{12} +[0-9a-f]{12} +4 +0 +1 +3 +0 +0 +3 +[0-9a-f]{16} +yes +\S+Z +\S+Z$`, lines[1])
			require.Regexp(t, `^2026-11-28 \* +2 +[0-9a-f]{12} +[0-9a-f]{12} +4 +0 +1 +3 +0 +3 +3 +[0-9a-f]{16} +yes +\S+Z +\S+Z$`, lines[2])
			require.Equal(t, "daily: 2 runs (* the run each partition's rows come from)", lines[3])
			require.False(t, regexp.MustCompile(` +$`).MatchString(lines[1]), "no trailing spaces")
		})
	}
}
