package enginetest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/internal/hostile"
	"github.com/idemdata/idem/job"
)

// readOnlyCases: `idem checksum` reads and never writes, and no password
// reaches any output.
var readOnlyCases = []testCase{
	{"ChecksumWhereCannotWrite", testChecksumWhere},
	{"ChecksumOfWhatDoesNotExist", testChecksumMissing},
	{"PasswordsNeverPrinted", testPasswordsNeverPrinted},
}

// loadedForChecksum loads a table, a ledger and a sequence to attack.
func loadedForChecksum(t *testing.T, h Harness) (*Env, *job.Job) {
	e := NewEnv(t, h)
	e.Write("in/orders.csv", orders)
	j := e.Job(filesJob)
	e.MustRun(j, "2026-11-28")
	if q := h.spell().Sequence(e.Sales("s")); q != "" {
		e.Exec(q)
	}
	return e, j
}

// --where is one condition: a second statement, a comment, a UNION, a
// write hidden in a subquery or a function are refused, and the table, the
// ledger and the sequence are as before.
func testChecksumWhere(t *testing.T, h Harness) {
	e, _ := loadedForChecksum(t, h)
	want := e.Checksum("", "_loaded_at")
	table := e.Sales("orders")
	code, out := runIdem(t, nil, "checksum", e.URL, table, "--exclude", "_loaded_at", "--where", "true")
	require.Equal(t, 0, code, out)
	require.Equal(t, fmt.Sprintf("%s: %d rows, checksum %s\n", table, want.Rows, want.Checksum), out)
	code, out = runIdem(t, nil, "checksum", e.URL, table, "--exclude", "_loaded_at", "--where", "status = 'placed' AND note_free IS NULL OR true")
	require.NotEqual(t, 0, code, "an unknown column is the engine's error: %s", out)

	before := e.Trace()
	require.Equal(t, 1, before.LedgerRows)
	count := func() []string { return e.Query(`SELECT count(*) FROM ` + table) }
	rows := count()
	wheres := []string{
		"true; DROP TABLE idem_runs; SELECT 1",
		"true; DELETE FROM " + table,
		"true); DROP TABLE idem_runs; SELECT (1",
		"true -- ",
		"true /* a comment */",
		"true) UNION SELECT 1, '2' FROM idem_runs WHERE (true",
		"true UNION SELECT count(*), 'x' FROM idem_runs",
		`note = E'\''; DROP TABLE idem_runs; --'`,
		"order_id IN (DELETE FROM " + table + " RETURNING order_id)",
		"(WITH d AS (DELETE FROM " + table + " RETURNING 1) SELECT count(*) FROM d) >= 0",
		"(SELECT count(*) FROM (DELETE FROM idem_runs RETURNING 1) AS d) >= 0",
		"(SELECT count(*) FROM query('DROP TABLE idem_runs')) >= 0",
	}
	seq := h.spell().Sequence(e.Sales("s")) != ""
	if seq {
		wheres = append(wheres, h.spell().NextValue(e.Sales("s"))+" > 0")
	}
	for _, where := range wheres {
		code, out := runIdem(t, nil, "checksum", e.URL, table, "--where", where)
		require.NotEqual(t, 0, code, "--where %q must be refused: %s", where, out)
		require.Contains(t, out, "idem: ", where)
	}
	require.Equal(t, before, e.Trace(), "checksum changed nothing")
	require.Equal(t, rows, count())
	require.Equal(t, want, e.Checksum("", "_loaded_at"))
	if !seq {
		return
	}
	// The sequence was not advanced (its first value is still to come).
	var next []string
	e.DB(func(ctx context.Context, db engine.DB) {
		next = queryStrings(t, ctx, db.Conn(), "SELECT "+h.spell().NextValue(e.Sales("s")))
	})
	require.Equal(t, []string{"1"}, next)
}

// Checksum of a target, table or column that does not exist is an error
// (exit 2) that creates nothing.
func testChecksumMissing(t *testing.T, h Harness) {
	e := NewEnv(t, h)
	e.RequireUntouched(func() {
		code, out := runIdem(t, nil, "checksum", e.URL, e.Sales("orders"))
		require.Equal(t, 2, code, out)
		require.Regexp(t, `does not exist|file does not exist`, out)
	})
	require.Empty(t, e.Trace().Files, "no database file appears")

	e.Write("in/orders.csv", orders)
	e.MustRun(e.Job(filesJob), "2026-11-28")
	e.RequireUntouched(func() {
		code, out := runIdem(t, nil, "checksum", e.URL, e.Sales("nope"))
		require.Equal(t, 2, code, out)
		require.Contains(t, out, "table "+e.Sales("nope")+" does not exist")

		code, out = runIdem(t, nil, "checksum", e.URL, e.Sales("orders"), "--exclude", "_loaded_at,loaded_at")
		require.Equal(t, 2, code, out)
		require.Contains(t, out, `excluded column "loaded_at" of `+e.Sales("orders")+` does not exist; its columns: order_id, customer_id, created_at, status, amount, updated_at, _loaded_at`)
	})
}

// HostilePasswords are the shared hostile passwords (package hostile).
var HostilePasswords = hostile.Passwords

var fragmentRE = regexp.MustCompile(`[A-Za-z0-9]{4,}`)

// RequireNoPassword fails if any fragment of a typed password, or of its
// decoded form, is in text.
func RequireNoPassword(t *testing.T, text, typed, what string) {
	t.Helper()
	forms := append([]string{typed}, job.Secrets("postgres://u:"+typed+"@h/db")...)
	for _, f := range forms {
		for _, frag := range fragmentRE.FindAllString(f, -1) {
			if strings.Contains(frag, "Qz7") || strings.Contains(frag, "Wk9") || strings.Contains(frag, "Xy3") {
				require.NotContains(t, text, frag, "%s: password %q leaks", what, typed)
			}
		}
	}
}

// withPassword puts a password, as typed, into a server URL; ok is false
// for a URL without credentials (DuckDB).
func withPassword(target, typed string) (string, bool) {
	u, err := job.ParseServerURL(target)
	if err != nil {
		return "", false
	}
	user := u.User
	if user == "" {
		user = "postgres"
	}
	return u.Scheme + "://" + user + ":" + typed + "@" + u.Rest, true
}

// yamlQuote writes s as a YAML single-quoted scalar.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Every hostile password, in the job file, through ${VAR} and on the
// command line, through run (text, --json, -v), checksum (text, --json,
// -v) and their errors: no output holds any part of it. On an engine with
// server URLs whose server takes the password (trust authentication in
// tests), the runs succeed too.
//
// -short tries each password with a third of the commands, in turn (a
// Latin square: password i with the commands k where (i+k)%3 == 0), so
// every password and every command is still tried on every engine, at a
// third of the processes.
func testPasswordsNeverPrinted(t *testing.T, h Harness) {
	for i, pw := range HostilePasswords {
		// A target and a folder for each password, made by the parent: a
		// subtest's folder would be named after the password.
		e := NewEnv(t, h)
		e.Write("in/orders.csv", orders)
		e.Write("bad/in/orders.csv", orders+",16,2026-11-28 16:00:00,placed,3.00,2026-11-28 16:00:00\n")
		t.Run(pw, func(t *testing.T) {
			t.Parallel()
			e.t = t
			c := passwordCheck{t: t, e: e, pw: pw, i: i}
			if url, ok := withPassword(e.URL, pw); ok {
				if db, err := idem.Open(context.Background(), url, e.Dir, time.Minute); err == nil {
					db.Close()
					c.runAll("reachable", url, 0)
				} else {
					c.check("open", err.Error())
					t.Logf("the server refuses the password (%v); only failures are checked", err)
				}
			}
			// Engine-independent failures: unparsable (exit 2) and
			// unreachable (exit 75: try again later).
			c.runAll("unparsable", "postgres://adv_u:"+pw+"@127.0.0.1:notaport/db", 2)
			c.runAll("unreachable", "postgres://adv_u:"+pw+"@127.0.0.1:1/db?sslmode=disable&connect_timeout=2", 75)
		})
	}
}

// passwordCheck runs idem on targets whose URL holds the i-th hostile
// password pw, and checks no output holds it.
type passwordCheck struct {
	t  *testing.T
	e  *Env
	pw string
	i  int
}

// tries reports whether command k is tried with this password: all of
// them, or with -short a third (the Latin square above).
func (c passwordCheck) tries(k int) bool { return !testing.Short() || (c.i+k)%3 == 0 }

func (c passwordCheck) check(what, out string) {
	c.t.Helper()
	RequireNoPassword(c.t, out, c.pw, what)
}

func (c passwordCheck) jobFile(name, url, body string) string {
	return c.e.Write(name, fmt.Sprintf("idem: 1\ntarget:\n  url: %s\n  table: %s\n%s", url, c.e.Sales("orders"), body))
}

// runAll runs and checksums the target at url, the URL in the job file
// and through ${VAR}, each expected to exit okCode.
func (c passwordCheck) runAll(label, url string, okCode int) {
	t, e := c.t, c.e
	t.Helper()
	literal := c.jobFile("lit.yaml", yamlQuote(url), filesJob)
	viaEnv := c.jobFile("env.yaml", "${IDEM_T}", filesJob)
	env := []string{"IDEM_T=" + url}
	for k, args := range [][]string{
		{"run", literal, "--date", "2026-11-28", "--json"},
		{"-v", "run", literal, "--date", "2026-11-28", "--force"},
		{"run", viaEnv, "--date", "2026-11-28", "--json"},
		{"-v", "run", viaEnv, "--date", "2026-11-28"},
		{"checksum", url, e.Sales("orders"), "--exclude", "_loaded_at"},
		{"-v", "checksum", url, e.Sales("orders"), "--json"},
	} {
		if !c.tries(k) {
			continue
		}
		code, out := runIdem(t, env, args...)
		c.check(label+" "+strings.Join(args[:2], " "), out)
		require.Equal(t, okCode, code, "%s %v: %s", label, args, out)
	}
	if okCode == 0 {
		c.runFailures(label, url, env)
	}
}

// runFailures checks the failures of a reachable target: bad input, a
// missing table, a bad --where.
func (c passwordCheck) runFailures(label, url string, env []string) {
	t, e := c.t, c.e
	t.Helper()
	if c.tries(0) {
		failing := c.jobFile("bad/job.yaml", yamlQuote(url), filesJob)
		code, out := runIdem(t, env, "-v", "run", failing, "--date", "2026-11-28", "--json")
		c.check(label+" failing run", out)
		require.Equal(t, 1, code, out)
	}
	if c.tries(1) {
		code, out := runIdem(t, env, "-v", "checksum", url, e.Sales("nope"))
		c.check(label+" missing table", out)
		require.Equal(t, 2, code, out)
	}
	if c.tries(2) {
		code, out := runIdem(t, env, "checksum", url, e.Sales("orders"), "--where", "no_such_col = 1")
		c.check(label+" bad where", out)
		require.Equal(t, 1, code, out)
	}
}
