// Package engine is the seam between the runner, which owns the order of a
// run's steps and its guarantees, and one database family, which owns the SQL
// text of each step and how input is bulk-loaded.
//
// A Dialect is pure: it returns SQL text and never touches a database, so the
// SQL of a run can be golden-tested and printed by `idem plan`. A DB runs
// that SQL over one pinned connection.
package engine

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/idemdata/idem/input"
)

// TimeKind is how a time value is typed in SQL.
type TimeKind int

// Time kinds.
const (
	KindDate        TimeKind = iota // a calendar date
	KindTimestamp                   // a wall-clock timestamp without zone
	KindTimestampTZ                 // an instant
)

// Literaler renders typed time literals. Template rendering needs only this.
type Literaler interface {
	// TimeLiteral renders t as a typed literal, e.g. DATE '2026-11-28'.
	TimeLiteral(t time.Time, k TimeKind) string
}

// Table is a possibly schema-qualified table name.
type Table struct {
	Schema, Name string
}

// Column is a column's name and its type as the engine spells it.
type Column struct {
	Name, Type string
}

// Dialect is the lexical part of an engine's SQL: quoting, literals, and
// placeholders. Every identifier and value that reaches SQL text passes
// through one of these methods.
type Dialect interface {
	Literaler
	// Ident quotes one identifier.
	Ident(name string) string
	// Table quotes a possibly qualified table name.
	Table(t Table) string
	// String renders a string literal.
	String(s string) string
	// Placeholder is the n-th (1-based) bind parameter.
	Placeholder(n int) string
}

// Types is how an engine reads its column types.
type Types interface {
	// TimeKindOf classifies a column type for partition windows; ok is false
	// for types that are not dates or timestamps.
	TimeKindOf(sqlType string) (k TimeKind, ok bool)
	// PartitionStart is the start of the partition (unit hour, day or
	// month) holding the quoted column col's value, instants read in zone.
	PartitionStart(col string, k TimeKind, unit, zone string) string
	// ContentKey is expr, a value of sqlType, as rows are compared by
	// content (de-duplication ties, merge ties): text bytewise, whatever the
	// database's collation, and types without an order as their text.
	ContentKey(expr, sqlType string) string
	// ColumnType is the engine's type for a column the reader typed t:
	// one that holds every value of t exactly.
	ColumnType(t input.Type) string
	// ReaderType is the reader's type for values written into an existing
	// column of sqlType (as Catalog.ColumnTypes spells it): each value must
	// be one of it, exactly. ok is false for a type idem cannot write
	// exactly (the load is refused, naming the column).
	ReaderType(sqlType string) (t input.Type, ok bool)
	// Limits are the ranges of dates and times the engine's types hold,
	// where they are narrower than the reader's (nil: none).
	Limits() *input.Limits
}

// Comparer is what the row order (RowOrder, the merge's guard) is spelled
// with: quoting, and values compared by content.
type Comparer interface {
	Dialect
	ContentKey(expr, sqlType string) string
}

// SQL is all the SQL text of one engine, grouped by purpose: every
// statement a run, a plan, a verify or the ledger executes comes from one of
// these. Each group is a small interface; the groups spelled the same by
// every engine so far have a standard implementation (stdsql.Standard), which an
// engine that spells them differently replaces.
type SQL struct {
	Dialect
	Types   Types
	Stage   Stager
	Catalog Catalog
	Check   Checksummer
	Merge   Merger
	Inspect Inspector
	Write   Writer
	Cond    Conditions
	Temp    Temp
	Ledger  LedgerStatements
	Records Records
	Scratch Scratch
	Diff    Differ
	Index   Indexer        // nil when the engine's storage needs no index (see Indexer)
	Text    TextComparison // nil where text always compares byte for byte
}

// Stager reads input into temporary tables and shapes the target.
type Stager interface {
	// StageQuery creates temporary table stage from a query's result.
	StageQuery(stage, query string) string
	// Dedup creates temporary table dst from src with one row per key: the
	// key's first row in the row order (see RowOrder): the greatest latestBy
	// (if given), a delete (deleteWhen, if given) before a live row, then
	// the whole row. cols carry their types so an engine can compare text
	// bytewise, whatever the database's collation.
	Dedup(dst, src string, key []string, latestBy, deleteWhen string, cols []Column) string
	// CreateStage creates temporary table stage, empty, with cols (their
	// types as the engine spells them), for the reader's rows.
	CreateStage(stage string, cols []Column) []string
	// CreateTableFrom creates target with stage's columns (and no rows),
	// plus a loadedAt column when given.
	CreateTableFrom(target Table, stage, loadedAt string) []string
	// CreateLock makes transactions that may create target take turns,
	// until each ends: after it, a target another run created is committed
	// and seen. Nil where one process holds the database or DDL commits.
	CreateLock(target Table) []string
	// MarkJSON records that columns of t (just created or added) hold
	// JSON, where the engine's type alone does not say so (MariaDB loses
	// the JSON check in CREATE TABLE … AS; ClickHouse keeps JSON as a
	// String): the reader reads later loads into them as JSON.
	MarkJSON(t Table, cols []string) []string
	// AddColumn adds stage's column c to target, nullable, with its staged
	// type.
	AddColumn(target Table, stage string, c Column) string
}

// Catalog asks the database about tables.
type Catalog interface {
	// TableExists selects one row if the table exists; args are bound.
	TableExists(t Table) (string, []any)
	// GeneratedColumns selects the names of target columns whose values
	// the database generates (identity, serial, uuid defaults).
	GeneratedColumns(t Table) (string, []any)
	// ColumnTypes selects each column of t with its full type (precision,
	// scale and length included), in column order: (name, type) rows.
	ColumnTypes(t Table) (string, []any)
}

// Checksummer checksums rows.
type Checksummer interface {
	// Checksum selects (count, checksum) over cols of table, filtered by
	// where (already SQL, or ""). The checksum is an order-independent,
	// duplicate-sensitive sum of row hashes, returned as text. The types let
	// an engine pick how each column is hashed.
	Checksum(table string, cols []Column, where string) string
}

// PlacementChecksummer is an optional ability of a Checksummer: one scan
// that counts where rows belong, as Writer.Placement does, and checksums
// the rows where cond holds, as Checksum does. On a direct first load
// (TxLoader) the rows in the window at the placement count are the ones
// the partition keeps (only rows outside it are deleted after), so the
// run's checksum comes from that scan instead of a second one.
type PlacementChecksummer interface {
	// PlacementChecksum selects (count, count where cond, count where
	// col is NULL, checksum of cols where cond) over table.
	PlacementChecksum(table, cond, col string, cols []Column) string
}

// ChecksumVersioner is a Checksummer whose function changed after ledgers
// had stored checksums made by the older one: idem_runs.checksum is
// compared by later runs (the skip), so a stored value must be compared
// with the function that made it. The current function's checksums carry
// ChecksumTag as a prefix; a stored checksum without it was made by
// LegacyChecksum, and is compared with what LegacyChecksum takes now.
type ChecksumVersioner interface {
	// ChecksumTag prefixes the current function's checksums ("v2:").
	ChecksumTag() string
	// LegacyChecksum is the older function's query, as Checksum's.
	LegacyChecksum(table string, cols []Column, where string) string
}

// Inspector reads rows: columns, counts, samples. Tables are quoted.
type Inspector interface {
	// Columns selects no row of table, for its columns' names and types.
	Columns(table string) string
	// Count selects the number of rows of table where cond holds ("" for
	// every row).
	Count(table, cond string) string
	// CountDistinct selects the number of distinct values of cols (names)
	// in table.
	CountDistinct(table string, cols []string) string
	// Sample selects up to n rows of cols (names) of table where cond
	// holds, as text, in the order of that text.
	Sample(table string, cols []string, cond string, n int) string
	// Head selects up to n rows of cols of table where cond holds ("" for
	// every row), each value as text (NULL as NULL), ordered by order
	// (ORDER BY items, as ShowOrder builds them): `idem show`. The table
	// is read under the alias ShowAlias, which order's items name columns
	// by: a bare name could mean the select list's text of the column.
	Head(table string, cols []Column, cond string, order []string, n int) string
	// GroupCount selects each value of expr over table where cond holds
	// ("" for every row), with its number of rows, in the order of expr.
	GroupCount(table, expr, cond string) string
	// Tally selects each value of column col (a name) of table with its
	// number of rows.
	Tally(table, col string) string
	// RepeatedKey selects the first value of the columns key (names) that
	// table holds in more than one row, its columns then that number,
	// among the values temporary table src (a name) holds; src "" for
	// any value.
	RepeatedKey(table, src string, key []string) string
}

// Writer writes a partition.
type Writer interface {
	// DeleteWhere deletes the rows of table (quoted) where cond holds.
	DeleteWhere(table, cond string) string
	// InsertSelect copies cols (names) of src, where cond holds, into
	// table (both quoted); with loadedAt, that column is bound to
	// parameter 1.
	InsertSelect(table string, cols []string, loadedAt, src, cond string) string
	// Placement selects, over table, the number of rows, of rows where
	// cond holds, and of rows whose column col (a name) is NULL.
	Placement(table, cond, col string) string
}

// Conditions spells the predicates that select rows. Columns are names.
type Conditions interface {
	// Between is col >= lo AND col < hi (lo and hi literals).
	Between(col, lo, hi string) string
	// AnyNull holds when any of cols is NULL.
	AnyNull(cols []string) string
	// NotNull holds when col is not NULL.
	NotNull(col string) string
	// True holds when boolean col is true (not false, not NULL).
	True(col string) string
	// In holds when col is one of the string values.
	In(col string, values ...string) string
	// Not negates cond.
	Not(cond string) string
	// And holds when every cond does.
	And(conds ...string) string
}

// Temp changes the run's temporary tables.
type Temp interface {
	// AlterType converts column col of temporary table stage to typ, as an
	// INSERT into a column of that type would.
	AlterType(stage, col, typ string) string
	// DropTemp drops temporary table name if it exists.
	DropTemp(name string) string
}

// Merge actions, as the merge plan's action column holds them. A staged
// row "wins" when it precedes the key's current row (live or tombstone) in
// the row order, or the key has no current row.
const (
	MergeInsert       = "insert"        // a live row for a new key
	MergeUpdate       = "update"        // a live row wins over a live row
	MergeDelete       = "delete"        // a delete wins over a live row: remove it, remember the delete
	MergeReinsert     = "reinsert"      // a live row wins over a tombstone: insert it, forget the delete
	MergeDeleteAbsent = "delete_absent" // a delete of a key the table does not hold: remember it
	MergeSkip         = "skip"          // the row does not win: its version is older
	// MergeTie: the row does not win, its version equal to the current
	// row's and its content after it in the row order (kept_on_tie).
	MergeTie = "tie"
)

// MergeSpec is what a merge needs to know about its columns.
type MergeSpec struct {
	Target     Table
	Key        []string
	LatestBy   string
	DeleteWhen string // optional boolean column
	// Tombstones is where deletes are remembered (TombstoneTable), set
	// with DeleteWhen.
	Tombstones Table
	Cols       []Column // the staged columns, all written to the target
	LoadedAt   string   // optional metadata column, bound as parameter 1
	// Rewrite asks a Rewriter's Merge to write a matched key's winning row
	// as a delete and an insert instead of an update in place. The runner
	// sets it only where the result is the same (see Rewriter).
	Rewrite bool
}

// Rewriter is an optional ability of a Merger whose engine updates rows in
// place in time that follows the table, not the rows: DuckDB rewrites, when
// the commit checkpoints, every column an UPDATE set in every row group it
// touched (docs/decisions/0007-duckdb-merge-rewrite-by-rowid.md). With
// MergeSpec.Rewrite its Merge's first statement deletes the matched keys'
// rows that lose (to an update or a delete) and its last inserts the
// updates with the new keys; the first statement's rows affected are the
// plan's updates plus deletes, which the runner checks. The runner sets
// Rewrite only when the target has every column the merge writes and no
// other (a delete and an insert would empty a column the merge does not
// write) and RewriteBlockers selects no row.
type Rewriter interface {
	// RewriteBlockers selects a row for each constraint or index that
	// refuses a key deleted and inserted again in one transaction: a
	// primary key, unique constraint or unique index on t, a foreign key
	// on it or referencing it; args are bound.
	RewriteBlockers(t Table) (string, []any)
}

// Merger spells the merge strategy's steps.
type Merger interface {
	// Tombstones creates m.Tombstones if it does not exist: the target's
	// columns, and a primary key or unique index on the key where the
	// engine keeps one (DuckDB and ClickHouse do not).
	Tombstones(m MergeSpec) []string
	// RekeyTombstones gives m.Tombstones, which exists, its unique key on
	// m.Key in place of the one on the key it was made with (the job's
	// key changed); none where the table has no unique key.
	RekeyTombstones(m MergeSpec) []string
	// TombstoneColumn adds the target's column c (as read from it) to
	// m.Tombstones, with the type it has in the target.
	TombstoneColumn(m MergeSpec, c Column) string
	// MergePlan creates temporary table plan: every row of src with an
	// action column (named by the last argument) saying what the merge will
	// do with it (one of the Merge* actions).
	MergePlan(plan, src, action string, m MergeSpec) string
	// Merge applies a plan, by name.
	Merge(plan, action string, m MergeSpec) MergeStatements
}

// MergeStatements apply a merge plan: Matched, then Tombstones, then
// Insert.
type MergeStatements struct {
	// Matched deletes and updates the target's matched keys, and changes
	// nothing else. The runner leaves it out when the plan has no update
	// and no delete: on ClickHouse even a DELETE of no key mutates every
	// part. With MergeSpec.Rewrite, its rows affected are the plan's
	// updates plus deletes, which the runner checks.
	Matched []string
	// Tombstones writes and removes tombstones (MergeSpec.Tombstones set).
	Tombstones []string
	// Insert inserts keys into the target.
	Insert []string
}

// LedgerStatements create and write the ledger. Its tables' shapes are
// defined once, in package ledger, and handed in.
type LedgerStatements interface {
	// LedgerDDL creates table t of def (idem_runs) if it does not exist,
	// and adds the columns def.Added lists to one an older version created.
	LedgerDDL(t Table, def TableDef) []string
	// CreateTable creates table t of def if it does not exist.
	CreateTable(t Table, def TableDef) string
	// Upsert inserts one row of cols (bound in order), replacing the row
	// with the same key.
	Upsert(t Table, cols, key []string) string
}

// Querier is what SQL runs on: *sql.Conn and *sql.Tx both satisfy it.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// DB is one open target: its SQL and one pinned connection, on which
// temporary tables live.
type DB interface {
	RowLoader
	SQL() *SQL
	// Conn runs statements outside a transaction, on the pinned connection.
	Conn() Querier
	// Begin starts the data transaction on the pinned connection.
	Begin(ctx context.Context) (*sql.Tx, error)
	// Lock makes tx the only writer of what scope covers until tx ends,
	// waiting at most timeout; the caller calls release after tx has ended.
	// It returns an error wrapping ErrLocked when the wait ran out.
	Lock(ctx context.Context, tx *sql.Tx, scope LockScope, timeout time.Duration) (release func(), err error)
	// Names says where things live in this database.
	Names() Names
	// Capabilities is what the engine can do beyond this interface
	// (Declare builds it).
	Capabilities() Capabilities
	Close() error
}

// Names is where things live in one database.
type Names struct {
	DefaultSchema string // where an unqualified table name lives
	Ledger        Table  // idem_runs
}

// LockScope is what a run writes: one partition of a table, or (Partition
// "") any row of it. Locks are keyed on the table, not on the job, so two
// jobs writing one table take turns too. A whole-table scope excludes every
// partition scope of the table and the other way round; partition scopes
// of one table exclude only each other's partition.
type LockScope struct {
	Table     Table // schema-qualified: the engine's default schema filled in
	Partition string
}

func (s LockScope) String() string {
	t := s.Table.Name
	if s.Table.Schema != "" {
		t = s.Table.Schema + "." + t
	}
	if s.Partition == "" {
		return t + " (whole table)"
	}
	return t + " partition " + s.Partition
}

// RowLoader is how an engine receives the input's rows, which the reader
// (package input) has read and typed: no value is parsed by the database.
// LoadRows appends every row rows yields to table t, which exists with
// exactly cols (in order, their types as the engine spells them: a staging
// table, a new target, or a table built to replace one), on q (the run's
// transaction or connection), and returns how many it appended. rec sees
// each statement it runs, for plans. A value the column cannot take is the
// engine's error (the reader has checked every value against the column's
// type and the engine's Limits, so it is a bug or a changed target).
type RowLoader interface {
	LoadRows(ctx context.Context, q Querier, t Table, cols []Column, rows *input.Reader, rec func(string)) (int64, error)
	// LoadPath says how the rows travel, for plans: "COPY FROM STDIN
	// (binary)".
	LoadPath() string
}

// SplitChecksummer is an optional DB ability, found by type assertion:
// Checksummer.Checksum's row count and exact sum over a table's rows
// matching where, taken over several connections at once, each summing a
// share of the rows. The server's CPUs share a checksum one query would
// take on one. Only for a table whose rows are committed and that nothing
// writes until it returns: a direct load's built table (BuildLoader),
// which only its run writes, under the whole table's lock, and whose data
// transaction deletes only rows outside the window. rec is called with
// each query, in order, before any runs.
type SplitChecksummer interface {
	ChecksumSplit(ctx context.Context, table string, cols []Column, where string, rec func(string)) (int64, string, error)
}

// IsFloat reports whether a column type, as any engine spells it, is
// binary floating point.
func IsFloat(sqlType string) bool {
	switch strings.ToUpper(unwrap(sqlType)) {
	case "FLOAT", "FLOAT4", "FLOAT8", "REAL", "DOUBLE", "DOUBLE PRECISION", "FLOAT32", "FLOAT64":
		return true
	}
	return false
}

// ErrInterrupted marks a run stopped by its context (SIGINT, SIGTERM): its
// transaction was rolled back, or ended with its connection. The CLI maps
// it to exit 130.
var ErrInterrupted = errors.New("interrupted; the target is unchanged")

// ErrUnavailable marks a target that could not be reached (connection
// refused, a host that does not resolve, a timeout): nothing was tried, and
// a later attempt may work. The CLI maps it to exit 75.
var ErrUnavailable = errors.New("the target could not be reached")

// ErrConnLost marks a run whose connection ended under it (the server
// terminated its session, restarted, or the network dropped it): the
// server rolled back whatever the run had not committed, so the target
// holds the last committed run's data. The CLI maps it to exit 1, like any
// failed run: a scheduler's retry reruns it, which converges.
var ErrConnLost = errors.New("the connection to the target was lost")

// ZoneChecker is an optional DB ability of an engine that converts time
// zones with tables of its own (MySQL's CONVERT_TZ): it reports whether
// the database knows an IANA zone, saying how to teach it when not.
type ZoneChecker interface {
	CheckZone(ctx context.Context, zone string) error
}

// ErrorInterpreter is an optional DB ability: it maps the driver's errors
// onto the sentinels above (a lock timeout in any statement becomes
// ErrLocked), keeping the original in the chain.
type ErrorInterpreter interface {
	Interpret(err error) error
}

// ErrLocked is returned when another run held the lock for longer than the
// lock timeout. The CLI maps it to exit 75.
var ErrLocked = errors.New("partition is locked by another run")

// Swapper is an optional DB ability of an engine whose DDL commits the
// open transaction (MySQL, MariaDB). Guarantee 2 then rests on staging and
// an atomic swap instead of one transaction: the runner keeps every DDL
// statement out of the data transaction, which holds DML only. It stages
// the input and runs its checks and DDL before the transaction begins, and
// drops its temporary tables after it ends; Lock is called with a nil tx
// and holds until release. A run that must change the target's shape
// (create it, add a column) builds the new table beside it, writes into
// that in the data transaction, and then swaps it in.
type Swapper interface {
	// Swap puts built in table's place in one atomic step, dropping the
	// old table; exists says whether table exists.
	Swap(table, built Table, exists bool) []string
	// Drop drops table t if it exists (a crashed run's built table).
	Drop(t Table) string
	// Like creates built, empty, with table's columns and their types (and
	// what else the engine copies: indexes, keys), so a rebuild changes
	// nothing of the columns a target has, as ADD COLUMN would not.
	Like(built, table Table) []string
}

// Copier is an optional ability of a Swapper engine that copies a table
// without reading its rows (ClickHouse hard-links its parts): a rebuild's
// table then starts as a copy of its target at a cost that follows the
// number of parts, not rows, where INSERT … SELECT would copy every row.
type Copier interface {
	// Copy creates built as table's copy: Like's structure and every row.
	Copy(built, table Table) []string
}

// PatchHolder is an optional ability of an engine that copies tables by
// linking their parts (Copier, PartitionExchanger.BuildPartition) and
// whose tables may hold changes beside their parts until they are applied
// (ClickHouse's lightweight UPDATE and DELETE write patch parts, which
// ATTACH PARTITION … FROM does not copy): such a copy would bring the old
// values back. When the target holds one, the runner copies its rows.
type PatchHolder interface {
	// Patches selects a row when t holds such changes; args are bound.
	Patches(t Table) (string, []any)
	// Links reports whether BuildPartition(…, at) links the target's
	// parts.
	Links(at string) bool
}

// KeyIndexer is an optional DB ability of an engine whose merge needs a
// unique index on the key (MySQL, MariaDB: without one every key is a
// scan). A merge creates the index on a table it creates or builds, and
// refuses, before changing anything, a target that has none, naming the
// index to add.
type KeyIndexer interface {
	// KeyIndex selects a row when t has a unique index or primary key on
	// exactly the columns key, in any order; args are bound.
	KeyIndex(t Table, key []string) (string, []any)
	// CreateKeyIndex creates that index on t.
	CreateKeyIndex(t Table, key []string) string
	// ReplaceKeyIndex creates that index on a table idem made, in place
	// of the one it made for another key.
	ReplaceKeyIndex(t Table, key []string) string
}

// BuildSuffix names the table a Swapper run builds to replace a target.
const BuildSuffix = "__idem_build"

// PartitionExchanger is an optional DB ability of a Swapper engine that
// has no transactions at all but puts one partition of a table in place in
// one atomic step (ClickHouse); the runner uses it only on an engine that
// is a Swapper too (it does not embed Swapper, to stay small). The targets of the partition strategy it
// creates are partitioned by the job's grain (PartitionBy); a partition
// run builds, beside the target, a table holding the partition's new rows
// (BuildPartition, then the rows), and swaps it in (ReplacePartition); a
// merge run applies the merge to a copy of the target built beside it and
// swaps the whole table in (Swap). The ledger row is written after the
// swap: a crash between the two leaves the new partition and no ledger
// row, and the next run loads it again.
type PartitionExchanger interface {
	// PartitionBy is the partition key the target of a partition job
	// needs: the start of the quoted column col's partition of unit (hour,
	// day, month), instants read in zone. Applied to a literal, it is the
	// partition's value.
	PartitionBy(col string, k TimeKind, unit, zone string) string
	// PartitionKey selects one row: t's partition key as the database
	// shows it ("" for none). args are bound.
	PartitionKey(t Table) (string, []any)
	// SameKey reports whether a key PartitionKey read is want.
	SameKey(have, want string) bool
	// CreatePartitioned creates target with stage's columns (and
	// loadedAt, when given) and no rows, partitioned by partitionBy.
	CreatePartitioned(target Table, stage, loadedAt, partitionBy string) []string
	// BuildPartition creates x, with target's columns and partition key,
	// ready to receive partition at's rows (it may hold target's other
	// partitions: ReplacePartition decides what it takes from x). at ""
	// is a target without a partition key: x is a copy of all its rows,
	// from which the runner deletes the partition's.
	BuildPartition(x, target Table, at string) []string
	// ReplacePartition puts x's partition at in place of target's, in one
	// atomic step (at "": x in place of target); x is dropped afterwards
	// (Drop).
	ReplacePartition(target, x Table, at string) []string
}

// ExchangeNamer is an optional ability of a PartitionExchanger whose runs
// of different partitions of one table may run at once (a server: nothing
// serializes them): it names the table a partition run builds its
// partition in, one per partition, so that two such runs never share it.
// Without it the table is the target's name plus ExchangeSuffix.
type ExchangeNamer interface {
	ExchangeTable(target Table, partition string) Table
}

// The names of a run's temporary tables (its staged input, the input
// de-duplicated, a merge's plan), on the run's own connection. An engine
// whose connections share temporary tables (chDB's one session) gives
// each connection its own names for them.
const (
	StageTable     = "idem_stage"
	DedupTable     = "idem_stage_dedup"
	MergePlanTable = "idem_merge_plan"
	// VersionedTable holds the staged input with the run's version
	// column (latest_by: run) while staging is made anew with it.
	VersionedTable = "idem_stage_versioned"
)

// RunTables lists them.
var RunTables = []string{StageTable, DedupTable, MergePlanTable, VersionedTable}

// ExchangeSuffix names the table a PartitionExchanger run builds a
// partition in.
const ExchangeSuffix = "__idem_part"

// Records reads and writes rows of idem's own tables (idem_runs,
// idem_failures) by column equality: each column named in eq equals the
// bind parameter of its position (1-based).
type Records interface {
	// ColumnNames selects the names of t's columns (none when t does not
	// exist); args are bound.
	ColumnNames(t Table) (string, []any)
	// Select selects cols of t (a nullable one read as '') where eq holds,
	// ordered by orderBy (none for any order).
	Select(t Table, cols []ColumnDef, eq, orderBy []string) string
	// DistinctPairs selects the distinct pairs of columns a and b of t,
	// in order, where a differs from parameter 1.
	DistinctPairs(t Table, a, b string) string
	// MaxSeq selects the greatest seq (0 for none) of t where eq holds.
	MaxSeq(t Table, seq string, eq []string) string
	// NextSeq selects the greatest seq plus one (1 for none) of t where eq
	// holds and, when same is given, the number of those rows whose column
	// same equals the parameter after eq's.
	NextSeq(t Table, seq string, eq []string, same string) string
	// Insert inserts one row of cols, bound in order.
	Insert(t Table, cols []string) string
}

// MemorySizer is an optional DB ability, found by type assertion: an engine
// that runs inside idem's process (DuckDB) sizes its memory for each run,
// on q, in the run's transaction: a merge's joins over the whole target
// gain from more, a load does not (BENCHMARKS.md, "What DuckDB's
// memory_limit costs").
type MemorySizer interface {
	SizeMemory(ctx context.Context, q Querier, use MemoryUse) error
}

// MemoryUse is what a run's next statements do, for MemorySizer.
type MemoryUse int

const (
	MemoryLoad  MemoryUse = iota // a load: rows written, the target scanned
	MemoryMerge                  // a merge: joins over the whole target
	// MemoryStream: rows appended as they are read (a file's through the
	// reader, a source database's), and nothing else; what does not fit
	// spills (docs/decisions/0005-duckdb-memory-limit.md).
	MemoryStream
)

// CommitSizer is an optional DB ability, found by type assertion: an engine
// whose commit must be made another way when it is large (DuckDB: as a
// checkpoint instead of a log entry) is told, on q, just before the data
// transaction commits, about how many rows the run wrote (its input rows
// and the rows it deleted: more, never fewer).
type CommitSizer interface {
	SizeCommit(ctx context.Context, q Querier, rows int64) error
}

// Scratch makes and removes whole tables for `idem verify`.
type Scratch interface {
	// SchemaExists selects the number of schemas named schema (0 or 1);
	// args are bound.
	SchemaExists(schema string) (string, []any)
	// CopyTable creates dst with src's columns and rows.
	CopyTable(dst, src Table) string
	// DropTable drops t if it exists.
	DropTable(t Table) string
}

// Differ compares two tables of the same columns (`idem verify`). Values
// are compared and shown as text, NULL as NULL; rows are joined on key.
type Differ interface {
	// Distinct selects the distinct values of cols in t, as text.
	Distinct(t Table, cols []string) string
	// ColumnDiff is, for tables f and g joined on key, the query counting
	// the rows whose col differs, and the one selecting the first such
	// row's key (as text: "id=7"), f's value and g's.
	ColumnDiff(f, g Table, key []string, col string) (count, sample string)
	// ValueDiff is the query counting the values of col in a that b lacks
	// (as multisets), and the one selecting the first of them.
	ValueDiff(a, b Table, col string) (count, first string)
	// RowDiff selects up to limit rows (as multisets) that f has and g
	// lacks, each as its key's text (k: "" without a key) and the row's
	// text (r), in that order.
	RowDiff(f, g Table, key, cols []string, limit int) string
}
