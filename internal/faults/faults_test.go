package faults_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/ledger"
	"github.com/idemdata/idem/runner"
)

var pgServer = enginetest.Postgres

// The partitions and the reference time every run uses: no clock.
const (
	day1 = "2026-11-28"
	day2 = "2026-11-29"
	asOf = "2026-12-01T00:00:00Z"
)

// tableOf is where every job of this package writes on the target at u:
// sales.orders, except on MySQL, where a schema is a database of the whole
// server, so the table lives in the target's own database (the URL's).
func tableOf(u string) engine.Table {
	if strings.HasPrefix(u, "mysql:") {
		return engine.Table{Name: "orders"}
	}
	return engine.Table{Schema: "sales", Name: "orders"}
}

// envInt reads a count from the environment, or returns def.
func envInt(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%q is not a number", name, v)
	require.GreaterOrEqual(t, n, 0, name)
	return n
}

// target makes targets of one engine: fresh ones, and copies of one
// holding the old contents, so that every fault starts from the same state.
type target interface {
	name() string
	// fresh returns the URL of a new, empty target.
	fresh(t *testing.T, name string) string
	// copyOf returns a new target holding what the one at src holds, and a
	// function that removes it.
	copyOf(t *testing.T, src, name string) (string, func())
	// settle waits until no session of a killed run is left on url: a
	// server finishes the statement it was running before it notices that
	// its client is gone, and a COMMIT already sent may still land.
	settle(t *testing.T, url string)
	// exchanges reports whether the engine commits by swapping tables and
	// writes the ledger row after the swap (ClickHouse): a run stopped
	// between the two leaves the new contents and no ledger row of them.
	exchanges() bool
}

// serverTarget is a target on a server, which can end a run's sessions
// and show which of them wait for a lock.
type serverTarget interface {
	target
	// terminate ends every session on the target at u, as an
	// administrator would; it returns how many it ended.
	terminate(t *testing.T, u string) int
	// waiting returns the sessions on the target at u that wait for a lock.
	waiting(u string) ([]int64, error)
}

type duckTarget struct{ dir string }

func (duckTarget) name() string { return "duckdb" }

func (d duckTarget) fresh(t *testing.T, name string) string {
	return "duckdb:" + filepath.Join(d.dir, name+".duckdb")
}

func (d duckTarget) copyOf(t *testing.T, src, name string) (string, func()) {
	t.Helper()
	from := strings.TrimPrefix(src, "duckdb:")
	to := filepath.Join(d.dir, name+".duckdb")
	remove := func() {
		os.Remove(to)
		os.Remove(to + ".wal")
	}
	remove()
	copyFile(t, from, to)
	if _, err := os.Stat(from + ".wal"); err == nil {
		copyFile(t, from+".wal", to+".wal")
	}
	return "duckdb:" + to, remove
}

// settle has nothing to wait for: the killed process was the database.
func (duckTarget) settle(*testing.T, string) {}

func (duckTarget) exchanges() bool { return false }

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.Create(to)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

type pgTarget struct {
	serverDBs
	admin *sql.DB
}

func newPGTarget(t *testing.T) pgTarget {
	t.Helper()
	dsn := pgServer.DSN(t)
	admin, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() })
	return pgTarget{serverDBs: serverDBs{dsn}, admin: admin}
}

func (pgTarget) name() string { return "postgres" }

func (pgTarget) exchanges() bool { return false }

// serverDBs names the databases of one server's targets: a database each,
// reached by the server's URL with its path replaced.
type serverDBs struct{ dsn string }

// dbSeq numbers the databases of this process (names are unique on the
// server while the process lives).
var dbSeq atomic.Int64

func (s serverDBs) dbName(name string) string {
	return fmt.Sprintf("idem_f_%d_%d_%s", os.Getpid(), dbSeq.Add(1), name)
}

func (s serverDBs) urlOf(db string) string {
	u, err := url.Parse(s.dsn)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + db
	return u.String()
}

// dbOf is the database of the target at u.
func (s serverDBs) dbOf(t *testing.T, u string) string {
	t.Helper()
	db, err := databaseOf(u)
	require.NoError(t, err)
	return db
}

func databaseOf(u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(pu.Path, "/"), nil
}

func (p pgTarget) fresh(t *testing.T, name string) string {
	t.Helper()
	db := p.dbName(name)
	_, err := p.admin.Exec(fmt.Sprintf(`CREATE DATABASE %q`, db))
	require.NoError(t, err)
	t.Cleanup(func() { p.drop(t, db) })
	return p.urlOf(db)
}

// copyOf copies the database file by file (a template copy takes a
// fraction of a second where reloading a million rows takes seconds).
func (p pgTarget) copyOf(t *testing.T, src, name string) (string, func()) {
	t.Helper()
	db := p.dbName(name)
	_, err := p.admin.Exec(fmt.Sprintf(`CREATE DATABASE %q TEMPLATE %q STRATEGY FILE_COPY`, db, p.dbOf(t, src)))
	require.NoError(t, err)
	return p.urlOf(db), func() { p.drop(t, db) }
}

func (p pgTarget) drop(t *testing.T, db string) {
	// FORCE ends sessions a killed idem process may have left behind.
	if _, err := p.admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, db)); err != nil {
		t.Errorf("dropping test database %s: %v", db, err)
	}
}

func (p pgTarget) settle(t *testing.T, u string) {
	t.Helper()
	db := p.dbOf(t, u)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var n int
		require.NoError(t, p.admin.QueryRow(`SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE datname = $1`, db).Scan(&n))
		if n == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d sessions of a killed run still on %s after 2 minutes", n, db)
		time.Sleep(20 * time.Millisecond)
	}
}

func (p pgTarget) terminate(t *testing.T, u string) int {
	t.Helper()
	var n int
	require.NoError(t, p.admin.QueryRow(`SELECT count(*) FILTER (WHERE pg_catalog.pg_terminate_backend(pid)) FROM pg_catalog.pg_stat_activity WHERE datname = $1`,
		p.dbOf(t, u)).Scan(&n))
	return n
}

// waiting returns the sessions on the target at u waiting for a lock
// (pg_locks, not granted).
func (p pgTarget) waiting(u string) ([]int64, error) {
	db, err := databaseOf(u)
	if err != nil {
		return nil, err
	}
	rows, err := p.admin.Query(`SELECT DISTINCT l.pid FROM pg_catalog.pg_locks AS l
JOIN pg_catalog.pg_database AS d ON d.oid = l.database WHERE NOT l.granted AND d.datname = $1`, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pids []int64
	for rows.Next() {
		var pid int64
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		pids = append(pids, pid)
	}
	return pids, rows.Err()
}

// serverTargets are the server engines' targets, for the tests that end
// sessions and race writers: PostgreSQL and MySQL.
var serverTargets = []struct {
	name string
	make func(t *testing.T) serverTarget
}{
	{"postgres", func(t *testing.T) serverTarget { return newPGTarget(t) }},
	{"mysql", func(t *testing.T) serverTarget { return newMySQLTarget(t) }},
}

// writeOrders writes rows lo..hi-1 of the generated orders: the same bytes
// for the same arguments, so run ids and checksums repeat from run to run.
// change says, per row, whether it is a newer version (another status, a
// higher amount, a later updated_at on updatedDay).
func writeOrders(t *testing.T, path string, lo, hi int, change func(i int) bool, updatedDay string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "order_id,customer_id,created_at,status,amount,updated_at")
	for i := lo; i < hi; i++ {
		s := i % 86400
		hh, mm, ss := s/3600, s/60%60, s%60
		status, bump, upd := "placed", 0, day1
		if change != nil && change(i) {
			status, bump, upd = "shipped", 1, updatedDay
		}
		fmt.Fprintf(w, "%d,%d,%s %02d:%02d:%02d,%s,%d.%02d,%s %02d:%02d:%02d\n",
			i, i%9973, day1, hh, mm, ss, status, i%1000+bump, i%100, upd, hh, mm, ss)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// link makes dst name the same file as src (a job's input, switched
// without copying a large file).
func link(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	os.Remove(dst)
	require.NoError(t, os.Link(src, dst))
}

// writeJob writes a job file whose target is ${IDEM_FAULT_TARGET} and
// table ${IDEM_FAULT_TABLE}: the definition hash, and so the run id, is the
// same for every copy of the target.
func writeJob(t *testing.T, dir, name, body string) string {
	t.Helper()
	return writeJobAs(t, dir, name, name, body)
}

// writeJobAs writes job jobName to file.yaml; a body that starts indented
// continues the target mapping (shared_with).
func writeJobAs(t *testing.T, dir, file, jobName, body string) string {
	t.Helper()
	p := filepath.Join(dir, file+".yaml")
	text := fmt.Sprintf("idem: 1\njob: %s\ntarget:\n  url: ${IDEM_FAULT_TARGET}\n  table: ${IDEM_FAULT_TABLE}\n%s", jobName, body)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

const partitionBody = `source:
  files: in/orders.csv
strategy: partition
partition:
  column: created_at
key: [order_id]
latest_by: updated_at
`

const mergeBody = `source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id]
latest_by: updated_at
`

// proc is one finished idem process.
type proc struct {
	code           int  // exit code; -1 when killed by a signal
	killed         bool // ended by SIGKILL
	stdout, stderr string
	took           time.Duration
}

// idemCmd prepares the idem binary against the target at u.
func idemCmd(t testing.TB, u string, args ...string) *exec.Cmd {
	cmd := exec.Command(enginetest.Binary(t), args...)
	cmd.Env = append(os.Environ(), "IDEM_FAULT_TARGET="+u, "IDEM_FAULT_TABLE="+job.TableName(tableOf(u)).String())
	return cmd
}

// runIdem runs idem to its end. during, if set, is called after start with
// the process, so that a fault can be injected while it runs; it must not
// call t.FailNow.
func runIdem(t testing.TB, u string, during func(*os.Process), args ...string) proc {
	t.Helper()
	return runCmd(t, idemCmd(t, u, args...), during)
}

// runIdemIn is runIdem with the process's temporary folder (TMPDIR) at
// tmp, where what a killed run leaves behind can be seen.
func runIdemIn(t testing.TB, u, tmp string, during func(*os.Process), args ...string) proc {
	t.Helper()
	cmd := idemCmd(t, u, args...)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	return runCmd(t, cmd, during)
}

// runCmd runs cmd to its end; see runIdem.
func runCmd(t testing.TB, cmd *exec.Cmd, during func(*os.Process)) proc {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	require.NoError(t, cmd.Start())
	if during != nil {
		during(cmd.Process)
	}
	err := cmd.Wait()
	p := proc{took: time.Since(began)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		p.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			p.killed = true
		}
	default:
		require.NoError(t, err)
	}
	p.stdout, p.stderr = stdout.String(), stderr.String()
	return p
}

// result parses the one --json line of a run that exited 0.
func (p proc) result(t testing.TB) runner.Result {
	t.Helper()
	require.Equal(t, 0, p.code, "stderr: %s", p.stderr)
	var r runner.Result
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(p.stdout)), &r), p.stdout)
	return r
}

// contents is what a target holds that a fault could damage: the table's
// rows (count and checksum) and the ledger's word on them.
type contents struct {
	rows int64
	sum  string
	last *ledger.Entry // the ledger's latest run of the faulted partition
}

// look reads the target at u.
func look(t *testing.T, u, jobName, partition string) contents {
	t.Helper()
	ctx := context.Background()
	db, err := idem.Open(ctx, u, t.TempDir(), time.Minute)
	require.NoError(t, err)
	defer db.Close()
	var c contents
	c.rows, c.sum, err = runner.TableChecksum(ctx, db, tableOf(u), "", nil)
	if errors.Is(err, runner.ErrNotFound) { // a merge's first load killed before its table was made
		c.rows, c.sum, err = 0, noTable, nil
	}
	require.NoError(t, err)
	c.last, err = ledger.Last(ctx, db.Conn(), db, jobName, partition)
	if errors.Is(err, ledger.ErrNoRun) { // a merge killed before its first commit
		c.last, err = nil, nil
	}
	require.NoError(t, err)
	return c
}

// noTable is the checksum look gives a target that does not exist.
const noTable = "no table"

// fixture is one engine × strategy: a target holding the old contents, an
// input that makes the new ones, and both states measured once.
type fixture struct {
	tgt      target
	strategy string
	dir      string
	jobPath  string
	jobName  string
	date     string // the partition (or merge run) the faulted runs load
	base     string // URL of the target with the old contents
	old, new state
	runTime  time.Duration // the latest whole run of the new input, start to exit
	tmp      string        // the faulted runs' temporary folder (TMPDIR)
}

// state is one of the two contents a target may hold after a fault.
type state struct {
	rows  int64
	sum   string
	runID string // the run that made it (the ledger's latest for date)
	// entry is what that run's ledger row says: the partition's rows and
	// checksum, or for a merge the rows it wrote.
	entryRows int64
	entrySum  string
}

// newFixture writes rows generated rows, loads the old contents into a
// base target, and measures a run of the new input on a copy of it.
//
// partition: old is the partition loaded from a.csv, new from b.csv (every
// other row a newer version), one job and date.
// merge: old is the table after merging run day1 (keys 0..n-1), new after
// also merging run day2 (keys n/2..3n/2-1: half newer versions, half new).
// mergefirst: old is no table, new after merging run day1 (a first load).
// mergeempty: old is the table emptied behind idem's back after merging run
// day1, new after merging run day2 into it (a merge into an empty table,
// without a plan).
func newFixture(t *testing.T, tgt target, strategy string, rows int) *fixture {
	t.Helper()
	f := &fixture{tgt: tgt, strategy: strategy, dir: t.TempDir(), tmp: t.TempDir()}
	even := func(i int) bool { return i%2 == 0 }
	all := func(int) bool { return true }
	var oldDate string
	switch strategy {
	case "partition":
		f.jobName, f.date, oldDate = "faults_partition", day1, day1
		f.jobPath = writeJob(t, f.dir, f.jobName, partitionBody)
		writeOrders(t, filepath.Join(f.dir, "a.csv"), 0, rows, nil, day1)
		writeOrders(t, filepath.Join(f.dir, "b.csv"), 0, rows, even, day1)
		link(t, filepath.Join(f.dir, "a.csv"), filepath.Join(f.dir, "in", "orders.csv"))
	case "merge":
		f.jobName, f.date, oldDate = "faults_merge", day2, day1
		f.jobPath = writeJob(t, f.dir, f.jobName, mergeBody)
		writeOrders(t, filepath.Join(f.dir, "in", day1+".csv"), 0, rows, nil, day1)
		writeOrders(t, filepath.Join(f.dir, "in", day2+".csv"), rows/2, rows/2+rows, all, day2)
	case "mergeempty":
		f.jobName, f.date, oldDate = "faults_mergeempty", day2, day1
		f.jobPath = writeJob(t, f.dir, f.jobName, mergeBody)
		writeOrders(t, filepath.Join(f.dir, "in", day1+".csv"), 0, rows, nil, day1)
		writeOrders(t, filepath.Join(f.dir, "in", day2+".csv"), rows/2, rows/2+rows, all, day2)
	case "mergefirst":
		f.jobName, f.date = "faults_mergefirst", day1
		f.jobPath = writeJob(t, f.dir, f.jobName, mergeBody)
		writeOrders(t, filepath.Join(f.dir, "in", day1+".csv"), 0, rows, nil, day1)
	default:
		t.Fatalf("strategy %q", strategy)
	}

	f.base = tgt.fresh(t, strategy+"_base")
	switch strategy {
	case "mergefirst":
		f.old = f.noTable(t)
	case "mergeempty":
		f.old = f.emptied(t, oldDate, rows)
	default:
		p := runIdem(t, f.base, nil, "run", f.jobPath, "--date", oldDate, "--as-of", asOf, "--json")
		r := p.result(t)
		require.Equal(t, runner.ActionLoaded, r.Action)
		require.EqualValues(t, rows, r.RowsIn)
		c := look(t, f.base, f.jobName, oldDate)
		f.old = state{rows: c.rows, sum: c.sum, runID: r.RunID, entryRows: r.RowCount, entrySum: r.Checksum}
	}
	if strategy == "partition" {
		link(t, filepath.Join(f.dir, "b.csv"), filepath.Join(f.dir, "in", "orders.csv"))
	}

	ref, drop := tgt.copyOf(t, f.base, strategy+"_ref")
	defer drop()
	p := runIdem(t, ref, nil, "run", f.jobPath, "--date", f.date, "--as-of", asOf, "--json", "-v")
	r := p.result(t)
	require.Equal(t, runner.ActionLoaded, r.Action)
	f.runTime = p.took
	c := look(t, ref, f.jobName, f.date)
	f.new = state{rows: c.rows, sum: c.sum, runID: r.RunID, entryRows: r.RowCount, entrySum: r.Checksum}
	require.NotEqual(t, f.old.sum, f.new.sum, "the new input must change the table")
	require.NotEqual(t, f.old.runID, f.new.runID)
	if strategy == "mergeempty" {
		require.NotRegexp(t, `CREATE[^\n]*idem_merge_plan`, p.stderr, "a merge into an empty table makes no plan")
	}
	t.Logf("%s/%s: %d input rows; old table %d rows, new %d rows; a run of the new input takes %v",
		tgt.name(), strategy, rows, f.old.rows, f.new.rows, f.runTime.Round(time.Millisecond))
	return f
}

// noTable makes the base of a merge's first load: the schema and the
// ledger exist (another job's run made them, as on a database in use, so
// that the first load goes straight into its new table on every engine),
// the target does not. It is the old state: no table, no run of the job.
func (f *fixture) noTable(t *testing.T) state {
	t.Helper()
	writeOrders(t, filepath.Join(f.dir, "other", day1+".csv"), 0, 10, nil, day1)
	other := filepath.Join(f.dir, "other.yaml")
	text := "idem: 1\njob: faults_other\ntarget:\n  url: ${IDEM_FAULT_TARGET}\n  table: ${IDEM_FAULT_TABLE}_other\n" +
		strings.Replace(mergeBody, "in/", "other/", 1)
	require.NoError(t, os.WriteFile(other, []byte(text), 0o644))
	r := runIdem(t, f.base, nil, "run", other, "--date", day1, "--as-of", asOf, "--json").result(t)
	require.Equal(t, runner.ActionLoaded, r.Action)
	c := look(t, f.base, f.jobName, f.date)
	require.Nil(t, c.last)
	return state{rows: c.rows, sum: c.sum}
}

// emptied makes the base of a merge into an empty table: run oldDate
// merged, then every row of the table deleted behind idem's back (a
// migration's table, or one emptied by hand). It is the old state: an
// empty table, no run of the faulted date.
func (f *fixture) emptied(t *testing.T, oldDate string, rows int) state {
	t.Helper()
	r := runIdem(t, f.base, nil, "run", f.jobPath, "--date", oldDate, "--as-of", asOf, "--json").result(t)
	require.Equal(t, runner.ActionLoaded, r.Action)
	require.EqualValues(t, rows, r.RowsIn)
	execSQL(t, f.base, "TRUNCATE TABLE "+job.TableName(tableOf(f.base)).String())
	c := look(t, f.base, f.jobName, f.date)
	require.Zero(t, c.rows)
	require.NotEqual(t, noTable, c.sum)
	require.Nil(t, c.last)
	return state{rows: c.rows, sum: c.sum}
}

// merges reports whether the fixture's runs merge.
func (f *fixture) merges() bool { return strings.HasPrefix(f.strategy, "merge") }

// unrecorded names the state an engine that swaps may leave: the new
// contents, swapped in, with the ledger row not yet written.
const unrecorded = "new, unrecorded"

// which tells which state the target at u holds, and checks that its
// ledger agrees with its table. It returns "old", "new", unrecorded (only
// on an engine that swaps), or an error describing the violation.
func (f *fixture) which(t *testing.T, u string) (string, error) {
	t.Helper()
	c := look(t, u, f.jobName, f.date)
	var name string
	var want state
	switch {
	case c.rows == f.old.rows && c.sum == f.old.sum:
		name, want = "old", f.old
	case c.rows == f.new.rows && c.sum == f.new.sum:
		name, want = "new", f.new
	default:
		return "", fmt.Errorf("the table is neither the old contents (%d rows, checksum %s) nor the new (%d rows, %s): %d rows, %s",
			f.old.rows, f.old.sum, f.new.rows, f.new.sum, c.rows, c.sum)
	}
	if f.merges() {
		// The merge run's own ledger row exists exactly when its rows do.
		if name == "old" {
			if c.last != nil {
				return name, fmt.Errorf("the table holds the old contents, but the ledger records run %s of %s", c.last.RunID, f.date)
			}
			return name, nil
		}
	}
	if name == "new" && f.tgt.exchanges() {
		// Swapped, not yet recorded: the ledger still says what it said
		// before (the old run of the partition; nothing for a merge).
		// The next run must load again and record it.
		if f.merges() && c.last == nil ||
			f.strategy == "partition" && c.last != nil && c.last.RunID == f.old.runID && c.last.Checksum == f.old.entrySum {
			return unrecorded, nil
		}
	}
	switch {
	case c.last == nil:
		return name, fmt.Errorf("the table holds the %s contents, but the ledger records no run of %s", name, f.date)
	case c.last.RunID != want.runID || c.last.RowCount != want.entryRows || c.last.Checksum != want.entrySum:
		return name, fmt.Errorf("the table holds the %s contents (run %s: %d rows, %s), but the ledger's latest run is %s (%d rows, %s)",
			name, want.runID, want.entryRows, want.entrySum, c.last.RunID, c.last.RowCount, c.last.Checksum)
	}
	return name, nil
}

// converge reruns the job on u after a fault: it must exit 0, load when
// the fault left the old contents (or the new, unrecorded) and skip when it
// left the new, and leave the new contents with a ledger that agrees.
func (f *fixture) converge(t *testing.T, u, was string) error {
	t.Helper()
	p := runIdemIn(t, u, f.tmp, nil, "run", f.jobPath, "--date", f.date, "--as-of", asOf, "--json")
	if p.code != 0 {
		return fmt.Errorf("the rerun exited %d: %s", p.code, p.stderr)
	}
	var r runner.Result
	if err := json.Unmarshal([]byte(strings.TrimSpace(p.stdout)), &r); err != nil {
		return fmt.Errorf("the rerun printed %q: %v", p.stdout, err)
	}
	want := runner.ActionLoaded
	if was == "new" {
		want = runner.ActionSkipped
	}
	if r.Action != want {
		return fmt.Errorf("after a fault that left the %s contents the rerun %s; want %s", was, r.Action, want)
	}
	if r.Action == runner.ActionLoaded {
		// The machine's load changes over a long count: the next delay is
		// drawn within the latest whole run, so kills keep landing inside
		// runs rather than after them.
		f.runTime = p.took
		// A run that read its input removed the scratch folders of the
		// killed runs before it, and its own after.
		if left := leftovers(t, f.tmp); len(left) > 0 {
			return fmt.Errorf("the temporary folder still holds %s after the rerun", strings.Join(left, ", "))
		}
	}
	if was == unrecorded && f.merges() {
		return f.reapplied(t, u, r)
	}
	now, err := f.which(t, u)
	if err != nil {
		return fmt.Errorf("after the rerun: %w", err)
	}
	if now != "new" {
		return fmt.Errorf("the rerun left the %s contents", now)
	}
	return nil
}

// reapplied checks the rerun of a merge whose swap landed but whose ledger
// row did not (an engine that swaps): the rerun merges the same input into
// a table that already holds it, so every row is skipped as not newer; the
// table keeps the new contents and the ledger records the run with what
// that rerun wrote, nothing. (The counts of the first attempt, which did
// write, are lost: docs/reliability.md says so.)
func (f *fixture) reapplied(t *testing.T, u string, r runner.Result) error {
	t.Helper()
	c := look(t, u, f.jobName, f.date)
	switch {
	case c.rows != f.new.rows || c.sum != f.new.sum:
		return fmt.Errorf("after re-applying the merge the table is not the new contents: %d rows, %s", c.rows, c.sum)
	case r.Inserted+r.Updated+r.Deleted != 0:
		return fmt.Errorf("re-applying the merge wrote rows: %d inserted, %d updated, %d deleted", r.Inserted, r.Updated, r.Deleted)
	case c.last == nil || c.last.RunID != f.new.runID || c.last.RowCount != 0:
		return fmt.Errorf("after re-applying the merge the ledger's latest run is %+v; want run %s writing 0 rows", c.last, f.new.runID)
	}
	return nil
}

// phase says where in the run a process stopped, from what it printed:
// before it sent COMMIT, between COMMIT and its result (the commit may or
// may not have happened), or after it printed the result. On an engine
// that swaps, the swap is the commit.
func (f *fixture) phase(p proc) string {
	commit := "query=COMMIT"
	if f.tgt.exchanges() {
		commit = "EXCHANGE TABLES"
	}
	switch {
	case strings.Contains(p.stdout, `"action":"loaded"`), strings.Contains(p.stdout, `"action":"skipped"`):
		return "after"
	case strings.Contains(p.stderr, commit):
		return "during"
	}
	return "before"
}

// tally counts outcomes by name, safely from one test.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *tally) add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
}

func (c *tally) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// leftovers lists the folders in the temporary folder tmp: every run's
// scratch data lives in folders, and a configuration file written once per
// machine (chDB's) is not a leftover.
func leftovers(t testing.TB, tmp string) []string {
	t.Helper()
	ents, err := os.ReadDir(tmp)
	require.NoError(t, err)
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}
