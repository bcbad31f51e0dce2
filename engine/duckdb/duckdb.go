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
	"strings"
	"sync"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver

	"github.com/idemdata/idem/engine"
)

// DB is an open DuckDB target.
type DB struct {
	path string
	db   *sql.DB
	conn *sql.Conn
}

var _ engine.DB = (*DB)(nil)

// Open opens (or creates) the database file at path. DuckDB lets one process
// hold a file: while another holds it, Open retries until lockTimeout has
// passed, then returns an error wrapping engine.ErrLocked.
func Open(ctx context.Context, path string, lockTimeout time.Duration) (*DB, error) {
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
	began := time.Now()
	deadline := began.Add(lockTimeout)
	for {
		db, err := open(ctx, path)
		if err == nil {
			return db, nil
		}
		// A file another process is creating this instant has no valid
		// header yet: wait briefly for it, as for a lock.
		creating := isNotYetValid(err) && time.Since(began) < min(lockTimeout, 5*time.Second)
		if !isLockError(err) && !creating {
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

func open(ctx context.Context, path string) (*DB, error) {
	dsn := path
	if path == ":memory:" {
		dsn = ""
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
	for _, q := range []string{
		// Nothing idem does depends on the order rows are stored in (dedup
		// has its own ORDER BY, checksums are order-independent), and
		// keeping that order makes bulk inserts and the checkpoint at close
		// markedly slower.
		"SET preserve_insertion_order = false",
		// DuckDB's session time zone is the host's TZ: it decides how
		// zoneless text becomes a TIMESTAMPTZ and how a TIMESTAMPTZ casts to
		// a TIMESTAMP, so a row's partition would depend on the host.
		"SET TimeZone = 'UTC'",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.Close()
			sqlDB.Close()
			return nil, err
		}
	}
	return &DB{path: path, db: sqlDB, conn: conn}, nil
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
	case bytes.Equal(head[:n], make([]byte, n)):
		// Zeros: DuckDB creating the file in another process has not
		// written its header yet.
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

// Dialect returns DuckDB's SQL dialect.
func (*DB) Dialect() engine.Dialect { return Dialect{} }

// Statements returns DuckDB's step SQL.
func (*DB) Statements() engine.Statements { return Dialect{} }

// Conn is the run's pinned connection.
func (d *DB) Conn() *sql.Conn { return d.conn }

// LedgerTable is main.idem_runs.
func (*DB) LedgerTable() engine.Table { return engine.Table{Name: "idem_runs"} }

// Close closes the connection and the database.
func (d *DB) Close() error {
	return errors.Join(d.conn.Close(), d.db.Close())
}

// Other processes are kept out by DuckDB's file lock; within a process (a
// library user running partitions concurrently) runs of one partition take
// turns on this table of one-slot semaphores.
var (
	locksMu sync.Mutex
	locks   = map[string]chan struct{}{}
)

// Lock waits for (job, partition) to be free in this process. The runner
// calls release once tx has ended.
func (d *DB) Lock(ctx context.Context, _ *sql.Tx, job, partition string, timeout time.Duration) (func(), error) {
	key := d.path + "\x00" + job + "\x00" + partition
	locksMu.Lock()
	ch, ok := locks[key]
	if !ok {
		ch = make(chan struct{}, 1)
		locks[key] = ch
	}
	locksMu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: %s %s is being loaded by another run in this process; waited %s", engine.ErrLocked, job, partition, timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
