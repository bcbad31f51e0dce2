// Package enginetest is the conformance suite every engine runs unchanged:
// the guarantees of SPEC.md, one test each, through the library API and the
// real binary. An engine that does not pass it does not ship.
package enginetest

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
	"github.com/idemdata/idem/runner"
)

// Harness is what an engine gives the suite.
type Harness struct {
	// Target returns the URL of a fresh, empty target for one test (its own
	// file, schema or database).
	Target func(t *testing.T) string
	// GeneratedKeyTable returns the DDL creating schema.table with columns
	// (order_id, status, updated_at) whose order_id the database generates
	// (a sequence, serial or identity).
	GeneratedKeyTable func(schema, table string) []string
	// InProcess runs only the cases that need no idem binary: for a
	// test-only engine (registered by a test), which the binary does not
	// know. Cases that start the binary skip, saying so.
	InProcess bool
	// Spelling is how the engine spells the SQL the suite writes itself;
	// its zero fields take the spelling DuckDB and PostgreSQL share.
	Spelling Spelling
	// Schemas names the two schemas the suite's jobs write to ("sales"
	// and "fresh_schema") for the test t, when tests must not share them:
	// on MySQL a schema is a database of the whole server, so tests
	// running at once would share sales.orders. Plain identifiers, the
	// same for every target of t (a job's run id hashes its table). Golden
	// files hold them as "sales". nil: "sales" and "fresh_schema", inside
	// each target's own file or database.
	Schemas func(t *testing.T) (sales, fresh string)
	// Steady rewrites the names in a run's SQL that depend on what else
	// the test process runs at that moment (MySQL numbers its LOAD DATA
	// readers lowest-free across the process), so that plans, runs and
	// golden files compare equal while other tests load at once. nil:
	// there are none.
	Steady func(sql string) string
	// Unsupported names cases that do not apply to this engine, each with
	// why; they skip, saying so. Real engines leave it empty: every
	// guarantee holds on every engine.
	Unsupported map[string]string
	// Before, if set, runs at the end of NewEnv: a variant of an engine's
	// harness that sets each target up otherwise, to take another of the
	// engine's paths (MySQL's creates the sales schema first, so a first
	// load finds it and loads straight into the table it builds).
	Before func(e *Env)
}

// Spelling is the SQL the suite writes itself (to set a target up, to
// trace it, nondeterministic sources) that engines spell differently. A
// zero field is the spelling DuckDB and PostgreSQL share.
type Spelling struct {
	// TraceSchemas selects the target's schemas, sorted; TraceTables its
	// tables as schema.table, sorted. Neither lists the engine's own.
	TraceSchemas, TraceTables string
	// Timestamp is the type a CAST makes a wall-clock timestamp with.
	Timestamp string
	// Random is a random number, new on each evaluation.
	Random string
	// NowText is the current time, as text.
	NowText string
	// UniqueIndex creates unique index %[1]s on table %[2]s (schema.table)
	// column %[3]s, as a table's owner would; "none" when the engine has no
	// unique index (the case comparing merges with and without one skips).
	UniqueIndex string
	// SleepWhere is a condition that holds after sleeping 1.5 seconds;
	// "none" when the engine has no sleep in SQL (the case skips).
	SleepWhere string
	// Sequence creates a sequence; NextValue is the expression advancing
	// it. "" in Sequence: the engine has none (the attack is left out).
	Sequence, NextValue func(name string) string
	// HeldTables lists the target's tables, schema.table, while another
	// process holds it, for an embedded database that only its holder can
	// query (nil: the suite queries the target).
	HeldTables func(url string) ([]string, error)
	// CreateAs goes between CREATE TABLE name and a SELECT, creating a
	// table of the query's columns (" AS" when "").
	CreateAs string
	// OldLedger creates an idem_runs as idem 0.0.1 did (without
	// deleted_absent) and inserts one row: ('old', '2026-10-01', 'r0', 1,
	// 'f', 'd', 'merge', 1, 0, 0, 1, 0, 0, 0, 1, '0', true, started and
	// finished 2026-10-02 00:00:00 and :01 UTC, '0.0.1').
	OldLedger []string
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// steady is h.Steady, or the identity.
func (h Harness) steady(sql string) string {
	if h.Steady == nil {
		return sql
	}
	return h.Steady(sql)
}

// spell is h's Spelling with its zero fields filled in.
func (h Harness) spell() Spelling {
	s := h.Spelling
	user := ` NOT IN ('information_schema', 'pg_catalog', 'pg_toast') AND left(%[1]s, 3) <> 'pg_'`
	s.TraceSchemas = or(s.TraceSchemas, `SELECT schema_name FROM information_schema.schemata
WHERE catalog_name = current_database() AND schema_name`+fmt.Sprintf(user, "schema_name")+` ORDER BY 1`)
	s.TraceTables = or(s.TraceTables, `SELECT table_schema || '.' || table_name FROM information_schema.tables
WHERE table_catalog = current_database() AND table_schema`+fmt.Sprintf(user, "table_schema")+` ORDER BY 1`)
	s.Timestamp = or(s.Timestamp, "TIMESTAMP")
	s.CreateAs = or(s.CreateAs, " AS")
	s.Random = or(s.Random, "random()")
	s.UniqueIndex = or(s.UniqueIndex, "CREATE UNIQUE INDEX %[1]s ON %[2]s (%[3]s)")
	s.NowText = or(s.NowText, "CAST(now() AS VARCHAR(40))")
	s.SleepWhere = or(s.SleepWhere, "(SELECT count(*) FROM pg_sleep(1.5)) = 1")
	if s.Sequence == nil {
		s.Sequence = func(name string) string { return "CREATE SEQUENCE " + name }
		s.NextValue = func(name string) string { return "nextval('" + name + "')" }
	}
	if s.OldLedger == nil {
		s.OldLedger = []string{`CREATE TABLE idem_runs (job VARCHAR NOT NULL, "partition" VARCHAR NOT NULL, run_id VARCHAR NOT NULL,
  seq BIGINT NOT NULL, input_fingerprint VARCHAR NOT NULL, definition_hash VARCHAR NOT NULL, strategy VARCHAR NOT NULL,
  rows_in BIGINT NOT NULL, rows_deduped BIGINT NOT NULL, rows_out_of_window BIGINT NOT NULL, inserted BIGINT NOT NULL,
  updated BIGINT NOT NULL, deleted BIGINT NOT NULL, skipped_older BIGINT NOT NULL, row_count BIGINT NOT NULL,
  checksum VARCHAR NOT NULL, partition_closed BOOLEAN NOT NULL, started_at TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ NOT NULL, idem_version VARCHAR NOT NULL, PRIMARY KEY (job, "partition", run_id))`,
			`INSERT INTO idem_runs VALUES ('old', '2026-10-01', 'r0', 1, 'f', 'd', 'merge', 1, 0, 0, 1, 0, 0, 0, 1, '0', true,
  TIMESTAMPTZ '2026-10-02 00:00:00+00', TIMESTAMPTZ '2026-10-02 00:00:01+00', '0.0.1')`}
	}
	return s
}

// inProcess holds the names of the tests running a harness with
// InProcess; Binary skips their cases.
var inProcess sync.Map

func skipIfInProcess(t testing.TB) {
	for name := t.Name(); name != ""; {
		if _, ok := inProcess.Load(name); ok {
			t.Skip("needs the idem binary, which does not know this test-only engine")
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			break
		}
		name = name[:i]
	}
}

// Env is one test's target and working folder.
type Env struct {
	t   *testing.T
	h   Harness
	URL string
	Dir string
	Now time.Time
	// Schema is the schema the suite's tables live in ("sales" unless
	// the harness names one per test); Fresh is a schema no run has
	// created ("fresh_schema").
	Schema, Fresh string
	// Table is the target table Checksum and Rows read.
	Table  engine.Table
	jobSeq int
}

// NewEnv prepares a target and a folder for job files and inputs.
func NewEnv(t *testing.T, h Harness) *Env {
	t.Helper()
	e := &Env{t: t, h: h, URL: h.Target(t), Dir: t.TempDir(), Now: time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC),
		Schema: "sales", Fresh: "fresh_schema"}
	if h.Schemas != nil {
		e.Schema, e.Fresh = h.Schemas(t)
	}
	e.Table = engine.Table{Schema: e.Schema, Name: "orders"}
	if h.Before != nil {
		h.Before(e)
	}
	return e
}

// Sales is a table of the env's sales schema, qualified: "sales.orders".
func (e *Env) Sales(table string) string { return e.Schema + "." + table }

// Write writes a file under the env's folder.
func (e *Env) Write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.Dir, name)
	require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(e.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// Job writes and parses a job file whose body follows the target lines.
func (e *Env) Job(body string) *job.Job {
	e.t.Helper()
	e.jobSeq++
	text := fmt.Sprintf("idem: 1\ntarget:\n  url: %s\n  table: %s\n%s", e.URL, e.Sales("orders"), body)
	path := e.Write(fmt.Sprintf("job%d.yaml", e.jobSeq), text)
	j, err := job.Load(path)
	require.NoError(e.t, err)
	return j
}

// jobWithTarget is Job, with target.shared_with naming other when shared.
func (e *Env) jobWithTarget(body string, shared bool, other string) *job.Job {
	e.t.Helper()
	e.jobSeq++
	extra := ""
	if shared {
		extra = "  shared_with: [" + other + "]\n"
	}
	text := fmt.Sprintf("idem: 1\ntarget:\n  url: %s\n  table: %s\n%s%s", e.URL, e.Sales("orders"), extra, body)
	path := e.Write(fmt.Sprintf("job%d.yaml", e.jobSeq), text)
	j, err := job.Load(path)
	require.NoError(e.t, err)
	return j
}

// Run runs j for date and returns its one result.
func (e *Env) Run(j *job.Job, date string, mod ...func(*idem.Options)) (runner.Result, error) {
	e.t.Helper()
	opts := idem.Options{Date: date, AsOf: e.Now, Now: func() time.Time { return e.Now }, LockTimeout: time.Minute}
	for _, m := range mod {
		m(&opts)
	}
	rs, err := idem.Run(context.Background(), j, opts)
	if len(rs) == 0 {
		return runner.Result{}, err
	}
	return rs[len(rs)-1], err
}

// MustRun runs j and fails the test on error.
func (e *Env) MustRun(j *job.Job, date string, mod ...func(*idem.Options)) runner.Result {
	e.t.Helper()
	r, err := e.Run(j, date, mod...)
	require.NoError(e.t, err)
	return r
}

// Force is an option that reloads.
func Force(o *idem.Options) { o.Force = true }

// DB opens the target for a check and closes it before returning (DuckDB
// allows one open handle per file).
func (e *Env) DB(fn func(ctx context.Context, db engine.DB)) {
	e.t.Helper()
	ctx := context.Background()
	db, err := idem.Open(ctx, e.URL, e.Dir, time.Minute)
	require.NoError(e.t, err)
	defer db.Close()
	fn(ctx, db)
}

// Exchanges reports whether the target's engine has no transactions and
// swaps new data in instead (engine.PartitionExchanger): the suite says
// where that meets a guarantee differently.
func (e *Env) Exchanges() bool {
	e.t.Helper()
	return e.engineIs("exchanges", func(db engine.DB) bool { return db.Capabilities().Commit == engine.CommitExchange })
}

// engineIs answers a question about the target's engine (what, by
// probe), opening a target once per question and URL scheme in the test
// process: the answer is the engine's, the same for all its targets.
func (e *Env) engineIs(what string, probe func(engine.DB) bool) bool {
	e.t.Helper()
	scheme, _, _ := strings.Cut(e.URL, ":")
	key := what + "\x00" + scheme
	if ok, known := engineAnswers.Load(key); known {
		return ok.(bool)
	}
	var ok bool
	e.DB(func(_ context.Context, db engine.DB) { ok = probe(db) })
	engineAnswers.Store(key, ok)
	return ok
}

// engineAnswers caches engineIs by question and URL scheme.
var engineAnswers sync.Map

// Exec runs setup SQL on the target.
func (e *Env) Exec(queries ...string) {
	e.t.Helper()
	e.DB(func(ctx context.Context, db engine.DB) {
		for _, q := range queries {
			_, err := db.Conn().ExecContext(ctx, q)
			require.NoError(e.t, err, q)
		}
	})
}

// Sum is a table's (or partition's) row count and checksum.
type Sum struct {
	Rows     int64
	Checksum string
}

// Checksum returns the count and checksum of the target table rows where
// where holds, without the loaded_at column.
func (e *Env) Checksum(where string, exclude ...string) Sum {
	e.t.Helper()
	var s Sum
	e.DB(func(ctx context.Context, db engine.DB) {
		var err error
		s.Rows, s.Checksum, err = runner.TableChecksum(ctx, db, e.Table, where, exclude)
		require.NoError(e.t, err)
	})
	return s
}

// Rows returns the target's rows where where holds, each rendered as text,
// sorted: for asserting which rows changed.
func (e *Env) Rows(where string, cols ...string) []string {
	e.t.Helper()
	var out []string
	e.DB(func(ctx context.Context, db engine.DB) {
		d := db.SQL()
		list := make([]string, len(cols))
		for i, c := range cols {
			list[i] = d.Ident(c)
		}
		q := fmt.Sprintf("SELECT %s FROM %s", strings.Join(list, ", "), d.Table(e.Table))
		if where != "" {
			q += " WHERE " + where
		}
		out = queryStrings(e.t, ctx, db.Conn(), q)
	})
	sort.Strings(out)
	return out
}

// P is the engine's n-th (1-based) bind parameter, for Query.
func (e *Env) P(n int) string {
	e.t.Helper()
	var p string
	e.DB(func(_ context.Context, db engine.DB) { p = db.SQL().Placeholder(n) })
	return p
}

// Query returns a query's rows as text, in the order returned.
func (e *Env) Query(q string, args ...any) []string {
	e.t.Helper()
	var out []string
	e.DB(func(ctx context.Context, db engine.DB) {
		out = queryStrings(e.t, ctx, db.Conn(), q, args...)
	})
	return out
}

func queryStrings(t *testing.T, ctx context.Context, q engine.Querier, query string, args ...any) []string {
	t.Helper()
	rows, err := q.QueryContext(ctx, query, args...)
	require.NoError(t, err, query)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		parts := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				parts[i] = "NULL"
			case []byte:
				parts[i] = string(x)
			case time.Time:
				parts[i] = x.UTC().Format("2006-01-02 15:04:05")
			default:
				parts[i] = fmt.Sprint(x)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	require.NoError(t, rows.Err())
	return out
}

// LedgerRows counts idem_runs rows for (job, partition[, run_id]); none
// when no run has created the ledger yet.
func (e *Env) LedgerRows(jobName, partition, runID string) int {
	e.t.Helper()
	var n int
	e.DB(func(ctx context.Context, db engine.DB) {
		if exists, err := ledger.Exists(ctx, db.Conn(), db); !exists {
			require.NoError(e.t, err)
			return
		}
		d := db.SQL()
		q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = %s AND %s = %s", d.Table(db.Names().Ledger),
			d.Ident("job"), d.Placeholder(1), d.Ident("partition"), d.Placeholder(2))
		args := []any{jobName, partition}
		if runID != "" {
			q += fmt.Sprintf(" AND %s = %s", d.Ident("run_id"), d.Placeholder(3))
			args = append(args, runID)
		}
		require.NoError(e.t, db.Conn().QueryRowContext(ctx, q, args...).Scan(&n))
	})
	return n
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary builds cmd/idem once per test process, for tests that must kill a
// real process. It builds to one path per checkout, under a file lock, so
// the test processes of several packages share one binary and, when no
// source changed, go build finds it up to date instead of linking again
// (a link of DuckDB takes seconds, a minute on a busy machine). That path
// is a cache, not a temporary file: BinaryCache/<checkout hash>/idem, kept
// between runs for that reason. A checkout's folder there is removed by
// the first test run after the checkout itself is gone (CI's clones), so
// the cache holds one binary per living checkout.
func Binary(t testing.TB) string {
	t.Helper()
	skipIfInProcess(t)
	binOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
		if err != nil {
			binErr = err
			return
		}
		h := fnv.New64a()
		h.Write([]byte(root))
		sum := h.Sum64()
		os.RemoveAll(filepath.Join(os.TempDir(), fmt.Sprintf("idem-test-bin-%x", sum))) // where older versions built it
		cache := BinaryCache()
		pruneBinaries(cache)
		dir := filepath.Join(cache, fmt.Sprintf("%x", sum))
		if binErr = os.MkdirAll(dir, 0o755); binErr != nil {
			return
		}
		if binErr = os.WriteFile(filepath.Join(dir, "checkout"), []byte(root), 0o644); binErr != nil {
			return
		}
		unlock, err := lockFile(filepath.Join(dir, "lock"))
		if err != nil {
			binErr = err
			return
		}
		defer unlock()
		binPath = filepath.Join(dir, "idem")
		// The tag adds the test-only duckdb-swap: engine (swapfake);
		// IDEM_TEST_TAGS adds the tests' own (no_mysql, …: engines left out).
		tags := "idem_swap_fake"
		if more := os.Getenv("IDEM_TEST_TAGS"); more != "" {
			tags += "," + more
		}
		cmd := exec.Command("go", "build", "-tags", tags, "-o", binPath, "./cmd/idem")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

// BinaryCache is the folder Binary builds in: the user's cache folder's
// idem/test-bin (~/.cache/idem/test-bin on Linux), or the temporary
// folder's idem-test-bin where the user has none.
func BinaryCache() string {
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "idem", "test-bin")
	}
	return filepath.Join(os.TempDir(), "idem-test-bin")
}

// pruneBinaries removes the folders of cache whose checkout is gone.
func pruneBinaries(cache string) {
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		dir := filepath.Join(cache, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "checkout"))
		if err != nil {
			continue // not one of Binary's, or still being made
		}
		if _, err := os.Stat(filepath.Join(string(b), "go.mod")); os.IsNotExist(err) {
			os.RemoveAll(dir)
		}
	}
}

// RunBinary runs the idem binary with args and extra environment, and
// returns its exit code, stdout and stderr.
func RunBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "running idem: %v", err)
		code = ee.ExitCode() // -1 when killed by a signal
	}
	return code, stdout.String(), stderr.String()
}
