package enginetest

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Golden runs each case under testdata/golden and compares the SQL the run
// executed with <case>/<engine>.golden.sql. With -update it rewrites them.
// `idem plan` prints the same statements.
func Golden(t *testing.T, h Harness, engineName string) {
	root := goldenRoot()
	cases, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			t.Parallel()
			e, j, date := goldenCase(t, h, root, c.Name())
			var stmts []string
			_, err = idem.Run(context.Background(), j, idem.Options{
				Date: date, AsOf: e.Now, Now: func() time.Time { return e.Now },
				Record: func(q string) { stmts = append(stmts, q) },
			})
			require.NoError(t, err)
			got := h.steady(e.canonical(j, strings.ReplaceAll(strings.Join(stmts, ";\n\n")+";\n", e.Dir, "$DIR")))
			compareGolden(t, filepath.Join(root, c.Name(), engineName+".golden.sql"), got)
		})
	}
}

// goldenRoot is testdata/golden, wherever the test runs from.
func goldenRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "golden")
}

// goldenCase copies a golden case into a fresh env, runs its setup.sql,
// and returns its job and date.
func goldenCase(t *testing.T, h Harness, root, name string) (*Env, *job.Job, string) {
	e := NewEnv(t, h)
	require.NoError(t, os.CopyFS(e.Dir, os.DirFS(filepath.Join(root, name))))
	if setup, err := os.ReadFile(filepath.Join(e.Dir, "setup.sql")); err == nil {
		for _, q := range strings.Split(string(setup), ";\n") {
			if q = strings.TrimSpace(q); q != "" {
				e.Exec(q)
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(e.Dir, "job.yaml"))
	require.NoError(t, err)
	data = []byte(strings.ReplaceAll(string(data), "table: sales.", "table: "+e.Schema+"."))
	j, err := job.Parse(data, e.Dir, func(k string) (string, bool) {
		return e.URL, k == "IDEM_TARGET"
	})
	require.NoError(t, err)
	date, err := os.ReadFile(filepath.Join(e.Dir, "date"))
	require.NoError(t, err)
	return e, j, strings.TrimSpace(string(date))
}

// canonical maps what a run of j on e printed back to the names of a
// target whose schema is "sales", as the golden files hold them: the env's
// own schema (Harness.Schemas), and the words of the table's lock that
// differ with the schema (on MySQL, GET_LOCK names hash it).
func (e *Env) canonical(j *job.Job, text string) string {
	e.t.Helper()
	if e.Schema == "sales" {
		return text
	}
	var pairs []string
	if t := engine.Table(j.Table()); t.Schema == e.Schema {
		e.DB(func(_ context.Context, db engine.DB) {
			ld := db.Capabilities().Locks
			words := regexp.MustCompile(`[A-Za-z0-9_]+`)
			mine := words.FindAllString(ld.DescribeLock(engine.LockScope{Table: t}), -1)
			fixed := words.FindAllString(ld.DescribeLock(engine.LockScope{Table: engine.Table{Schema: "sales", Name: t.Name}}), -1)
			require.Len(e.t, mine, len(fixed), "a lock's description differs only in words")
			for i := range mine {
				if mine[i] != fixed[i] {
					pairs = append(pairs, mine[i], fixed[i])
				}
			}
		})
	}
	return strings.NewReplacer(append(pairs, e.Schema, "sales")...).Replace(text)
}

// compareGolden compares got with the golden file, or rewrites it with
// -update.
func compareGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update to create it")
	require.Equal(t, string(want), got)
}
