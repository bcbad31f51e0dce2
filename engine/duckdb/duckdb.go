// Package duckdb is idem's embedded engine: a DuckDB database file opened by
// this process alone.
package duckdb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"golang.org/x/sync/semaphore"

	"github.com/idemdata/idem/engine"
)

// DB is an open DuckDB target.
type DB struct {
	path string
	db   *sql.DB
	conn *sql.Conn
	// created: the file did not exist before Open made it.
	created bool
	// readOnly: opened with access_mode READ_ONLY (OpenReadOnly).
	readOnly bool
}

var _ engine.DB = (*DB)(nil)

// Open opens (or creates) the database file at path. DuckDB lets one process
// hold a file: while another holds it, Open retries until lockTimeout has
// passed, then returns an error wrapping engine.ErrLocked.
func Open(ctx context.Context, path string, lockTimeout time.Duration) (*DB, error) {
	return openRetry(ctx, path, lockTimeout, false)
}

// OpenReadOnly opens an existing database file with access_mode READ_ONLY:
// nothing run on it can write, it works on a file this process may not
// write, and a missing file is an error wrapping fs.ErrNotExist instead of
// a new, empty database.
func OpenReadOnly(ctx context.Context, path string, lockTimeout time.Duration) (*DB, error) {
	if path == ":memory:" {
		return nil, errors.New("duckdb::memory: is a new, empty database: there is nothing to read")
	}
	return openRetry(ctx, path, lockTimeout, true)
}

func openRetry(ctx context.Context, path string, lockTimeout time.Duration, readOnly bool) (*DB, error) {
	if path != ":memory:" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		path = abs
		if err := checkFile(path); err != nil {
			return nil, err
		}
	}
	if readOnly && path != ":memory:" {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("duckdb %s: %w", path, fs.ErrNotExist)
		}
	}
	began := time.Now()
	deadline := began.Add(lockTimeout)
	for {
		db, err := attempt(ctx, path, readOnly)
		if err == nil {
			return db, nil
		}
		// A file another process is creating this instant has no valid
		// header yet: wait briefly for it, as for a lock.
		creating := isNotYetValid(err) && time.Since(began) < min(lockTimeout, creatingFor)
		if ctx.Err() != nil || !isLockError(err) && !creating {
			return nil, fmt.Errorf("opening duckdb %s: %w", path, err)
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("%w: duckdb %s is held by another process (%s); waited %s",
				engine.ErrLocked, path, holder(err), lockTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// attempt opens path once. Where it may create the file (it is missing or
// empty), creators in one folder take turns on the folder's lock: DuckDB
// creates a file and locks it in two steps, and a second process that
// locked the empty file in between found no header, failed, and left it
// empty, so both then waited for a header nobody would write. Under the
// folder's lock an empty file nobody holds was left by a creator killed
// before its header: it is removed and created anew.
func attempt(ctx context.Context, path string, readOnly bool) (*DB, error) {
	if readOnly || path == ":memory:" {
		return open(ctx, path, readOnly)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return open(ctx, path, false)
	}
	unlock, err := lockFolder(ctx, filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer unlock()
	fi, err := os.Stat(path)
	created := errors.Is(err, fs.ErrNotExist)
	switch {
	case created:
	case err != nil:
		return nil, err
	case fi.Size() == 0 && abandoned(path):
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		created = true
	}
	db, err := open(ctx, path, false)
	if err == nil {
		db.created = created
	}
	return db, err
}

func open(ctx context.Context, path string, readOnly bool) (*DB, error) {
	dsn := path
	if path == ":memory:" {
		dsn = ""
	}
	if readOnly {
		dsn += "?access_mode=READ_ONLY"
	}
	sqlDB, err := sql.Open("duckdb", dsn)
	if err != nil {
		return nil, err
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		sqlDB.Close()
		return nil, err
	}
	settings := sessionSettings()
	if !readOnly {
		settings = append(settings, commitByCheckpoint...)
	}
	for _, q := range settings {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.Close()
			sqlDB.Close()
			return nil, err
		}
	}
	if !readOnly {
		if err := registerRows(conn); err != nil {
			conn.Close()
			sqlDB.Close()
			return nil, fmt.Errorf("registering the input's table function: %w", err)
		}
	}
	return &DB{path: path, db: sqlDB, conn: conn, readOnly: readOnly}, nil
}

// sessionSettings are run on each connection idem opens.
func sessionSettings() []string {
	return []string{
		// DuckDB runs inside idem and by default caches every block read up
		// to 80% of the host's memory; the limit makes it evict and spill
		// (to <file>.tmp) instead (docs/decisions/0005-duckdb-memory-limit.md).
		"SET memory_limit = " + Dialect{}.String(openLimit()),
		// Nothing idem does depends on the order rows are stored in (dedup
		// has its own ORDER BY, checksums are order-independent), and
		// keeping that order makes bulk inserts and the checkpoint at close
		// markedly slower.
		"SET preserve_insertion_order = false",
		// DuckDB's session time zone is the host's TZ: it decides how
		// zoneless text becomes a TIMESTAMPTZ and how a TIMESTAMPTZ casts to
		// a TIMESTAMP, so a row's partition would depend on the host.
		"SET TimeZone = 'UTC'",
	}
}

// commitByCheckpoint: a commit that checkpoints skips the write-ahead log
// (SizeCommit says which commits checkpoint).
var commitByCheckpoint = []string{"SET auto_checkpoint_skip_wal_threshold = 0"}

// rowGroupRows is DuckDB's row group: a transaction that appends more
// writes its row groups ahead of the commit.
const rowGroupRows = 122_880

var _ engine.CommitSizer = (*DB)(nil)

// SizeCommit makes a commit of a run that wrote a row group or more a
// checkpoint instead of a write-ahead log entry: DuckDB writes such row
// groups ahead of the commit, and a kill that cuts the log short can replay
// them without the transaction's deletes, while a checkpoint becomes visible
// by one header write. DuckDB's own size estimate leaves those row groups
// out, so the rows decide. Smaller commits keep the log, which replays them
// whole or not at all, and is cheaper
// (docs/decisions/0006-duckdb-large-commits-checkpoint.md).
func (*DB) SizeCommit(ctx context.Context, q engine.Querier, rows int64) error {
	threshold := "16MB" // DuckDB's default
	if rows >= rowGroupRows {
		threshold = "0KB"
	}
	_, err := q.ExecContext(ctx, "SET checkpoint_threshold = "+Dialect{}.String(threshold))
	return err
}

// memoryLimit is DuckDB's memory_limit on a target's connection, in
// DuckDB's MB (10^6 bytes): 384 for a merge (and at open), 256 for a
// load's other steps, or 64 a core where that is more, and 64 while rows
// stream in (a file's through the reader, or a source database's: appends
// only, the rest spills); or IDEM_DUCKDB_MEMORY_LIMIT (a DuckDB size, e.g.
// '2GB'), which stands as given (docs/decisions/0005-duckdb-memory-limit.md).
func memoryLimit(use engine.MemoryUse) (mb int64, override string) {
	if v := os.Getenv("IDEM_DUCKDB_MEMORY_LIMIT"); v != "" {
		return 0, v
	}
	switch use {
	case engine.MemoryStream:
		return 64, ""
	case engine.MemoryMerge:
		return int64(max(384, 64*runtime.NumCPU())), ""
	}
	return int64(max(256, 64*runtime.NumCPU())), ""
}

// openLimit is the limit a target's connection opens with: a merge's.
func openLimit() string {
	mb, limit := memoryLimit(engine.MemoryMerge)
	if limit == "" {
		limit = fmt.Sprintf("%dMB", mb)
	}
	return limit
}

var _ engine.MemorySizer = (*DB)(nil)

// heldMemory is what the instance holds now, in bytes.
const heldMemory = "SELECT CAST(coalesce(sum(memory_usage_bytes), 0) AS BIGINT) FROM duckdb_memory()"

// headroom is the least a step's limit leaves above what the instance
// holds, in MB: a stream's.
const headroom = 64

// SizeMemory sets memoryLimit for what a run does next, on q, or what the
// instance already holds and headroom more, whichever is larger. The limit
// is the instance's, shared by every connection of the process: a
// long-lived process (a library caller, the tests) may hold tables not yet
// checkpointed and metadata it cannot evict, and a step left no room fails
// an allocation inside a C API call the driver makes from Go, which aborts
// the process. What is held includes blocks DuckDB could evict, so it is a
// floor, not added to every limit: a run's own appends would raise its
// later limits.
func (*DB) SizeMemory(ctx context.Context, q engine.Querier, use engine.MemoryUse) error {
	mb, limit := memoryLimit(use)
	if limit == "" {
		var held int64
		if err := q.QueryRowContext(ctx, heldMemory).Scan(&held); err != nil {
			return fmt.Errorf("reading DuckDB's memory in use: %w", err)
		}
		limit = fmt.Sprintf("%dMB", max(mb, (held+999_999)/1_000_000+headroom))
	}
	_, err := q.ExecContext(ctx, "SET memory_limit = "+Dialect{}.String(limit))
	return err
}

// ErrNotDatabase marks a target path that exists and is not a DuckDB
// database file.
var ErrNotDatabase = errors.New("not a DuckDB database")

// magic is what DuckDB writes at byte 8 of every database file, after the
// header's checksum.
var magic = []byte("DUCK")

// checkFile refuses a path that exists and is not a DuckDB database, before
// DuckDB sees it: DuckDB opens a file named like data (.csv, .parquet,
// .json) as an in-memory database with a view over that file, so a run
// would report rows loaded into memory and lose them at exit. An empty file,
// or one whose first bytes are zeros, passes: another process may be
// creating the database this instant, and open waits for that.
// creatingFor is how long a file another process is creating may look
// invalid: long enough for a busy machine.
const creatingFor = 30 * time.Second

func checkFile(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, %w file", path, ErrNotDatabase)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is %w file (it is a %s)", path, ErrNotDatabase, fi.Mode().Type())
	case fi.Size() == 0:
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 8+len(magic))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	switch {
	case bytes.Equal(head[:n], make([]byte, n)), n < len(head) && time.Since(fi.ModTime()) < creatingFor:
		// Zeros, or a brand-new file shorter than a header: DuckDB
		// creating the file in another process has not written its
		// header yet. DuckDB's own open decides (Open waits while it
		// says the file is not valid yet).
		return nil
	case n < len(head) || !bytes.Equal(head[8:], magic):
		return fmt.Errorf("%s is %w file (it lacks DuckDB's file header); idem leaves it untouched", path, ErrNotDatabase)
	}
	return nil
}

func isNotYetValid(err error) bool {
	return strings.Contains(err.Error(), "is not a valid DuckDB database file")
}

func isLockError(err error) bool {
	return strings.Contains(err.Error(), "Could not set lock on file")
}

// holder extracts DuckDB's "Conflicting lock is held in … (PID n)".
func holder(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "Conflicting lock is held in"); i >= 0 {
		s := msg[i+len("Conflicting lock is held in "):]
		if j := strings.Index(s, ")"); j >= 0 {
			s = s[:j+1]
		}
		return "held by " + s
	}
	return "lock held"
}

// Conn is the run's pinned connection.
func (d *DB) Conn() engine.Querier { return d.conn }

// Begin starts the data transaction on the pinned connection.
func (d *DB) Begin(ctx context.Context) (*sql.Tx, error) { return d.conn.BeginTx(ctx, nil) }

// SQL is this engine's SQL.
func (*DB) SQL() *engine.SQL { return sqlText }

// Names: unqualified tables live in main, and so does idem_runs.
func (*DB) Names() engine.Names {
	return engine.Names{DefaultSchema: "main", Ledger: engine.Table{Name: "idem_runs"}}
}

// Close closes the connection and the database.
func (d *DB) Close() error {
	return errors.Join(d.conn.Close(), d.db.Close())
}

// RemoveIfUnused removes the database file (and its WAL) when this Open
// created it and it still holds nothing: a run that was refused, failed or
// skipped leaves no new file behind, as if it had checked everything before
// opening (a query source's columns can only be read in the database). It
// reports whether it removed the file. Call it instead of Close.
//
// The file is removed while this process still holds DuckDB's lock on it,
// so a process waiting for the lock finds no file and creates its own,
// instead of one being deleted under it. The catalog is checked first: a
// file that another process created between Open's look and its lock, and
// wrote to, is kept.
func (d *DB) RemoveIfUnused(ctx context.Context) (bool, error) {
	if !d.created {
		return false, d.Close()
	}
	var objects int64
	err := d.conn.QueryRowContext(ctx, `SELECT
  (SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary)
+ (SELECT count(*) FROM duckdb_views() WHERE database_name = current_database() AND NOT internal AND NOT temporary)
+ (SELECT count(*) FROM duckdb_schemas() WHERE database_name = current_database() AND NOT internal AND schema_name <> 'main')
+ (SELECT count(*) FROM duckdb_sequences() WHERE database_name = current_database() AND NOT temporary)
+ (SELECT count(*) FROM duckdb_functions() WHERE database_name = current_database() AND NOT internal)
+ (SELECT count(*) FROM duckdb_types() WHERE database_name = current_database() AND NOT internal)`).Scan(&objects)
	if err != nil || objects > 0 {
		return false, errors.Join(err, d.Close())
	}
	// Unlinking an open file is fine on Unix; where it is not (Windows),
	// the empty file stays: removing it after Close could delete a file
	// another process has opened since.
	var removed bool
	if err := os.Remove(d.path); err == nil {
		removed = true
		os.Remove(d.path + ".wal")
	}
	return removed, d.Close()
}

// Other processes are kept out by DuckDB's file lock; within a process (a
// library user running partitions concurrently) runs take turns here: a
// partition run holds one unit of its table's semaphore and its partition's
// one-slot semaphore, a whole-table run (a merge) every unit of the table's.
var (
	locksMu sync.Mutex
	locks   = map[string]*semaphore.Weighted{}
)

// tableUnits is a table semaphore's size: more partition runs than any
// process runs at once.
const tableUnits = 1 << 20

func sem(key string, n int64) *semaphore.Weighted {
	locksMu.Lock()
	defer locksMu.Unlock()
	s, ok := locks[key]
	if !ok {
		s = semaphore.NewWeighted(n)
		locks[key] = s
	}
	return s
}

// Lock waits until scope is free in this process. The runner calls release
// once tx has ended.
func (d *DB) Lock(ctx context.Context, _ *sql.Tx, scope engine.LockScope, timeout time.Duration) (func(), error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tableKey := d.path + "\x00" + scope.Table.Schema + "\x00" + scope.Table.Name
	table := sem(tableKey, tableUnits)
	units := int64(1)
	if scope.Partition == "" {
		units = tableUnits
	}
	timedOut := func(err error) error {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return fmt.Errorf("%w: %s is being loaded by another run in this process; waited %s", engine.ErrLocked, scope, timeout)
		}
		return err
	}
	if err := table.Acquire(ctx, units); err != nil {
		return nil, timedOut(err)
	}
	if scope.Partition == "" {
		return func() { table.Release(units) }, nil
	}
	part := sem(tableKey+"\x00"+scope.Partition, 1)
	if err := part.Acquire(ctx, 1); err != nil {
		table.Release(units)
		return nil, timedOut(err)
	}
	return func() { part.Release(1); table.Release(units) }, nil
}

// Capabilities: every step of a run in one transaction.
func (d *DB) Capabilities() engine.Capabilities { return engine.Declare(d, engine.CommitTransaction) }
