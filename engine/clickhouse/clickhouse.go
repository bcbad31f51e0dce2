// Package clickhouse is idem's ClickHouse engine: embedded ClickHouse
// (chDB, a folder: chdb:PATH) loaded at run time from libchdb.so.
//
// ClickHouse has no transactions. Guarantee 2 rests on atomic swaps
// instead (engine.PartitionExchanger): a partition job's target is a
// MergeTree partitioned by the job's grain, and a run builds the
// partition beside it and swaps it in with REPLACE PARTITION; a merge is
// applied to a copy of the table swapped in with EXCHANGE TABLES. See
// docs/engines/clickhouse.md.
package clickhouse

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse/internal/chdb"
)

func init() {
	engine.Register("chdb", engine.Driver{
		Name:    "clickhouse",
		File:    true,
		Form:    "chdb:PATH",
		Example: "chdb:warehouse.chdb (a folder)",
		Lexicon: &lexicon,
		Open:    openTarget,
	})
}

// openTarget opens a chdb: URL's folder, resolved against the job's folder.
func openTarget(ctx context.Context, path string, o engine.OpenOptions) (engine.DB, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.Dir, path)
	}
	if o.ReadOnly {
		if _, err := os.Stat(filepath.Join(path, "metadata")); err != nil {
			return nil, engine.BadTarget(fmt.Errorf("chdb %s: %w", path, os.ErrNotExist))
		}
	}
	if o.Source {
		if err := sourceSession(path); err != nil {
			return nil, err
		}
	}
	db, err := Open(ctx, path, o.LockTimeout)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// DB is an open chDB folder.
type DB struct {
	path string
	s    *session
	db   *sql.DB
	conn *sql.Conn
}

var (
	_ engine.DB                 = (*DB)(nil)
	_ engine.Swapper            = (*DB)(nil)
	_ engine.PartitionExchanger = (*DB)(nil)
)

// serverConfig is the configuration every session on a folder starts
// with (written once to the temporary folder, not the target's): MergeTree tables created
// there keep the block number and offset columns that lightweight UPDATE
// needs (UPDATE … SET … WHERE, on tables users create there too).
//
// The folder's tables load one at a time when a session opens. libchdb
// 26.5 creates its store of SQL functions lazily, without a lock, from
// whichever table load needs it first; two loads at once each create one,
// the second destroys the first while the other load may still use it,
// and the open fails ("recursive_mutex lock failed: Invalid argument",
// ASYNC_LOAD_WAIT_FAILED). The loads run in the foreground pool, so one
// thread there serializes them; loading synchronously keeps them there.
const serverConfig = `<clickhouse>
  <merge_tree>
    <enable_block_number_column>1</enable_block_number_column>
    <enable_block_offset_column>1</enable_block_offset_column>
  </merge_tree>
  <async_load_databases>false</async_load_databases>
  <tables_loader_foreground_pool_size>1</tables_loader_foreground_pool_size>
  <tables_loader_background_pool_size>1</tables_loader_background_pool_size>
</clickhouse>
`

// settings are every session's (see Dialect).
var settings = []string{
	"SET session_timezone = 'UTC'",
	"SET join_use_nulls = 1",
	"SET cast_keep_nullable = 1",
	"SET insert_null_as_default = 0",
	"SET final = 1",
	"SET mutations_sync = 2",
	"SET lightweight_deletes_sync = 2",
	// The profilers signal threads (SIGUSR1, SIGUSR2) in a Go process.
	"SET query_profiler_real_time_period_ns = 0",
	"SET query_profiler_cpu_time_period_ns = 0",
	// No JIT: compiled code dies with the session and a run repeats a
	// statement a few times at most (docs/decisions/0009-clickhouse-no-jit.md).
	"SET compile_expressions = 0",
	"SET compile_aggregate_expressions = 0",
	"SET compile_sort_description = 0",
}

// Open opens (or creates) the chDB folder at path. One process holds a
// folder at a time (ClickHouse locks its status file): while another holds
// it, Open retries until lockTimeout has passed, then returns an error
// wrapping engine.ErrLocked. Within a process, chDB has one session: Open
// of another folder waits until every DB on the first is closed.
func Open(ctx context.Context, path string, lockTimeout time.Duration) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := chdb.Load(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, engine.BadTarget(fmt.Errorf("chdb %s is a file; a chdb: target is a folder", abs))
	}
	wctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	s, err := acquire(wctx, abs, func() (*chdb.Session, error) { return connect(wctx, abs, lockTimeout) })
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("%w: %v", engine.ErrLocked, err)
		}
		return nil, err
	}
	db, conn, err := openDB(ctx, s)
	if err != nil {
		s.release()
		return nil, err
	}
	return &DB{path: abs, s: s, db: db, conn: conn}, nil
}

// connect opens the session, waiting while another process holds the
// folder.
func connect(ctx context.Context, path string, lockTimeout time.Duration) (*chdb.Session, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("chdb %s: %w", path, err)
	}
	for {
		held, err := heldElsewhere(path)
		if err != nil {
			return nil, err
		}
		if !held {
			cfg, err := configFile()
			if err != nil {
				return nil, err
			}
			s, err := chdb.Connect(path, "--config-file="+cfg)
			if err == nil {
				for _, q := range settings {
					if _, err := s.Query(q, "TabSeparated"); err != nil {
						s.Close()
						return nil, fmt.Errorf("chdb %s: %w", path, err)
					}
				}
				return s, nil
			}
			// Another process may have taken the folder since the look.
			if held, _ := heldElsewhere(path); !held {
				return nil, err
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: chdb %s is held by another process; waited %s", engine.ErrLocked, path, lockTimeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// configFile writes serverConfig, once per machine, to a file named after
// its content in the temporary folder (written aside and renamed, so a
// process never reads a half-written one).
func configFile() (string, error) {
	sum := sha256.Sum256([]byte(serverConfig))
	path := filepath.Join(os.TempDir(), fmt.Sprintf("idem-chdb-%x.xml", sum[:6]))
	if b, err := os.ReadFile(path); err == nil && string(b) == serverConfig {
		return path, nil
	}
	f, err := os.CreateTemp(os.TempDir(), "idem-chdb-*.part")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(serverConfig)
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing chDB's configuration: %w", err)
	}
	return path, nil
}

// Conn is the pinned connection.
func (d *DB) Conn() engine.Querier { return d.conn }

// Begin starts a transaction that does nothing: ClickHouse has none, and
// the runner, told so by PartitionExchanger, does not rely on one.
func (d *DB) Begin(ctx context.Context) (*sql.Tx, error) { return d.conn.BeginTx(ctx, nil) }

// SQL is this engine's SQL.
func (*DB) SQL() *engine.SQL { return sqlText }

// Names: unqualified tables, and idem_runs, live in the session's
// database (default).
func (*DB) Names() engine.Names {
	return engine.Names{DefaultSchema: "default", Ledger: engine.Table{Name: "idem_runs"}}
}

// Close closes the connection and gives the session back (the last DB on
// a folder closes it, so another process can open the folder).
func (d *DB) Close() error {
	err := errors.Join(d.conn.Close(), d.db.Close())
	d.s.release()
	return err
}

// Other processes are kept out by ClickHouse's lock on the folder. Within
// a process, runs share chDB's one session, each DB naming its staging
// tables its own way (see own), and take turns per table: a partition run
// swaps in a copy of the whole table, so two runs of one table's
// partitions at once would each drop the other's partition.
var (
	locksMu sync.Mutex
	locks   = map[[2]string]*semaphore.Weighted{}
)

// Lock waits until no other run of this process is writing scope's table.
func (d *DB) Lock(ctx context.Context, _ *sql.Tx, scope engine.LockScope, timeout time.Duration) (func(), error) {
	key := [2]string{d.path, Dialect{}.Table(scope.Table)}
	locksMu.Lock()
	s, ok := locks[key]
	if !ok {
		s = semaphore.NewWeighted(1)
		locks[key] = s
	}
	locksMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := s.Acquire(ctx, 1); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: %s is being loaded by another run in this process (runs of one table take turns here); waited %s", engine.ErrLocked, scope, timeout)
		}
		return nil, err
	}
	return func() { s.Release(1) }, nil
}

// Swap puts built in table's place: EXCHANGE TABLES is atomic.
func (d *DB) Swap(table, built engine.Table, exists bool) []string {
	q := Dialect{}
	if !exists {
		return []string{"RENAME TABLE " + q.Table(built) + " TO " + q.Table(table)}
	}
	return []string{"EXCHANGE TABLES " + q.Table(table) + " AND " + q.Table(built), d.Drop(built)}
}

// Drop drops a table if it exists.
func (*DB) Drop(t engine.Table) string { return "DROP TABLE IF EXISTS " + Dialect{}.Table(t) }

// Like creates built with table's structure, engine and partition key.
func (*DB) Like(built, table engine.Table) []string {
	return []string{"CREATE TABLE " + Dialect{}.Table(built) + " AS " + Dialect{}.Table(table)}
}

var _ engine.Copier = (*DB)(nil)

// Copy makes built a copy of table whose parts are hard-linked (ATTACH
// PARTITION ALL FROM, as BuildPartition): a merge's copy of its target
// costs the number of parts, not rows. The merge's DELETE then mutates the
// copy's parts into new ones; the target's files are never written.
func (*DB) Copy(built, table engine.Table) []string {
	q := Dialect{}
	return []string{
		"CREATE TABLE " + q.Table(built) + " AS " + q.Table(table),
		"ALTER TABLE " + q.Table(built) + " ATTACH PARTITION ALL FROM " + q.Table(table),
	}
}

var _ engine.PatchHolder = (*DB)(nil)

// Patches selects a row when t has an active patch part (a lightweight
// UPDATE's or DELETE's, applied or not: ClickHouse drops it only later).
func (*DB) Patches(t engine.Table) (string, []any) {
	db, args := Dialect{}.dbOf(t, 2)
	return "SELECT 1 FROM system.parts WHERE table = $1 AND database = " + db + " AND active AND startsWith(name, 'patch-') LIMIT 1", append([]any{t.Name}, args...)
}

// Links: BuildPartition always hard-links the target's parts on chDB.
func (*DB) Links(string) bool { return true }

// PartitionBy is the grain's partition key: the partition's start.
func (*DB) PartitionBy(col string, k engine.TimeKind, unit, zone string) string {
	return Dialect{}.PartitionStart(col, k, unit, zone)
}

// PartitionKey reads the table's partition key from system.tables.
func (*DB) PartitionKey(t engine.Table) (string, []any) {
	db, args := Dialect{}.dbOf(t, 2)
	return "SELECT partition_key FROM system.tables WHERE name = $1 AND database = " + db, append([]any{t.Name}, args...)
}

// SameKey compares keys as ClickHouse shows them, without quotes and
// spaces.
//
// A wall-clock key names UTC; one without a zone, as tables made by
// earlier versions have, is taken for it: the two agree where the server
// runs in UTC, and refusing would stop every such table.
func (*DB) SameKey(have, want string) bool {
	norm := strings.NewReplacer(" ", "", `"`, "", "`", "", ",'UTC'", "")
	return norm.Replace(have) == norm.Replace(want)
}

// CreatePartitioned creates a partitioned target.
func (*DB) CreatePartitioned(target engine.Table, stage, loadedAt, partitionBy string) []string {
	return Dialect{}.CreatePartitioned(target, stage, loadedAt, partitionBy)
}

// BuildPartition makes x a copy of the target without partition at: its
// parts are hard-linked (ATTACH PARTITION ALL FROM: the cost grows with
// the number of parts, not rows), and the partition dropped.
//
// chDB does not use REPLACE PARTITION, though it is the one atomic
// statement for this: the parts a REPLACE PARTITION outdates stay on disk
// for old_parts_lifetime, and a chDB process that ends before then finds
// them active again when the folder is next opened (the partition holds
// its old rows and its new ones). Parts dropped by DROP PARTITION and
// tables swapped by EXCHANGE TABLES stay dropped.
//
// A target without a partition key (at "") is copied whole: the runner
// deletes the partition's rows from the copy.
func (*DB) BuildPartition(x, target engine.Table, at string) []string {
	q := Dialect{}
	stmts := []string{
		"CREATE TABLE " + q.Table(x) + " AS " + q.Table(target),
		"ALTER TABLE " + q.Table(x) + " ATTACH PARTITION ALL FROM " + q.Table(target),
	}
	if at == "" {
		return stmts
	}
	return append(stmts, fmt.Sprintf("ALTER TABLE %s DROP PARTITION tuple(%s)", q.Table(x), at))
}

// ReplacePartition swaps x, the target with its partition rebuilt, in:
// EXCHANGE TABLES is atomic. The runner drops x, now the old table.
func (*DB) ReplacePartition(target, x engine.Table, _ string) []string {
	q := Dialect{}
	return []string{"EXCHANGE TABLES " + q.Table(target) + " AND " + q.Table(x)}
}

// Capabilities: no transactions; partitions are exchanged, tables swapped.
func (d *DB) Capabilities() engine.Capabilities { return engine.Declare(d, engine.CommitExchange) }
