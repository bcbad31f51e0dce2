package cli_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
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
	schema := fmt.Sprintf("idem_lint_target_%d", os.Getpid())
	// The schema is dropped, then the connection closed, when the test
	// ends (a deferred Close would run first, and the drop fail unseen).
	t.Cleanup(func() {
		_, err := db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
		require.NoError(t, err)
		db.Close()
	})
	_, err = db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE; CREATE SCHEMA ` + schema +
		`; CREATE TABLE ` + schema + `.byhand (order_id BIGINT, d DATE, amount NUMERIC)`)
	require.NoError(t, err)
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

// TestLintTargetMissingIndexMySQL: on MySQL/MariaDB too, lint --target
// warns about a partition column without an index, with the statement (in
// backticks, for any client) that creates it; an index on a prefix of a
// column does not serve, one that leads with it does; a table idem created
// has it.
func TestLintTargetMissingIndexMySQL(t *testing.T) {
	db, dsn := enginetest.MySQLAdmin(t)
	name := fmt.Sprintf("idem_lint_index_%d", os.Getpid())
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name,
		"CREATE TABLE " + name + ".byhand (order_id BIGINT, d DATE, note TEXT, KEY (note(10)), UNIQUE KEY (order_id, d))"} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	t.Cleanup(func() {
		_, err := db.Exec("DROP DATABASE IF EXISTS " + name)
		require.NoError(t, err)
	})
	base, _, _ := strings.Cut(dsn, "?")
	target := base[:strings.LastIndex(base, "/")+1] + name
	dir := t.TempDir()
	write := func(job, table, column string) string {
		p := filepath.Join(dir, job+".yaml")
		body := fmt.Sprintf("idem: 1\njob: %s\ntarget:\n  url: %q\n  table: %s\nsource:\n  files: in.csv\nstrategy: partition\npartition:\n  column: %s\n", job, target, table, column)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.csv"), []byte("order_id,d,note\n1,2026-11-28,x\n"), 0o644))

	code, out, errOut := run(t, "lint", "--target", write("on_d", "byhand", "d"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1, strings.Count(out, "missing-index"), out)
	require.Contains(t, out, "table byhand has no index on (d)")
	require.Contains(t, out, "CREATE INDEX `byhand__idem_partition` ON `byhand` (`d`)")

	_, err := db.Exec("CREATE INDEX d_first ON " + name + ".byhand (d, order_id)")
	require.NoError(t, err)
	code, out, errOut = run(t, "lint", "--target", filepath.Join(dir, "on_d.yaml"))
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "missing-index")

	made := write("made", "made", "d")
	code, _, errOut = run(t, "run", made, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z")
	require.Equal(t, 0, code, errOut)
	code, out, errOut = run(t, "lint", "--target", made)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "missing-index")
}

// TestLintTargetKeyCollation: lint --target warns about a MySQL key column
// whose collation ignores case, accents or trailing spaces, with the
// ALTER that fixes it, in text and in JSON; a column of a bytewise
// collation, and a numeric key, get no warning.
func TestLintTargetKeyCollation(t *testing.T) {
	db, dsn := enginetest.MySQLAdmin(t)
	name := fmt.Sprintf("idem_lint_coll_%d", os.Getpid())
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name,
		"CREATE TABLE " + name + ".ci (code VARCHAR(12) COLLATE utf8mb4_general_ci, d DATE, UNIQUE KEY (code))",
		"CREATE TABLE " + name + ".padded (code VARCHAR(12) COLLATE utf8mb4_bin NOT NULL, d DATE, UNIQUE KEY (code))",
		"CREATE TABLE " + name + ".bytewise (code VARCHAR(12) COLLATE utf8mb4_nopad_bin, d DATE, UNIQUE KEY (code))",
		"CREATE TABLE " + name + ".numeric (code BIGINT, d DATE, UNIQUE KEY (code))"} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	t.Cleanup(func() { // before MySQLAdmin's close
		_, err := db.Exec("DROP DATABASE IF EXISTS " + name)
		require.NoError(t, err)
	})
	base, _, _ := strings.Cut(dsn, "?")
	target := base[:strings.LastIndex(base, "/")+1] + name

	dir := t.TempDir()
	var paths []string
	for _, table := range []string{"ci", "padded", "bytewise", "numeric"} {
		p := filepath.Join(dir, table+".yaml")
		body := fmt.Sprintf("idem: 1\njob: %s\ntarget:\n  url: %q\n  table: %s\nsource:\n  files: in.csv\nstrategy: merge\nkey: [code]\nlatest_by: d\n", table, target, table)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		paths = append(paths, p)
	}
	code, out, errOut := run(t, append([]string{"lint", "--target"}, paths...)...)
	require.Equal(t, 0, code, errOut)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "key-collation") {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 2, out)
	require.Contains(t, lines[0], "ci.yaml: warning: key-collation: key column code of table ci has the collation utf8mb4_general_ci, which ignores case, accents and trailing spaces")
	require.Contains(t, lines[0], "ALTER TABLE `ci` MODIFY `code` varchar(12) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")
	require.NotContains(t, lines[0], "NOT NULL")
	require.Contains(t, lines[1], "padded.yaml: warning: key-collation: key column code of table padded has the collation utf8mb4_bin, which ignores trailing spaces")
	require.Contains(t, lines[1], "COLLATE utf8mb4_nopad_bin NOT NULL")

	code, out, errOut = run(t, "lint", "--target", "--json", paths[0])
	require.Equal(t, 0, code, errOut)
	var found map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m["name"] == "key-collation" {
			found = m
		}
	}
	require.NotNil(t, found, out)
	require.Equal(t, "warning", found["severity"])
	require.Equal(t, "utf8mb4_general_ci", found["column"].(map[string]any)["collation"])
}
