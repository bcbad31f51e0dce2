package cli_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/enginetest"
)

// TestLintTargetMissingIndex: lint --target warns about a table idem did
// not create that lacks the index its strategy needs, and is quiet about
// one idem created (which has it).
func TestLintTargetMissingIndex(t *testing.T) {
	dsn := enginetest.Postgres.DSN(t)
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	schema := fmt.Sprintf("idem_lint_target_%d", os.Getpid())
	_, err = db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE; CREATE SCHEMA ` + schema +
		`; CREATE TABLE ` + schema + `.byhand (order_id BIGINT, d DATE, amount NUMERIC)`)
	require.NoError(t, err)
	t.Cleanup(func() { db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`) })
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()

	job := func(table, strategy string) string {
		body := fmt.Sprintf("idem: 1\njob: %s_%s\ntarget:\n  url: %q\n  table: %s\nsource:\n  files: in.csv\nstrategy: %s\n", table, strategy, u.String(), table, strategy)
		if strategy == "partition" {
			body += "partition:\n  column: d\n"
		}
		return body + "key: [order_id]\nlatest_by: d\n"
	}
	dir, part := writeJob(t, job("byhand", "partition"))
	require.NoError(t, os.WriteFile(dir+"/merge.yaml", []byte(job("byhand", "merge")), 0o644))
	require.NoError(t, os.WriteFile(dir+"/in.csv", []byte("order_id,d,amount\n1,2026-11-28,2.50\n"), 0o644))

	code, out, errOut := run(t, "lint", "--target", part, dir+"/merge.yaml")
	require.Equal(t, 0, code, errOut)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "missing-index") {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 2, out)
	require.Contains(t, lines[0], "warning: missing-index: table byhand has no index on (d): deleting and checksumming a partition")
	require.Contains(t, lines[0], `CREATE INDEX IF NOT EXISTS "byhand__idem_partition" ON "byhand" USING brin ("d") WITH (autosummarize = on)`)
	require.Contains(t, lines[1], "table byhand has no index on (order_id): the merge plan")
	require.Contains(t, lines[1], `CREATE UNIQUE INDEX IF NOT EXISTS "byhand__idem_key" ON "byhand" ("order_id")`)
	code, out, _ = run(t, "lint", part)
	require.Equal(t, 0, code)
	require.NotContains(t, out, "missing-index", "without --target lint opens no target")

	// A B-tree on the partition column serves; a non-unique one on the key
	// does not make the key unique.
	_, err = db.Exec(`CREATE INDEX ON ` + schema + `.byhand (d, amount); CREATE INDEX ON ` + schema + `.byhand (order_id)`)
	require.NoError(t, err)
	code, out, errOut = run(t, "lint", "--target", part, dir+"/merge.yaml")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1, strings.Count(out, "missing-index"), out)
	require.Contains(t, out, "table byhand has no index on (order_id)")

	// Tables idem creates have their index; lint says nothing of them.
	for _, strategy := range []string{"partition", "merge"} {
		p := dir + "/" + strategy + "_new.yaml"
		require.NoError(t, os.WriteFile(p, []byte(job("made_"+strategy, strategy)), 0o644))
		code, _, errOut = run(t, "run", p, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
		require.Equal(t, 0, code, errOut)
		code, out, errOut = run(t, "lint", "--target", p)
		require.Equal(t, 0, code, errOut)
		require.NotContains(t, out, "missing-index")
	}
	// A table that does not exist yet will get its index when a run creates it.
	p := dir + "/none.yaml"
	require.NoError(t, os.WriteFile(p, []byte(job("not_yet", "merge")), 0o644))
	code, out, errOut = run(t, "lint", "--target", "--json", p)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "missing-index")
}
