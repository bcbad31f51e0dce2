// Package mysql is idem's MySQL and MariaDB engine: its SQL, a connection
// through go-sql-driver/mysql, partition locks with GET_LOCK, the reader's
// rows streamed in with LOAD DATA LOCAL INFILE, and, because DDL commits the
// open transaction there, staging and an atomic RENAME TABLE swap
// (engine.Swapper) instead of one transaction holding everything.
package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/dsn"
)

// DB is an open MySQL or MariaDB target: one pinned connection.
type DB struct {
	db      *sql.DB
	conn    *sql.Conn
	schema  string // the connection's database, where idem_runs lives
	mariadb bool
	version string
	// statementLog: the server writes its binary log as statements, which
	// InnoDB refuses under READ COMMITTED (error 1665).
	statementLog bool
}

var (
	_ engine.DB               = (*DB)(nil)
	_ engine.Swapper          = (*DB)(nil)
	_ engine.ErrorInterpreter = (*DB)(nil)
	_ engine.LockDescriber    = (*DB)(nil)
)

// sqlMode is every session's sql_mode: the quoting and concatenation the
// dialect writes, literal strings, and errors (not warnings, not silent
// truncation) for values a column cannot hold.
const sqlMode = "ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// Config parses a mysql://user:password@host:port/database?param=value URL
// into the driver's configuration, with idem's session settings. URL
// parameters are the driver's own (tls=true, …); the ones idem depends on
// are fixed. The password is split off before anything parses the rest,
// so no error can echo it.
func Config(url string, lockTimeout time.Duration) (*gomysql.Config, error) {
	u, err := dsn.ParseServerURL(url)
	if err != nil {
		return nil, err
	}
	rest, query, _ := strings.Cut(u.Rest, "?")
	hostPort, dbName, _ := strings.Cut(rest, "/")
	if hostPort == "" {
		hostPort = "127.0.0.1"
	}
	if strings.ContainsAny(hostPort, "()") { // the driver's DSN form, tcp(host:port)
		return nil, fmt.Errorf("%w: mysql target %s: write the host as mysql://user@host:3306/database", dsn.ErrURL, dsn.Redact(url))
	}
	if _, _, err := net.SplitHostPort(hostPort); err != nil {
		hostPort = net.JoinHostPort(strings.Trim(hostPort, "[]"), "3306")
	}
	cfg := gomysql.NewConfig()
	if query != "" {
		// The driver parses its own parameters from a DSN without
		// credentials.
		parsed, err := gomysql.ParseDSN("tcp(" + hostPort + ")/?" + query)
		if err != nil {
			return nil, fmt.Errorf("%w: mysql target %s: %w", dsn.ErrURL, dsn.Redact(url), err)
		}
		cfg = parsed
	}
	if dbName == "" {
		return nil, fmt.Errorf("%w: mysql target %s names no database (mysql://user@host:3306/DATABASE)", dsn.ErrURL, dsn.Redact(url))
	}
	cfg.User, cfg.Passwd = u.User, u.Password
	if cfg.User == "" {
		cfg.User = "root"
	}
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", hostPort, dbName
	cfg.ParseTime, cfg.Loc = true, time.UTC
	cfg.InterpolateParams, cfg.MultiStatements = false, false
	if cfg.Timeout == 0 {
		cfg.Timeout = min(max(lockTimeout, time.Second), time.Minute)
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["sql_mode"] = "'" + sqlMode + "'"
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.Params["character_set_client"] = "utf8mb4"
	cfg.Params["character_set_connection"] = "utf8mb4"
	cfg.Params["character_set_results"] = "utf8mb4"
	// A row lock another session holds is waited for as long as idem's
	// own locks (whole seconds: the server's unit).
	cfg.Params["innodb_lock_wait_timeout"] = fmt.Sprint(max(int64(lockTimeout.Round(time.Second)/time.Second), 1))
	return cfg, nil
}

// Open connects to a mysql:// URL. No error carries the password.
func Open(ctx context.Context, url string, lockTimeout time.Duration) (*DB, error) {
	return open(ctx, url, lockTimeout, false, false)
}

// OpenReadOnly connects like Open, with every transaction of the session
// READ ONLY (which SQL inside a statement cannot turn off): for `idem
// checksum`, whose --where is the user's SQL.
func OpenReadOnly(ctx context.Context, url string, lockTimeout time.Duration) (*DB, error) {
	return open(ctx, url, lockTimeout, true, false)
}

// OpenSource connects like OpenReadOnly, for a job's source database
// (ReadSource): dates and times come as the server's text, which the
// reader reads. The driver would turn a zero date (0000-00-00, stored
// under a sql_mode without NO_ZERO_DATE) into 0001-01-01 and a zero month
// into the month before: the reader refuses both, naming the row.
func OpenSource(ctx context.Context, url string, lockTimeout time.Duration) (*DB, error) {
	return open(ctx, url, lockTimeout, true, true)
}

func open(ctx context.Context, url string, lockTimeout time.Duration, readOnly, source bool) (*DB, error) {
	red := dsn.NewRedactor(url)
	cfg, err := Config(url, lockTimeout)
	if err != nil {
		return nil, red.Error(err)
	}
	cfg.ParseTime = !source
	red.Add(cfg.Passwd)
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, red.Error(fmt.Errorf("%w: mysql target %s: %w", dsn.ErrURL, dsn.Redact(url), err))
	}
	sqlDB := sql.OpenDB(boolConnector{connector})
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		sqlDB.Close()
		if unreachable(ctx, err) {
			err = fmt.Errorf("%w (try again later): %w", engine.ErrUnavailable, err)
		}
		return nil, red.Error(fmt.Errorf("connecting to %s: %w", dsn.Redact(url), err))
	}
	d := &DB{db: sqlDB, conn: conn}
	var schema sql.NullString
	if readOnly {
		_, err = conn.ExecContext(ctx, "SET SESSION TRANSACTION READ ONLY")
	}
	if err == nil {
		err = conn.QueryRowContext(ctx, "SELECT DATABASE(), VERSION(), @@log_bin = 1 AND upper(@@binlog_format) = 'STATEMENT'").
			Scan(&schema, &d.version, &d.statementLog)
	}
	if err != nil {
		conn.Close()
		sqlDB.Close()
		return nil, red.Error(fmt.Errorf("connecting to %s: %w", dsn.Redact(url), err))
	}
	d.schema = schema.String
	d.mariadb = strings.Contains(strings.ToLower(d.version), "mariadb")
	if d.mariadb {
		// The run's temporary tables (staging, the merge plan) in Aria:
		// written and read several times faster than InnoDB's, and they
		// need no transactions (the data transaction only reads them).
		if _, err := conn.ExecContext(ctx, "SET SESSION default_tmp_storage_engine = Aria"); err != nil {
			d.Close()
			return nil, red.Error(fmt.Errorf("connecting to %s: %w", dsn.Redact(url), err))
		}
	}
	return d, nil
}

// Conn is the run's pinned connection: temporary tables live on it.
func (d *DB) Conn() engine.Querier { return d.conn }

// Begin starts the data transaction on the pinned connection, in READ
// COMMITTED: under REPEATABLE READ, InnoDB's default, a partition's DELETE
// through the partition column's index takes gap locks, and concurrent
// runs of neighbouring partitions inserting into those gaps deadlocked
// (error 1213, TestConformance/BackfillOverlappingAtOnce). Each run holds
// its partition's lock (or the table's), so no other run writes the rows
// it reads; a server logging statements (binlog_format STATEMENT) keeps
// its default, which such a log needs.
func (d *DB) Begin(ctx context.Context) (*sql.Tx, error) {
	if d.statementLog {
		return d.conn.BeginTx(ctx, nil)
	}
	return d.conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
}

// SQL is this engine's SQL, as the server spells it.
func (d *DB) SQL() *engine.SQL {
	switch {
	case rowAlias(d.version):
		return sqlRowAlias
	case !strings.Contains(strings.ToLower(d.version), "mariadb"):
		return sqlMySQLOld
	case !hasCRC32C(d.version):
		return sqlOld
	}
	return sqlText
}

// dialect is the server's Dialect: its collation and upsert spelling.
func (d *DB) dialect() Dialect { return d.SQL().Dialect.(Dialect) }

// hasCRC32C reports whether a server (VERSION()) is MariaDB 10.8 or later,
// which has CRC32C(); MySQL has none.
func hasCRC32C(version string) bool {
	if !strings.Contains(strings.ToLower(version), "mariadb") {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 10 || (major == 10 && minor >= 8)
}

// rowAlias reports whether a server (VERSION()) is MySQL 8.0.19 or later,
// where an upsert's new row has an alias.
func rowAlias(version string) bool {
	if strings.Contains(strings.ToLower(version), "mariadb") {
		return false
	}
	var major, minor, patch int
	if _, err := fmt.Sscanf(version, "%d.%d.%d", &major, &minor, &patch); err != nil {
		return false
	}
	return major > 8 || (major == 8 && (minor > 0 || patch >= 19))
}

// Names: a schema is a database; an unqualified table lives in the URL's
// database, and so does idem_runs, named without it: the session's
// database is fixed, so the name always means one table, and a run's SQL
// does not depend on which database the URL names.
func (d *DB) Names() engine.Names {
	return engine.Names{DefaultSchema: d.schema, Ledger: engine.Table{Name: "idem_runs"}}
}

// Close closes the connection: an open transaction rolls back and the
// session's GET_LOCK locks are released.
func (d *DB) Close() error { return errors.Join(d.conn.Close(), d.db.Close()) }

// Swap renames the target away and the built table into its place in one
// RENAME TABLE, which is atomic, then drops the old table. A crash between
// the two leaves the old one under its temporary name, dropped by the
// next swap.
func (d *DB) Swap(table, built engine.Table, exists bool) []string {
	dl := Dialect{}
	if !exists {
		return []string{"RENAME TABLE " + dl.Table(built) + " TO " + dl.Table(table)}
	}
	old := engine.Table{Schema: table.Schema, Name: oldName(table.Name)}
	return []string{
		"DROP TABLE IF EXISTS " + dl.Table(old),
		fmt.Sprintf("RENAME TABLE %s TO %s, %s TO %s", dl.Table(table), dl.Table(old), dl.Table(built), dl.Table(table)),
		"DROP TABLE " + dl.Table(old),
	}
}

// oldName is where a swap moves the replaced table for a moment: within
// the identifier limit (64 on MySQL).
func oldName(name string) string {
	const suffix = "__idem_old"
	if len(name)+len(suffix) > 64 {
		name = name[:64-len(suffix)]
	}
	return name + suffix
}

// Drop drops a table if it exists.
func (d *DB) Drop(t engine.Table) string { return "DROP TABLE IF EXISTS " + Dialect{}.Table(t) }

// Like creates built as a copy of table's definition: its columns with
// their types, its keys and indexes (the merge key's unique index too).
func (d *DB) Like(built, table engine.Table) []string {
	return []string{"CREATE TABLE " + Dialect{}.Table(built) + " LIKE " + Dialect{}.Table(table)}
}

// lockSlots is how many GET_LOCK names one table's partitions hash to: a
// whole-table lock takes them all, in order (so two never deadlock), and a
// partition's takes one. Two partitions that share a slot take turns;
// a bounded number keeps a whole-table lock cheap.
const lockSlots = 32

// lockName is the GET_LOCK name of one slot of a table (at most 64
// characters, the server's limit).
func lockName(t engine.Table, slot int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%d:%s;%d:%s", len(t.Schema), t.Schema, len(t.Name), t.Name)))
	return fmt.Sprintf("idem:%s:%02d", hex.EncodeToString(h[:16]), slot)
}

func partitionSlot(scope engine.LockScope) int {
	h := sha256.Sum256([]byte(scope.Partition))
	return int(h[0]) % lockSlots
}

// lockNames are the GET_LOCK names a scope takes, in order.
func lockNames(scope engine.LockScope) []string {
	if scope.Partition != "" {
		return []string{lockName(scope.Table, partitionSlot(scope))}
	}
	names := make([]string, lockSlots)
	for i := range names {
		names[i] = lockName(scope.Table, i)
	}
	return names
}

// DescribeLock names the GET_LOCK locks Lock takes.
func (d *DB) DescribeLock(scope engine.LockScope) string {
	names := lockNames(scope)
	if len(names) == 1 {
		return fmt.Sprintf("GET_LOCK('%s') (the partition's slot %d of %d)", names[0], partitionSlot(scope), lockSlots)
	}
	return fmt.Sprintf("GET_LOCK('%s' … '%s') (all %d slots of the table)", names[0], names[len(names)-1], lockSlots)
}

// Lock takes the scope's session locks (GET_LOCK) on the pinned
// connection, waiting at most timeout in all; they are held until release,
// or until the session ends (the process died): transactions do not end
// them. tx is not used: GET_LOCK belongs to the session.
func (d *DB) Lock(ctx context.Context, _ *sql.Tx, scope engine.LockScope, timeout time.Duration) (func(), error) {
	deadline := time.Now().Add(timeout)
	var held []string
	release := func() {
		ctx := context.WithoutCancel(ctx)
		for i := len(held) - 1; i >= 0; i-- {
			d.conn.ExecContext(ctx, "DO RELEASE_LOCK(?)", held[i])
		}
		held = nil
	}
	for _, name := range lockNames(scope) {
		wait := time.Until(deadline).Seconds()
		if wait < 0 {
			wait = 0
		}
		var got sql.NullInt64
		if err := d.conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", name, wait).Scan(&got); err != nil {
			release()
			return nil, fmt.Errorf("locking %s: %w", scope, err)
		}
		if got.Int64 != 1 {
			holder := d.holder(ctx, name)
			release()
			return nil, fmt.Errorf("%w: %s is being loaded by %s; waited %s", engine.ErrLocked, scope, holder, timeout)
		}
		held = append(held, name)
	}
	return release, nil
}

// holder names the session holding a lock, for the error message.
func (d *DB) holder(ctx context.Context, name string) string {
	var id sql.NullInt64
	if err := d.conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", name).Scan(&id); err != nil || !id.Valid {
		return "another run (it has just finished)"
	}
	return fmt.Sprintf("another run (connection id %d; SHOW PROCESSLIST shows it)", id.Int64)
}

// unreachable reports a connection that failed for a reason a later
// attempt may not meet: the network, or a server not taking connections.
func unreachable(ctx context.Context, err error) bool {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		// Too many connections (the server's, or the account's
		// max_user_connections: other jobs of the same user hold them),
		// server shutdown in progress.
		case 1040, 1203, 1226, 1053:
			return true
		}
		return false
	}
	if ctx.Err() != nil {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, driver.ErrBadConn)
}

// Interpret maps a statement's error onto the engine's sentinels: a row
// lock not obtained within innodb_lock_wait_timeout, or a deadlock, is a
// lock wait that ran out (exit 75); a connection that ended is ErrConnLost.
func (d *DB) Interpret(err error) error {
	if errors.Is(err, engine.ErrLocked) || errors.Is(err, engine.ErrConnLost) {
		return err
	}
	if cause := lostConnection(err); cause != nil {
		return fmt.Errorf("%w (%w); the server rolled back what the run had not committed: run it again", engine.ErrConnLost, cause)
	}
	var me *gomysql.MySQLError
	if !errors.As(err, &me) {
		return err
	}
	switch me.Number {
	case 1205: // ER_LOCK_WAIT_TIMEOUT
		return fmt.Errorf("%w: a lock another session holds was not released within --lock-timeout: %w", engine.ErrLocked, err)
	case 1213: // ER_LOCK_DEADLOCK
		return fmt.Errorf("%w: a deadlock with another session: %w", engine.ErrLocked, err)
	case 1062: // ER_DUP_ENTRY
		// The rows a run writes have one row per key, byte for byte: a
		// unique index that still finds two equal is on other columns, or
		// its collation ignores case, accents or trailing spaces.
		return fmt.Errorf("%w: a unique index of the table holds two of the rows as equal; idem keeps keys apart byte for byte, so either the index's column is text whose collation ignores case, accents or trailing spaces (idem lint --target names it and the ALTER that fixes it), or the index is on columns other than the job's key", err)
	}
	return err
}

// lostConnection returns the error that says the run's connection ended,
// or nil when err is about something else.
func lostConnection(err error) error {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1053, 1927, 2006, 2013: // shutdown, connection killed, server gone, lost during query
			return me
		}
		return nil
	}
	for _, target := range []error{driver.ErrBadConn, gomysql.ErrInvalidConn, net.ErrClosed, syscall.ECONNRESET, syscall.EPIPE} {
		if errors.Is(err, target) {
			return target
		}
	}
	return nil
}

var _ engine.ZoneChecker = (*DB)(nil)

// CheckZone reports whether the server's time zone tables know zone:
// CONVERT_TZ, which partition.timezone's day needs, returns NULL for a
// zone they do not hold, and they are empty until loaded.
func (d *DB) CheckZone(ctx context.Context, zone string) error {
	var ok sql.NullBool
	err := d.conn.QueryRowContext(ctx, "SELECT CONVERT_TZ(TIMESTAMP '2000-01-01 00:00:00', '+00:00', ?) IS NOT NULL", zone).Scan(&ok)
	if err != nil {
		return err
	}
	if !ok.Bool {
		return errors.New("the server's time zone tables do not hold it (CONVERT_TZ returns NULL); load them: mysql_tzinfo_to_sql /usr/share/zoneinfo | mysql -u root mysql")
	}
	return nil
}

// Capabilities: DDL commits the open transaction, so shapes are built
// beside the target and swapped in.
func (d *DB) Capabilities() engine.Capabilities { return engine.Declare(d, engine.CommitSwap) }
