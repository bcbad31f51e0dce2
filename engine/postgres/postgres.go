// Package postgres is idem's PostgreSQL engine (15 and later): its SQL, a
// connection through pgx, partition locks as transaction-scoped advisory
// locks, and the reader's rows streamed in with binary COPY.
package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/dsn"
)

// DB is an open PostgreSQL target: one pinned connection.
type DB struct {
	db     *sql.DB
	conn   *sql.Conn
	schema string // the connection's current schema, where idem_runs lives
}

var _ engine.DB = (*DB)(nil)

// minVersion is PostgreSQL 15, the first with MERGE.
const minVersion = 150000

// sessionDefaults pin what the text of a value depends on, so a checksum
// (a hash of each row's text) and a query's result are the same from every
// client, whatever the server's or the role's defaults. A URL parameter of
// the same name wins (postgres://…?TimeZone=Europe/Berlin).
var sessionDefaults = map[string]string{
	"application_name":            "idem",
	"TimeZone":                    "UTC",
	"DateStyle":                   "ISO, MDY",
	"IntervalStyle":               "postgres",
	"extra_float_digits":          "1",
	"bytea_output":                "hex",
	"standard_conforming_strings": "on",
}

// Open connects to a postgres:// or postgresql:// URL. When the URL sets no
// connect_timeout, connecting waits at most lockTimeout (and at most a
// minute): an unreachable host must not hang a scheduled run. No error
// carries the password.
func Open(ctx context.Context, url string, lockTimeout time.Duration) (*DB, error) {
	return open(ctx, url, lockTimeout, false)
}

// OpenReadOnly connects like Open, with every transaction of the session
// READ ONLY (default_transaction_read_only, which SQL run inside a
// transaction cannot turn off for that transaction): for `idem checksum`,
// whose --where is the user's SQL.
func OpenReadOnly(ctx context.Context, url string, lockTimeout time.Duration) (*DB, error) {
	return open(ctx, url, lockTimeout, true)
}

func open(ctx context.Context, url string, lockTimeout time.Duration, readOnly bool) (*DB, error) {
	red := dsn.NewRedactor(url)
	cfg, err := connConfig(url, red, lockTimeout, readOnly)
	if err != nil {
		return nil, err
	}
	sqlDB := stdlib.OpenDB(*cfg)
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		sqlDB.Close()
		if unreachable(ctx, err) {
			err = fmt.Errorf("%w (try again later): %w", engine.ErrUnavailable, err)
		}
		return nil, red.Error(fmt.Errorf("connecting to %s: %w", dsn.Redact(url), err))
	}
	schema, err := currentSchema(ctx, conn)
	if err != nil {
		conn.Close()
		sqlDB.Close()
		return nil, red.Error(fmt.Errorf("connecting to %s: %w", dsn.Redact(url), err))
	}
	return &DB{db: sqlDB, conn: conn, schema: schema}, nil
}

// connConfig is the connection's configuration from url, with the
// session's settings; red learns the password.
func connConfig(url string, red *dsn.Redactor, lockTimeout time.Duration, readOnly bool) (*pgx.ConnConfig, error) {
	// The password is split off before pgx sees the URL and set on the
	// config afterwards, so no parse or connect error can echo it, however
	// the URL is written (pgx reads an unencoded '/' or '@' in a password
	// as the end of the credentials, and prints the rest as a host or port).
	u, err := parseURL(url)
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(u.WithoutPassword())
	if err != nil {
		return nil, red.Error(fmt.Errorf("%w: postgres target %s: %w", dsn.ErrURL, dsn.Redact(url), err))
	}
	if u.HasPassword && !hasQueryPassword(u.Rest) { // as pgx would: a password= parameter wins
		cfg.Password = u.Password
	}
	red.Add(cfg.Password) // also one from PGPASSWORD or a password file
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	have := map[string]bool{}
	for k := range cfg.RuntimeParams {
		have[strings.ToLower(k)] = true
	}
	for k, v := range sessionDefaults {
		if !have[strings.ToLower(k)] {
			cfg.RuntimeParams[k] = v
		}
	}
	// No statement cache: a run alters tables (on_schema_change:
	// add_columns) and reads them again with the same text, which a cached
	// plan would refuse ("cached plan must not change result type"). A run
	// issues a few dozen statements; the extra describe is not measurable.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = min(max(lockTimeout, time.Second), time.Minute)
	}
	return cfg, nil
}

// currentSchema is the session's current schema, once the server is known
// to be new enough.
func currentSchema(ctx context.Context, conn *sql.Conn) (string, error) {
	var schema sql.NullString
	var version int
	var versionText string
	err := conn.QueryRowContext(ctx, "SELECT current_schema(), current_setting('server_version_num')::int, current_setting('server_version')").
		Scan(&schema, &version, &versionText)
	if err == nil && version < minVersion {
		err = fmt.Errorf("idem needs PostgreSQL 15 or later (MERGE); this server is %s", versionText)
	}
	if err != nil {
		return "", err
	}
	if schema.String == "" { // no schema of search_path exists: CREATE would fail anyway
		return "public", nil
	}
	return schema.String, nil
}

// hasQueryPassword reports whether a URL's query sets password=.
func hasQueryPassword(rest string) bool {
	_, query, ok := strings.Cut(rest, "?")
	if !ok {
		return false
	}
	v, err := neturl.ParseQuery(query)
	return err == nil && v.Has("password")
}

// Conn is the run's pinned connection: temporary tables live on it.
func (d *DB) Conn() engine.Querier { return d.conn }

// Begin starts the data transaction on the pinned connection.
func (d *DB) Begin(ctx context.Context) (*sql.Tx, error) { return d.conn.BeginTx(ctx, nil) }

// SQL is this engine's SQL.
func (*DB) SQL() *engine.SQL { return sqlText }

// Names: an unqualified table lives in the connection's current schema, and
// so does idem_runs, named with its schema so that creating it and reading
// it always mean one table.
func (d *DB) Names() engine.Names {
	return engine.Names{DefaultSchema: d.schema, Ledger: engine.Table{Schema: d.schema, Name: "idem_runs"}}
}

// Close closes the connection: an open transaction rolls back and its
// advisory locks are released.
func (d *DB) Close() error {
	return errors.Join(d.conn.Close(), d.db.Close())
}

// Lock takes transaction-scoped advisory locks for scope: a partition run
// holds its table's key shared and its partition's key exclusive; a
// whole-table run (a merge) holds the table's key exclusive, so it waits
// for every partition run of the table and they for it. The keys name the
// table, not the job: two jobs writing one table take turns too. Locks are
// released when tx ends, and by the server when the process dies, so
// release is a no-op. The wait is bounded by lock_timeout for the rest of
// the transaction (so a table lock another session holds is bounded too);
// it runs under a savepoint, so after a timeout the transaction can still
// ask who holds the lock.
func (d *DB) Lock(ctx context.Context, tx *sql.Tx, scope engine.LockScope, timeout time.Duration) (func(), error) {
	ms := timeout.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	const maxMS = 1<<31 - 1 // lock_timeout is an int of milliseconds
	if ms > maxMS {
		ms = maxMS
	}
	tableKey, partKey := lockKeys(scope)
	type step struct {
		q    string
		args []any
		key  int64 // the key this step waits for, 0 for none
	}
	steps := []step{
		{"SELECT set_config('lock_timeout', $1, true)", []any{fmt.Sprintf("%dms", ms)}, 0},
		{"SAVEPOINT idem_lock", nil, 0},
	}
	if scope.Partition == "" {
		steps = append(steps, step{"SELECT pg_advisory_xact_lock($1)", []any{tableKey}, tableKey})
	} else {
		steps = append(steps,
			step{"SELECT pg_advisory_xact_lock_shared($1)", []any{tableKey}, tableKey},
			step{"SELECT pg_advisory_xact_lock($1)", []any{partKey}, partKey})
	}
	steps = append(steps, step{"RELEASE SAVEPOINT idem_lock", nil, 0})
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "55P03" { // lock_not_available
				return nil, fmt.Errorf("locking %s: %w", scope, err)
			}
			return nil, fmt.Errorf("%w: %s is being loaded by %s; waited %s",
				engine.ErrLocked, scope, d.holder(ctx, tx, s.key), timeout)
		}
	}
	return func() {}, nil
}

// unreachable reports a connection that failed for a reason a later
// attempt may not meet: the network (refused, unresolvable, timed out) or a
// server not taking connections now. A refused password is not one.
func unreachable(ctx context.Context, err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P03", "53300": // cannot_connect_now (starting up), too_many_connections
			return true
		}
		return false
	}
	if ctx.Err() != nil { // the caller's own cancellation, not the server's
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED)
}

// Interpret maps a statement's error onto the engine's sentinels: a lock
// not obtained within lock_timeout (idem's own or one another session
// holds on the table) or a deadlock is a lock wait that ran out, exit 75.
func (d *DB) Interpret(err error) error {
	if errors.Is(err, engine.ErrLocked) || errors.Is(err, engine.ErrConnLost) {
		return err
	}
	if cause := lostConnection(err); cause != nil {
		// Said in its own words, not wrapped in the step's (a COPY cut
		// short would otherwise read as a bad line of the input).
		return fmt.Errorf("%w (%w); the server rolled back what the run had not committed: run it again", engine.ErrConnLost, cause)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "55P03": // lock_not_available: lock_timeout ran out
		return fmt.Errorf("%w: a lock another session holds was not released within --lock-timeout: %w", engine.ErrLocked, err)
	case "40P01": // deadlock_detected: this run was chosen to yield
		return fmt.Errorf("%w: a deadlock with another session: %w", engine.ErrLocked, err)
	}
	return err
}

var _ engine.ErrorInterpreter = (*DB)(nil)

// lostConnection returns the error that says the run's connection ended
// (the server terminated the session or shut down, or the socket broke),
// or nil when err is about something else.
func lostConnection(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now
			return pe
		case strings.HasPrefix(pe.Code, "08"): // connection_exception
			return pe
		}
		return nil
	}
	for _, target := range []error{driver.ErrBadConn, pgconn.ErrConnClosed, net.ErrClosed, syscall.ECONNRESET, syscall.EPIPE} {
		if errors.Is(err, target) {
			return target
		}
	}
	return nil
}

// holderSQL finds the session holding an advisory lock: a bigint key shows
// in pg_locks as classid (high half), objid (low half) and objsubid 1.
const holderSQL = `SELECT a.pid, coalesce(a.application_name, ''),
  CASE WHEN a.client_addr IS NOT NULL THEN host(a.client_addr) WHEN a.client_port = -1 THEN 'local socket' ELSE 'unknown' END,
  coalesce(to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), '')
FROM pg_catalog.pg_locks AS l JOIN pg_catalog.pg_stat_activity AS a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
  AND l.classid::bigint = $1 AND l.objid::bigint = $2 AND l.objsubid = 1 AND l.pid <> pg_backend_pid()
LIMIT 1`

// holder names the session holding the lock, for the error message.
func (d *DB) holder(ctx context.Context, tx *sql.Tx, key int64) string {
	if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT idem_lock"); err != nil {
		return "another run"
	}
	u := uint64(key)
	var pid int64
	var app, addr, since string
	err := tx.QueryRowContext(ctx, holderSQL, int64(u>>32), int64(u&0xffffffff)).Scan(&pid, &app, &addr, &since)
	if err != nil {
		return "another run (it has just finished, or its session is not visible to this role)"
	}
	s := fmt.Sprintf("another run (pid %d, application_name %q, client %s", pid, app, addr)
	if since != "" {
		s += ", in a transaction since " + since
	}
	return s + ")"
}

// Capabilities: every step of a run in one transaction.
func (d *DB) Capabilities() engine.Capabilities { return engine.Declare(d, engine.CommitTransaction) }
