package postgres

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
)

// Dialect is PostgreSQL's SQL. It is pure: no database is touched.
type Dialect struct{ stdsql.ANSI }

var (
	_ engine.Dialect = Dialect{}
	_ engine.Stager  = Dialect{}
)

// String renders a string literal. A backslash switches to the E'…' form,
// whose meaning does not depend on standard_conforming_strings.
func (Dialect) String(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		q = "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// TimeKindOf classifies type names as database/sql reports them through
// pgx (DATE, TIMESTAMP, TIMESTAMPTZ), and their long spellings.
func (Dialect) TimeKindOf(sqlType string) (engine.TimeKind, bool) {
	switch strings.ToUpper(strings.TrimSpace(sqlType)) {
	case "DATE":
		return engine.KindDate, true
	case "TIMESTAMP", "TIMESTAMP WITHOUT TIME ZONE":
		return engine.KindTimestamp, true
	case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE":
		return engine.KindTimestampTZ, true
	}
	return 0, false
}

// StageQuery materializes a query's result.
func (d Dialect) StageQuery(stage, query string) string {
	return fmt.Sprintf("CREATE TEMP TABLE %s AS %s", d.Ident(stage), strings.TrimRight(strings.TrimSpace(query), ";"))
}

// isText reports types whose order depends on a collation.
func isText(typ string) bool {
	switch strings.ToUpper(typ) {
	case "TEXT", "VARCHAR", "BPCHAR", "CHAR", "CHARACTER VARYING", "CHARACTER":
		return true
	}
	return false
}

// ContentKey compares text bytewise (COLLATE "C"), as DuckDB does: under
// the database's collation the order could differ between databases, and a
// nondeterministic (case-insensitive) collation would leave ties to chance.
// JSON has no ordering, so it is compared as its text.
func (Dialect) ContentKey(expr, sqlType string) string {
	switch {
	case isText(sqlType):
		return expr + ` COLLATE "C"`
	case strings.EqualFold(sqlType, "JSON"):
		return "CAST(" + expr + ` AS TEXT) COLLATE "C"`
	}
	return expr
}

// Dedup keeps each key's first row in the row order (stdsql.RowOrder), so
// the survivor never depends on the order rows arrived in.
func (d Dialect) Dedup(dst, src string, key []string, latestBy, deleteWhen string, cols []engine.Column) string {
	keys := d.Idents(key)
	order := append([]string{keys}, stdsql.RowOrder(d, key, latestBy, deleteWhen, cols)...)
	return fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT DISTINCT ON (%s) * FROM %s ORDER BY %s",
		d.Ident(dst), keys, d.Ident(src), strings.Join(order, ", "))
}

// lockKey is a 64-bit advisory lock key for a name. It is computed here, not
// with a server hash function, so the key is the same on every server
// version and can be looked up in pg_locks.
func lockKey(parts ...string) int64 {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p) // length-prefixed: no ambiguous joins
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8]))
}

// CreateTableFrom creates the target with the staged columns and no rows.
// Two first runs of one table (different partitions, at once) would race to
// create it, and CREATE … IF NOT EXISTS does not wait for an uncommitted
// twin: an advisory lock held until commit makes them take turns.
func (d Dialect) CreateTableFrom(target engine.Table, stage, loadedAt string) []string {
	stmts := d.CreateLock(target)
	if target.Schema != "" {
		stmts = append(stmts, ifNotCreated("CREATE SCHEMA IF NOT EXISTS "+d.Ident(target.Schema)))
	}
	extra := ""
	if loadedAt != "" {
		extra = ", CAST(NULL AS TIMESTAMPTZ) AS " + d.Ident(loadedAt)
	}
	return append(stmts, ifNotCreated(fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS SELECT *%s FROM %s WITH NO DATA", d.Table(target), extra, d.Ident(stage))))
}

// CreateLock is the advisory lock CreateTableFrom takes first.
func (Dialect) CreateLock(target engine.Table) []string {
	return []string{fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", lockKey("idem", "create", target.Schema, target.Name))}
}

// ifNotCreated runs a CREATE … IF NOT EXISTS that a concurrent first run of
// another partition may have just committed: after waiting for its lock, a
// session's catalog cache can still miss it (an advisory lock does not
// refresh the cache), so IF NOT EXISTS goes ahead and hits the catalog's
// unique index. The object exists then, which is all the run needs; the
// handler's savepoint keeps the run's transaction usable.
func ifNotCreated(stmt string) string {
	return "DO $idem$ BEGIN\n" + stmt + ";\nEXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_schema THEN NULL;\nEND $idem$"
}

// AddColumn adds a nullable column with the staged column's exact type
// (format_type gives numeric(12,2) where database/sql says only NUMERIC),
// read from the catalog by the statement itself.
func (d Dialect) AddColumn(target engine.Table, stage string, c engine.Column) string {
	return d.addColumnLike(target, "pg_temp."+d.Ident(stage), c.Name)
}

// addColumnLike adds column col to target with the type it has in table
// from (quoted).
func (d Dialect) addColumnLike(target engine.Table, from, col string) string {
	return fmt.Sprintf(`DO $idem$ BEGIN
EXECUTE format('ALTER TABLE %%s ADD COLUMN %%I %%s', %s, %s, (SELECT format_type(a.atttypid, a.atttypmod)
  FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = to_regclass(%s) AND a.attname = %s));
END $idem$`, d.String(d.Table(target)), d.String(col), d.String(from), d.String(col))
}

// Checksum sums a 64-bit hash of each row: order-independent and, unlike XOR,
// duplicate-sensitive. hash_record_extended hashes each column with its
// type's own extended hash function (stable across platforms and versions:
// hash partitioning relies on them), cheaper than hashing the row's text
// (docs/decisions/0012-row-checksum-hashes.md). Columns of types without such
// a function (json, xml, geometric types) are hashed as text, pinned by the
// session settings Open makes. The sum is NUMERIC and may be negative; the
// runner reduces it modulo 2^64.
func (d Dialect) Checksum(table string, cols []engine.Column, where string) string {
	q := fmt.Sprintf("SELECT count(*), CAST(coalesce(sum(%s), 0) AS TEXT) FROM %s", d.rowHash(cols), table)
	if where != "" {
		q += " WHERE " + where
	}
	return q
}

// PlacementChecksum is Placement's counts and Checksum's sum over the
// rows where cond holds, in one scan (engine.PlacementChecksummer).
func (d Dialect) PlacementChecksum(table, cond, col string, cols []engine.Column) string {
	return fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE %s), count(*) FILTER (WHERE %s IS NULL), CAST(coalesce(sum(%s) FILTER (WHERE %s), 0) AS TEXT) FROM %s",
		cond, d.Ident(col), d.rowHash(cols), cond, table)
}

// rowHash is the checksum's hash of one row of cols.
func (d Dialect) rowHash(cols []engine.Column) string {
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = d.Ident(c.Name)
		if !hashable(c.Type) {
			exprs[i] = "CAST(" + exprs[i] + " AS TEXT)"
		}
	}
	return fmt.Sprintf("hash_record_extended(ROW(%s), 0)", strings.Join(exprs, ", "))
}

// hashable reports whether a type (as database/sql names it through pgx)
// has an extended hash function; anything not known to is hashed as text.
func hashable(typ string) bool {
	switch strings.TrimPrefix(strings.ToUpper(typ), "_") { // "_INT8" is an array of INT8
	case "INT2", "INT4", "INT8", "NUMERIC", "FLOAT4", "FLOAT8", "TEXT", "VARCHAR", "BPCHAR", "NAME",
		"DATE", "TIME", "TIMETZ", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL", "BOOL", "UUID", "BYTEA", "JSONB", "CHAR", "OID":
		return true
	}
	return false
}

// TableExists looks a regular or partitioned table up in the catalog; an
// unqualified name is looked up where CREATE TABLE would put it.
func (d Dialect) TableExists(t engine.Table) (string, []any) {
	if t.Schema == "" {
		return "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = $1", []any{t.Name}
	}
	return "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = $2", []any{t.Schema, t.Name}
}

// ledgerTypes spell the ledger's logical types.
var ledgerTypes = engine.ColumnTypes{Text: "TEXT", Int64: "BIGINT", Bool: "BOOLEAN", Instant: "TIMESTAMPTZ"}

// LedgerDDL creates idem_runs. Concurrent first runs would race to create it
// (CREATE TABLE IF NOT EXISTS fails on an uncommitted twin), so the check
// and the create run under an advisory lock, in one statement. A column a
// later version brought is added to a table an older version created, only
// when it is missing: ALTER TABLE … ADD COLUMN IF NOT EXISTS takes an
// exclusive lock even when the column exists, so it would wait for every
// open run that has read the ledger.
func (d Dialect) LedgerDDL(t engine.Table, def engine.TableDef) []string {
	var b strings.Builder
	fmt.Fprintf(&b, "DO $idem$ BEGIN\nPERFORM pg_advisory_xact_lock(%d);\n%s;\n", lockKey("idem", "create", t.Schema, t.Name), d.CreateTable(t, def))
	for _, c := range def.Added() {
		if c.Note != "" {
			b.WriteString("-- " + c.Note + "\n")
		}
		fmt.Fprintf(&b, "IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass(%s) AND attname = %s AND NOT attisdropped) THEN\n",
			d.String(d.Table(t)), d.String(c.Name))
		fmt.Fprintf(&b, "  ALTER TABLE %s ADD COLUMN %s;\nEND IF;\n", d.Table(t), d.ColumnSQL(c, ledgerTypes, true))
	}
	b.WriteString("END $idem$")
	return []string{b.String()}
}

// CreateTable creates a table of def if it does not exist.
func (d Dialect) CreateTable(t engine.Table, def engine.TableDef) string {
	return d.CreateTableSQL(t, def, ledgerTypes)
}

// inspect is the standard Inspect group but for CountDistinct.
type inspect struct{ stdsql.Standard }

// CountDistinct counts with count(DISTINCT …), which sorts in the aggregate:
// on keys just loaded (no statistics yet) the planner misjudges a subquery of
// SELECT DISTINCT (docs/decisions/0011-count-distinct-per-engine.md). Several
// columns count as one row value, whose NULL fields compare equal, as
// DISTINCT's do; one column natively, faster, with its NULL counted apart.
func (s inspect) CountDistinct(table string, cols []string) string {
	if len(cols) == 1 {
		c := s.D.Ident(cols[0])
		return fmt.Sprintf("SELECT count(DISTINCT %s) + CASE WHEN bool_or(%s IS NULL) THEN 1 ELSE 0 END FROM %s", c, c, table)
	}
	ids := make([]string, len(cols))
	for i, c := range cols {
		ids[i] = s.D.Ident(c)
	}
	return fmt.Sprintf("SELECT count(DISTINCT (%s)) FROM %s", strings.Join(ids, ", "), table)
}

// sqlText is the engine's SQL: its own spelling where it differs, the
// standard one elsewhere.
var sqlText = func() *engine.SQL {
	d, std := Dialect{}, stdsql.Standard{D: Dialect{}}
	return &engine.SQL{Dialect: d, Types: d, Stage: d, Catalog: d, Check: d, Merge: d,
		Inspect: inspect{std}, Write: std, Cond: std, Temp: std, Ledger: d, Records: std,
		Scratch: std, Diff: stdsql.TextDiffer{D: d, Text: stdsql.StandardText}, Index: d}
}()

// CreateIndex creates an index, if missing, as the target is created:
// under the same advisory lock (CreateTableFrom takes it), and tolerant of
// a concurrent first run's index its session's catalog cache may miss.
func (d Dialect) CreateIndex(t engine.Table, name, purpose string, cols []string) []string {
	return []string{ifNotCreated(d.IndexDDL(t, name, purpose, cols))}
}

// IndexDDL creates the index a purpose needs, if it does not exist. A
// partition's rows are found with a BRIN index: idem writes a partition in
// one INSERT, so its rows lie together, and a BRIN index (one summary per
// 128 pages) costs a load next to nothing, where a B-tree slows it
// (docs/decisions/0013-partition-indexes.md). A key is looked up in a unique
// B-tree. On a large table that others write, CREATE INDEX CONCURRENTLY
// (outside a transaction) builds it without blocking them.
func (d Dialect) IndexDDL(t engine.Table, name, purpose string, cols []string) string {
	if purpose == engine.IndexKey {
		return fmt.Sprintf("CREATE UNIQUE INDEX IF NOT EXISTS %s ON %s (%s)", d.Ident(name), d.Table(t), d.Idents(cols))
	}
	return fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s USING brin (%s) WITH (autosummarize = on)", d.Ident(name), d.Table(t), d.Idents(cols))
}

// DropIndex drops an index of t's schema, if it exists.
func (d Dialect) DropIndex(t engine.Table, name string) string {
	return "DROP INDEX IF EXISTS " + d.Table(engine.Table{Schema: t.Schema, Name: name})
}

// IndexedColumns reads the table's indexes from the catalog: any B-tree or
// BRIN index finds a partition's rows by its leading column; a unique
// B-tree looks a key up. (Expression columns, attnum 0, have no name and
// match no column.)
func (d Dialect) IndexedColumns(t engine.Table) (string, []any) {
	return `SELECT concat_ws(chr(1), CASE WHEN am.amname IN ('btree', 'brin') THEN 'partition' END,
    CASE WHEN am.amname = 'btree' AND x.indisunique THEN 'key' END),
  array_to_string(ARRAY(
    SELECT coalesce(a.attname, '') FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
    LEFT JOIN pg_catalog.pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
    ORDER BY k.ord), chr(1))
FROM pg_catalog.pg_index AS x
JOIN pg_catalog.pg_class AS i ON i.oid = x.indexrelid
JOIN pg_catalog.pg_am AS am ON am.oid = i.relam
WHERE x.indrelid = to_regclass($1)`, []any{d.Table(t)}
}
