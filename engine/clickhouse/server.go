package clickhouse

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	chgo "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/dsn"
	"github.com/idemdata/idem/input"
)

// A ClickHouse server (clickhouse://user:password@host:9000/database,
// clickhouses:// for TLS) is reached with clickhouse-go's native protocol,
// through the same dialect as chDB. One native connection is one server
// session: the run's temporary tables live on the pinned connection, as
// on the other server engines. Statements are bound as chDB's are (Bind:
// typed literals), so both paths run the same text. libchdb.so is never
// loaded on this path.

func init() {
	for _, scheme := range []string{"clickhouse", "clickhouses"} {
		engine.Register(scheme, engine.Driver{
			Name:    "clickhouse",
			Form:    scheme + "://…",
			Example: scheme + "://default@127.0.0.1:" + defaultPort(scheme) + "/warehouse",
			Lexicon: &lexicon,
			// Runs of one table must not overlap on a server (it takes no
			// lock for idem), so a backfill runs its partitions in turn.
			ConcurrentWriters: false,
			Open:              openServerTarget,
		})
	}
}

func defaultPort(scheme string) string {
	if scheme == "clickhouses" {
		return "9440"
	}
	return "9000"
}

// openServerTarget connects to a clickhouse:// URL (the whole URL is the
// location).
func openServerTarget(ctx context.Context, url string, o engine.OpenOptions) (engine.DB, error) {
	s, err := OpenServer(ctx, url, o.LockTimeout, o.ReadOnly)
	if errors.Is(err, dsn.ErrURL) {
		return nil, engine.BadTarget(err)
	}
	if err != nil { // a nil *Server must not become a non-nil engine.DB
		return nil, err
	}
	return s, nil
}

// fixedParams are clickhouse-go URL parameters idem decides itself: no
// driver logging (it could print what idem redacts). The protocol is
// always native: the URL clickhouse-go parses is clickhouse://.
var fixedParams = []string{"debug"}

// ServerOptions parses a clickhouse:// or clickhouses:// URL into
// clickhouse-go's options, with the session settings every chDB session
// has (settings) sent with every statement, and readonly = 2 for a
// read-only open (idem checksum's --where is the user's SQL; 2 still lets
// the settings be sent). The password is split off before anything parses
// the rest, so no error can echo it. Other URL parameters are
// clickhouse-go's (dial_timeout, compress, skip_verify, …) or server
// settings.
func ServerOptions(url string, lockTimeout time.Duration, readOnly bool) (*chgo.Options, error) {
	u, err := dsn.ParseServerURL(url)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: clickhouse target %s: %s", dsn.ErrURL, dsn.Redact(url), fmt.Sprintf(format, args...))
	}
	rest, query, _ := strings.Cut(u.Rest, "?")
	hostPort, dbName, _ := strings.Cut(rest, "/")
	if strings.Contains(dbName, "/") {
		return nil, bad("a database name cannot hold '/' (%s://user@host:9000/DATABASE)", u.Scheme)
	}
	addr, err := serverAddr(hostPort, defaultPort(u.Scheme))
	if err != nil {
		return nil, bad("%v", err)
	}
	for _, p := range fixedParams {
		if strings.Contains("&"+query, "&"+p+"=") {
			return nil, bad("parameter %s is idem's to set", p)
		}
	}
	if u.Scheme == "clickhouses" {
		query = strings.TrimPrefix(query+"&secure=true", "&")
	}
	// clickhouse-go parses its own parameters from a URL without
	// credentials.
	opt, err := chgo.ParseDSN("clickhouse://" + addr + "/?" + query)
	if err != nil {
		return nil, bad("%v", err)
	}
	if u.User != "" {
		opt.Auth.Username = u.User
	}
	if opt.Auth.Username == "" {
		opt.Auth.Username = "default"
	}
	if u.HasPassword {
		opt.Auth.Password = u.Password
	}
	opt.Auth.Database = or(dbName, opt.Auth.Database, "default")
	if opt.DialTimeout == 0 {
		opt.DialTimeout = min(max(lockTimeout, time.Second), time.Minute)
	}
	opt.Debug, opt.Debugf, opt.Logger = false, nil, nil
	for name, v := range SessionSettings() {
		opt.Settings[name] = v
	}
	if readOnly {
		opt.Settings["readonly"] = 2
	}
	return opt, nil
}

func or(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// serverAddr checks host[:port] and gives it a port.
func serverAddr(hostPort, port string) (string, error) {
	if hostPort == "" {
		return "", errors.New("names no host (clickhouse://user@HOST:9000/database)")
	}
	if strings.ContainsAny(hostPort, " \t\r\n,") {
		return "", errors.New("the host holds white space or a comma (more hosts go in the alt_hosts parameter)")
	}
	host, p, err := net.SplitHostPort(hostPort)
	if err != nil {
		host, p = strings.Trim(hostPort, "[]"), port
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("the port of host %q is not a number from 1 to 65535", host)
	}
	return net.JoinHostPort(host, p), nil
}

// SessionSettings are chDB's session settings (settings, "SET name =
// value"), as clickhouse-go sends them with each statement: the server
// path runs with exactly the settings the embedded one does.
func SessionSettings() chgo.Settings {
	out := chgo.Settings{}
	for _, q := range settings {
		name, val, _ := strings.Cut(strings.TrimPrefix(q, "SET "), " = ")
		if n, err := strconv.Atoi(val); err == nil {
			out[name] = n
		} else {
			out[name] = strings.Trim(val, "'")
		}
	}
	return out
}

// Server is an open ClickHouse server target: one pinned connection.
type Server struct {
	db     *sql.DB
	conn   *sql.Conn
	schema string // the connection's database, where idem_runs lives
	url    string // redacted, for messages
}

var (
	_ engine.DB                 = (*Server)(nil)
	_ engine.Swapper            = (*Server)(nil)
	_ engine.PartitionExchanger = (*Server)(nil)
	_ engine.ExchangeNamer      = (*Server)(nil)
	_ engine.ErrorInterpreter   = (*Server)(nil)
)

// OpenServer connects to a clickhouse:// URL. No error carries the
// password; a server that cannot be reached is engine.ErrUnavailable
// (exit 75: try again later), with the host named.
func OpenServer(ctx context.Context, url string, lockTimeout time.Duration, readOnly bool) (*Server, error) {
	red := dsn.NewRedactor(url)
	opt, err := ServerOptions(url, lockTimeout, readOnly)
	if err != nil {
		return nil, red.Error(err)
	}
	red.Add(opt.Auth.Password)
	return openServer(ctx, url, chgo.Connector(opt), red)
}

// openServer opens a Server on clickhouse-go's connector (a fake in
// tests).
func openServer(ctx context.Context, url string, inner driver.Connector, red *dsn.Redactor) (*Server, error) {
	sqlDB := sql.OpenDB(serverConnector{inner: inner, red: red})
	conn, err := sqlDB.Conn(ctx)
	if err == nil {
		err = conn.PingContext(ctx)
	}
	s := &Server{db: sqlDB, conn: conn, url: dsn.Redact(url)}
	if err == nil {
		err = conn.QueryRowContext(ctx, "SELECT currentDatabase()").Scan(&s.schema)
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		sqlDB.Close()
		if unreachable(ctx, err) {
			err = fmt.Errorf("%w (try again later): %w", engine.ErrUnavailable, err)
		}
		return nil, red.Error(fmt.Errorf("connecting to %s: %w", s.url, err))
	}
	return s, nil
}

// unreachable reports whether err says the server could not be reached
// (refused, no route, a name that does not resolve, a timeout), rather
// than that it refused the login or the statement.
func unreachable(ctx context.Context, err error) bool {
	var ex *chgo.Exception
	if errors.As(err, &ex) || ctx.Err() != nil {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED)
}

// Conn is the run's pinned connection: the server session its temporary
// tables live in.
func (s *Server) Conn() engine.Querier { return s.conn }

// Begin starts a transaction that does nothing (see DB.Begin).
func (s *Server) Begin(ctx context.Context) (*sql.Tx, error) { return s.conn.BeginTx(ctx, nil) }

// SQL is the dialect chDB runs too, with the server path's limits.
func (*Server) SQL() *engine.SQL { return serverSQL }

// serverSQL is sqlText but for the types' limits.
var serverSQL = func() *engine.SQL {
	s := *sqlText
	s.Types = serverTypes{}
	return &s
}()

// serverTypes are chDB's types, whose times end earlier on this path:
// clickhouse-go writes a DateTime64 from a time.Time's nanoseconds since
// 1970 in an int64, which end at 2262-04-11 23:47:16.854775807 UTC (a
// later time would wrap around).
type serverTypes struct{ Dialect }

// maxNanoTime is the last microsecond an int64 of nanoseconds holds.
const maxNanoTime = math.MaxInt64 / 1000

// Limits are chDB's, times and instants ending at maxNanoTime.
func (serverTypes) Limits() *input.Limits {
	l := limits
	l.MaxTime, l.MaxInstant = min(l.MaxTime, maxNanoTime), min(l.MaxInstant, maxNanoTime)
	return &l
}

// Names: unqualified tables, and idem_runs, live in the URL's database.
func (s *Server) Names() engine.Names {
	return engine.Names{DefaultSchema: s.schema, Ledger: engine.Table{Name: "idem_runs"}}
}

// Close closes the connection (the session's temporary tables go with it).
func (s *Server) Close() error { return errors.Join(s.conn.Close(), s.db.Close()) }

// Lock takes no lock: a ClickHouse server has none to give. Runs of one
// partition must not overlap (the orchestrator's rule, see
// docs/engines/clickhouse.md); a partition's swap is atomic, so runs with
// the same input write the same partition.
func (*Server) Lock(context.Context, *sql.Tx, engine.LockScope, time.Duration) (func(), error) {
	return func() {}, nil
}

// Swap, Drop, Like, PartitionBy, PartitionKey, SameKey and
// CreatePartitioned are chDB's.

// Swap puts built in table's place (see DB.Swap).
func (*Server) Swap(table, built engine.Table, exists bool) []string {
	return (*DB)(nil).Swap(table, built, exists)
}

// Drop drops a table if it exists.
func (*Server) Drop(t engine.Table) string { return (*DB)(nil).Drop(t) }

// Like creates built AS table.
func (*Server) Like(built, table engine.Table) []string { return (*DB)(nil).Like(built, table) }

// Patches is DB.Patches.
func (*Server) Patches(t engine.Table) (string, []any) { return (*DB)(nil).Patches(t) }

// Links: a server's BuildPartition links parts only for a target without
// a partition key (copied whole); a partition is built empty.
func (*Server) Links(at string) bool { return at == "" }

// Copy is DB.Copy.
func (*Server) Copy(built, table engine.Table) []string { return (*DB)(nil).Copy(built, table) }

// PartitionBy is the grain's partition key.
func (*Server) PartitionBy(col string, k engine.TimeKind, unit, zone string) string {
	return (*DB)(nil).PartitionBy(col, k, unit, zone)
}

// PartitionKey reads the table's partition key.
func (*Server) PartitionKey(t engine.Table) (string, []any) { return (*DB)(nil).PartitionKey(t) }

// SameKey compares partition keys as ClickHouse shows them.
func (*Server) SameKey(have, want string) bool { return (*DB)(nil).SameKey(have, want) }

// CreatePartitioned creates a partitioned target.
func (*Server) CreatePartitioned(target engine.Table, stage, loadedAt, partitionBy string) []string {
	return Dialect{}.CreatePartitioned(target, stage, loadedAt, partitionBy)
}

// ExchangeTable names the table a partition run builds its partition in
// after the partition, <table>__idem_part_<partition>: runs of different
// partitions of one table may run at once on a server, and each builds
// its own. A long table name is shortened and told apart by a hash, as
// index names are, so any target's name fits.
func (*Server) ExchangeTable(target engine.Table, partition string) engine.Table {
	suffix := strings.TrimPrefix(engine.ExchangeSuffix, "__idem_") + "_" + partition
	return engine.Table{Schema: target.Schema, Name: engine.IndexName(target, suffix)}
}

// BuildPartition creates x empty, AS the target (same columns, engine,
// partition key): the runner inserts the partition's rows, and
// ReplacePartition takes that one partition from it. A server, which
// does not restart after each run, keeps a REPLACE PARTITION done (chDB
// does not: see DB.BuildPartition). A target without a partition key (at
// "") is copied whole, as on chDB.
func (*Server) BuildPartition(x, target engine.Table, at string) []string {
	if at == "" {
		return (*DB)(nil).BuildPartition(x, target, at)
	}
	return []string{"CREATE TABLE " + Dialect{}.Table(x) + " AS " + Dialect{}.Table(target)}
}

// ReplacePartition swaps partition at of x in with REPLACE PARTITION,
// atomic on the server (and on each replica of a Replicated table); the
// runner then drops x. A target without a partition key is exchanged
// whole.
func (*Server) ReplacePartition(target, x engine.Table, at string) []string {
	if at == "" {
		return (*DB)(nil).ReplacePartition(target, x, at)
	}
	q := Dialect{}
	return []string{fmt.Sprintf("ALTER TABLE %s REPLACE PARTITION tuple(%s) FROM %s", q.Table(target), at, q.Table(x))}
}

// Interpret maps a connection that ended under a run onto
// engine.ErrConnLost. ClickHouse has nothing to roll back: before the
// swap the target is as it was (the session's tables died with it), after
// it the partition is in place without its ledger row, and the next run
// converges either way.
func (s *Server) Interpret(err error) error {
	if err == nil || errors.Is(err, engine.ErrConnLost) || errors.Is(err, engine.ErrLocked) {
		return err
	}
	var ex *chgo.Exception
	if errors.As(err, &ex) {
		return err
	}
	if errors.Is(err, errBrokenConn) || errors.Is(err, sql.ErrConnDone) || unreachable(context.Background(), err) {
		return fmt.Errorf("%w (%w); the target holds the old partition or the new one (a swap is atomic): run it again", engine.ErrConnLost, err)
	}
	return err
}

// Capabilities: no transactions; partitions are exchanged, tables swapped.
func (s *Server) Capabilities() engine.Capabilities {
	return engine.Declare(s, engine.CommitExchange)
}
