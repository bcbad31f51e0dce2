package clickhouse

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
)

// Dialect is ClickHouse's SQL, embedded (chDB) or on a server. It is pure:
// no database is touched.
//
// Sessions run with settings Open makes (session): UTC, join_use_nulls
// (a LEFT JOIN's missing side is NULL, as in standard SQL),
// cast_keep_nullable, insert_null_as_default = 0 (a NULL into a column
// that cannot hold it is an error, never a silent default), final = 1
// (reads of the ReplacingMergeTree ledger see one row per key), and
// synchronous lightweight deletes.
type Dialect struct{}

var (
	_ engine.Dialect     = Dialect{}
	_ engine.Types       = Dialect{}
	_ engine.Stager      = Dialect{}
	_ engine.Catalog     = Dialect{}
	_ engine.Checksummer = Dialect{}
	_ engine.Merger      = Dialect{}
)

// Ident quotes an identifier: double quotes, with quotes doubled and
// backslashes escaped (ClickHouse reads escapes in quoted identifiers).
func (Dialect) Ident(name string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `""`).Replace(name) + `"`
}

// Table quotes a possibly qualified table name; a schema is a database.
func (d Dialect) Table(t engine.Table) string {
	if t.Schema == "" {
		return d.Ident(t.Name)
	}
	return d.Ident(t.Schema) + "." + d.Ident(t.Name)
}

// String renders a string literal (backslash escapes are read in
// ClickHouse strings).
func (Dialect) String(s string) string { return quoteString(s) }

// Placeholder is $n: the chDB driver and clickhouse-go both bind it.
func (Dialect) Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// TimeLiteral renders a typed time value.
func (d Dialect) TimeLiteral(t time.Time, k engine.TimeKind) string {
	switch k {
	case engine.KindDate:
		return "toDate(" + d.String(t.Format("2006-01-02")) + ")"
	case engine.KindTimestamp: // in UTC by name: a mutation runs in the server's zone
		return "toDateTime64(" + d.String(t.Format("2006-01-02 15:04:05.999999")) + ", 6, 'UTC')"
	}
	return "parseDateTime64BestEffort(" + d.String(t.Format("2006-01-02T15:04:05.999999-07:00")) + ", 6, 'UTC')"
}

// TimeKindOf classifies ClickHouse types: a DateTime with a zone is an
// instant, one without is wall-clock time (sessions run in UTC).
func (Dialect) TimeKindOf(sqlType string) (engine.TimeKind, bool) {
	t := BaseType(strings.TrimSpace(sqlType))
	switch {
	case t == "Date" || t == "Date32":
		return engine.KindDate, true
	case strings.HasPrefix(t, "DateTime"):
		if strings.Contains(t, "'") {
			return engine.KindTimestampTZ, true
		}
		return engine.KindTimestamp, true
	}
	return 0, false
}

// PartitionStart is the start of col's partition: a Date for day and
// month, a DateTime for hour, read in zone for instants. It is also the
// partition key of the tables idem creates (PartitionBy). A wall-clock
// value is read in UTC by name: a zoneless DateTime64 column otherwise
// takes the server's zone (chDB's is the host's) where a session's
// time zone does not reach, as in a partition key.
func (d Dialect) PartitionStart(col string, k engine.TimeKind, unit, zone string) string {
	tz := ""
	if k == engine.KindTimestamp {
		tz = ", 'UTC'"
	}
	if k == engine.KindTimestampTZ {
		if zone == "" {
			zone = "UTC"
		}
		tz = ", " + d.String(zone)
	}
	switch unit {
	case "hour":
		return "toStartOfHour(" + col + tz + ")"
	case "month":
		return "toStartOfMonth(" + col + tz + ")"
	}
	if k == engine.KindDate {
		return col
	}
	return "toDate(" + col + tz + ")"
}

// ContentKey: ClickHouse compares String bytewise already, with no
// collation; every other type compares by value.
func (Dialect) ContentKey(expr, _ string) string { return expr }

// StageQuery materializes a query's result in a session table.
func (d Dialect) StageQuery(stage, query string) string {
	return fmt.Sprintf("CREATE TEMPORARY TABLE %s ENGINE = Memory AS %s", d.Ident(stage), strings.TrimRight(strings.TrimSpace(query), ";"))
}

func (d Dialect) idents(names []string) string { return stdsql.IdentList(d, names) }

// Dedup keeps each key's first row in the row order (stdsql.RowOrder).
func (d Dialect) Dedup(dst, src string, key []string, latestBy, deleteWhen string, cols []engine.Column) string {
	keys := d.idents(key)
	order := append([]string{keys}, stdsql.RowOrder(d, key, latestBy, deleteWhen, cols)...)
	return fmt.Sprintf("CREATE TEMPORARY TABLE %s ENGINE = Memory AS SELECT * FROM %s ORDER BY %s LIMIT 1 BY %s",
		d.Ident(dst), d.Ident(src), strings.Join(order, ", "), keys)
}

// mergeTree is the engine clause of the tables idem creates: no sorting
// key (idem reads whole partitions), partitioned by partitionBy if given;
// nullable columns may be in the partition key (NULL rows never reach a
// target's partition column: the runner refuses or skips them).
func mergeTree(partitionBy string) string {
	s := "ENGINE = MergeTree"
	if partitionBy != "" {
		s += " PARTITION BY " + partitionBy
	}
	return s + " ORDER BY tuple() SETTINGS allow_nullable_key = 1"
}

// CreateLock: none, no transactions: a first load takes the table's lock and builds beside it.
func (Dialect) CreateLock(engine.Table) []string { return nil }

// CreateTableFrom creates the target (unpartitioned: a merge's table)
// with the staged columns and no rows.
func (d Dialect) CreateTableFrom(target engine.Table, stage, loadedAt string) []string {
	return d.CreatePartitioned(target, stage, loadedAt, "")
}

// CreatePartitioned creates the target with the staged columns, no rows,
// partitioned by partitionBy ("" for none).
func (d Dialect) CreatePartitioned(target engine.Table, stage, loadedAt, partitionBy string) []string {
	var stmts []string
	if target.Schema != "" {
		stmts = append(stmts, "CREATE DATABASE IF NOT EXISTS "+d.Ident(target.Schema))
	}
	extra := ""
	if loadedAt != "" {
		extra = ", CAST(NULL AS Nullable(DateTime64(6, 'UTC'))) AS " + d.Ident(loadedAt)
	}
	return append(stmts, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s %s EMPTY AS SELECT *%s FROM %s",
		d.Table(target), mergeTree(partitionBy), extra, d.Ident(stage)))
}

// AddColumn adds the staged column with its exact type (ClickHouse's type
// names are exact).
func (d Dialect) AddColumn(target engine.Table, _ string, c engine.Column) string {
	return fmt.Sprintf("ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s", d.Table(target), d.Ident(c.Name), c.Type)
}

// dbOf is the database a table lives in: its schema, or the session's.
func (d Dialect) dbOf(t engine.Table, n int) (string, []any) {
	if t.Schema == "" {
		return "currentDatabase()", nil
	}
	return d.Placeholder(n), []any{t.Schema}
}

// TableExists looks the table up in system.tables.
func (d Dialect) TableExists(t engine.Table) (string, []any) {
	db, args := d.dbOf(t, 2)
	return "SELECT 1 FROM system.tables WHERE name = $1 AND database = " + db, append([]any{t.Name}, args...)
}

// GeneratedColumns lists columns ClickHouse fills itself: MATERIALIZED,
// ALIAS and EPHEMERAL ones, and defaults that generate ids.
func (d Dialect) GeneratedColumns(t engine.Table) (string, []any) {
	db, args := d.dbOf(t, 2)
	return "SELECT name FROM system.columns WHERE table = $1 AND database = " + db +
		" AND (default_kind IN ('MATERIALIZED', 'ALIAS', 'EPHEMERAL') OR match(default_expression, '(?i)(generateuuid|generateserialid|generatesnowflakeid|rand)'))", append([]any{t.Name}, args...)
}

// Checksum sums cityHash64 of each row (as a tuple: NULL hashes apart
// from any value) in UInt64, which wraps modulo 2^64 as the runner's
// reduction does: order-independent and duplicate-sensitive.
func (d Dialect) Checksum(table string, cols []engine.Column, where string) string {
	q := fmt.Sprintf("SELECT count(*), toString(sum(cityHash64(tuple(%s)))) FROM %s", d.idents(names(cols)), table)
	if where != "" {
		q += " WHERE " + where
	}
	return q
}

func names(cols []engine.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// Tombstones creates the tombstone table like the target, unpartitioned.
func (d Dialect) Tombstones(m engine.MergeSpec) []string {
	return []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS %s %s", d.Table(m.Tombstones), d.Table(m.Target), mergeTree(""))}
}

// RekeyTombstones: ClickHouse has no unique keys to make anew.
func (d Dialect) RekeyTombstones(engine.MergeSpec) []string { return nil }

// TombstoneColumn adds the target's column c with its type as read
// (ClickHouse gives it whole: Nullable(Decimal(12, 2))).
func (d Dialect) TombstoneColumn(m engine.MergeSpec, c engine.Column) string {
	return d.AddColumn(m.Tombstones, "", c)
}

// MergePlan is the standard plan (one LEFT JOIN of staging with the
// target's rows of the staged keys, stdsql.PlanOptions.Narrow;
// join_use_nulls makes the missing side NULL) in a session table.
func (d Dialect) MergePlan(plan, src, action string, m engine.MergeSpec) string {
	q := stdsql.StandardMergePlanOpts(d, plan, src, action, m, stdsql.PlanOptions{Narrow: true})
	// ClickHouse names the columns s.* selects "s.col" in a join: each
	// is named as itself.
	cols := make([]string, len(m.Cols))
	for i, c := range m.Cols {
		cols[i] = "s." + d.Ident(c.Name) + " AS " + d.Ident(c.Name)
	}
	q = strings.Replace(q, "SELECT s.*, ", "SELECT "+strings.Join(cols, ", ")+", ", 1)
	return strings.Replace(q, "CREATE TEMP TABLE "+d.Ident(plan)+" AS ", "CREATE OR REPLACE TABLE "+d.planTable(plan)+" ENGINE = Memory AS ", 1)
}

// planTable is where the merge plan lives: a Memory table in the
// session's database, not a temporary one, since the lightweight DELETEs
// of Merge run as mutations, outside the session, and read it there. The
// run's temporary-table cleanup (DROP TABLE IF EXISTS "plan") drops it
// (a temporary table of that name would come first; there is none); a
// crashed run's is replaced by the next.
func (d Dialect) planTable(plan string) string {
	return d.Table(engine.Table{Schema: "default", Name: plan})
}

// Merge applies a plan without MERGE, which ClickHouse lacks: the keys
// the plan updates or deletes are deleted from the target (a lightweight,
// synchronous DELETE); the tombstones of keys the plan deletes or
// reinserts are deleted, and the deletes written; then every winning live
// row is inserted. The runner applies a merge on ClickHouse to a copy of
// the target that it swaps in whole (engine.PartitionExchanger), so no
// reader sees a key deleted and not yet inserted.
func (d Dialect) Merge(plan, action string, m engine.MergeSpec) engine.MergeStatements {
	keys := d.idents(m.Key)
	cols := d.idents(names(m.Cols))
	vals := cols
	if m.LoadedAt != "" {
		cols += ", " + d.Ident(m.LoadedAt)
		vals += ", " + d.Placeholder(1)
	}
	where := func(actions ...string) string {
		lits := make([]string, len(actions))
		for i, a := range actions {
			lits[i] = d.String(a)
		}
		return fmt.Sprintf("%s IN (%s)", d.Ident(action), strings.Join(lits, ", "))
	}
	keysOf := func(actions ...string) string {
		return fmt.Sprintf("(%s) IN (SELECT %s FROM %s WHERE %s)", keys, keys, d.planTable(plan), where(actions...))
	}
	out := engine.MergeStatements{
		Matched: []string{fmt.Sprintf("DELETE FROM %s WHERE %s", d.Table(m.Target), keysOf(engine.MergeUpdate, engine.MergeDelete))},
	}
	if m.Tombstones.Name != "" {
		out.Tombstones = append(out.Tombstones,
			fmt.Sprintf("DELETE FROM %s WHERE %s", d.Table(m.Tombstones),
				keysOf(engine.MergeDelete, engine.MergeDeleteAbsent, engine.MergeReinsert)),
			fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s", d.Table(m.Tombstones), cols, vals,
				d.Ident(plan), where(engine.MergeDelete, engine.MergeDeleteAbsent)))
	}
	out.Insert = []string{fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s", d.Table(m.Target), cols, vals,
		d.Ident(plan), where(engine.MergeInsert, engine.MergeReinsert, engine.MergeUpdate))}
	return out
}

// ledgerTypes spell the ledger's logical types.
var ledgerTypes = engine.ColumnTypes{Text: "String", Int64: "Int64", Bool: "Bool", Instant: "DateTime64(6, 'UTC')"}

func (d Dialect) columnSQL(c engine.ColumnDef) string {
	typ := ledgerTypes.Of(c.Type)
	if c.Nullable {
		typ = "Nullable(" + typ + ")"
	}
	s := d.Ident(c.Name) + " " + typ
	if c.DefaultZero {
		s += " DEFAULT 0"
	}
	return s
}

// LedgerDDL creates idem_runs as a ReplacingMergeTree on its key (reads
// see one row per key: sessions set final = 1), and adds the columns
// later versions brought.
func (d Dialect) LedgerDDL(t engine.Table, def engine.TableDef) []string {
	stmts := []string{d.CreateTable(t, def)}
	for _, c := range def.Added() {
		stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s", d.Table(t), d.columnSQL(c)))
	}
	return stmts
}

// CreateTable creates a table of def, replacing rows by its key.
func (d Dialect) CreateTable(t engine.Table, def engine.TableDef) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + d.Table(t) + " (\n")
	for i, c := range def.Columns {
		b.WriteString("  " + d.columnSQL(c))
		if i < len(def.Columns)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(") ENGINE = ReplacingMergeTree ORDER BY (" + d.idents(def.Key) + ")")
	return b.String()
}

// Upsert inserts the row: the ReplacingMergeTree keeps the last row
// inserted per key, and reads with FINAL see only it.
func (d Dialect) Upsert(t engine.Table, cols, _ []string) string {
	ph := make([]string, len(cols))
	for i := range cols {
		ph[i] = d.Placeholder(i + 1)
	}
	return "INSERT INTO " + d.Table(t) + " (" + d.idents(cols) + ") VALUES (" + strings.Join(ph, ", ") + ")"
}

// records overrides the standard Records where ClickHouse's catalog
// differs.
type records struct{ stdsql.Standard }

// ColumnNames asks system.columns.
func (r records) ColumnNames(t engine.Table) (string, []any) {
	db, args := Dialect{}.dbOf(t, 2)
	return "SELECT name FROM system.columns WHERE table = $1 AND database = " + db, append([]any{t.Name}, args...)
}

// SchemaExists asks system.databases.
func (r records) SchemaExists(schema string) (string, []any) {
	return "SELECT count(*) FROM system.databases WHERE name = $1", []any{schema}
}

// CopyTable copies a table into a new MergeTree one.
func (r records) CopyTable(dst, src engine.Table) string {
	d := Dialect{}
	return fmt.Sprintf("CREATE TABLE %s %s AS SELECT * FROM %s", d.Table(dst), mergeTree(""), d.Table(src))
}

// AlterType converts a staged column in place; a value the new type
// cannot hold is an error (accurateCast), never NULL.
func (r records) AlterType(stage, col, typ string) string {
	d := Dialect{}
	return fmt.Sprintf("ALTER TABLE %s MODIFY COLUMN %s %s", d.Ident(stage), d.Ident(col), typ)
}

// inspect is the standard Inspect group but for CountDistinct.
type inspect struct{ stdsql.Standard }

// CountDistinct counts distinct keys with uniqExact over their tuple (a NULL
// counted as a value, as DISTINCT counts it), far cheaper than a subquery of
// SELECT DISTINCT (docs/decisions/0011-count-distinct-per-engine.md). Its
// hash of the tuple could only ever count fewer keys than there are, and then
// the runner de-duplicates, which finds nothing to drop.
func (s inspect) CountDistinct(table string, cols []string) string {
	ids := make([]string, len(cols))
	for i, c := range cols {
		ids[i] = s.D.Ident(c)
	}
	return fmt.Sprintf("SELECT uniqExact(tuple(%s)) FROM %s", strings.Join(ids, ", "), table)
}

// sqlText is the engine's SQL.
var sqlText = func() *engine.SQL {
	d := Dialect{}
	std := stdsql.Standard{D: d}
	rec := records{std}
	return &engine.SQL{Dialect: d, Types: d, Stage: d, Catalog: d, Check: d, Merge: d,
		Inspect: inspect{std}, Write: std, Cond: std, Temp: rec, Ledger: d, Records: rec,
		Scratch: rec, Diff: stdsql.TextDiffer{D: d, Text: text}}
}()
