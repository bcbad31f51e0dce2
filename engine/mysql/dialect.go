package mysql

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
)

// Dialect is MySQL's and MariaDB's SQL, for sessions Open sets up:
// ANSI_QUOTES ("ident"), PIPES_AS_CONCAT (||), NO_BACKSLASH_ESCAPES (a
// string literal means what it says) and time_zone '+00:00'. It is pure:
// no database is touched.
type Dialect struct {
	// RowAlias: the server is MySQL 8.0.19 or later, where an upsert names
	// the inserted row with an alias (VALUES() is deprecated there);
	// MariaDB has only VALUES().
	RowAlias bool
	// Collation is the text collation of the tables idem creates, empty
	// for MariaDB's utf8mb4_nopad_bin (see Collate).
	Collation string
	// MySQL: the server is MySQL, not MariaDB (their JSON differs: see
	// ColumnType).
	MySQL bool
}

// Collate is the collation of the text columns of every table idem
// creates: bytewise and NO PAD, so that keys differing only by case,
// accents or trailing spaces stay different keys, as on every other
// engine. The server's default (utf8mb4_general_ci on MariaDB) makes
// 'abc' and 'ABC' one key of a unique index, and utf8mb4_bin is PAD SPACE:
// 'AB12' and 'AB12 ' are one key there, and a merge would silently keep
// one of them.
func (d Dialect) Collate() string {
	if d.Collation == "" {
		return "utf8mb4_nopad_bin"
	}
	return d.Collation
}

// tableOptions are the options of every table idem creates.
func (d Dialect) tableOptions() string {
	return "DEFAULT CHARSET=utf8mb4 COLLATE=" + d.Collate()
}

var (
	_ engine.Dialect        = Dialect{}
	_ engine.Stager         = Dialect{}
	_ engine.Types          = Dialect{}
	_ engine.Catalog        = Dialect{}
	_ engine.NullSpeller    = Dialect{}
	_ engine.TextComparison = Dialect{}
)

// Ident quotes an identifier (ANSI_QUOTES), doubling embedded quotes.
func (Dialect) Ident(name string) string { return stdsql.ANSI{}.Ident(name) }

// Table quotes a possibly qualified table name: on MySQL a schema is a
// database.
func (d Dialect) Table(t engine.Table) string { return stdsql.ANSI{}.Table(t) }

// Idents quotes a list of identifiers, comma-separated.
func (d Dialect) Idents(names []string) string { return stdsql.ANSI{}.Idents(names) }

// String renders a string literal; with NO_BACKSLASH_ESCAPES only the
// quote is special.
func (Dialect) String(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Placeholder is the driver's positional parameter: every one is "?", so
// a statement binds its parameters in the order they appear in its text.
func (Dialect) Placeholder(int) string { return "?" }

// TimeLiteral renders a typed literal; an instant is written in UTC, the
// session's zone.
func (Dialect) TimeLiteral(t time.Time, k engine.TimeKind) string {
	switch k {
	case engine.KindDate:
		return "DATE '" + t.Format("2006-01-02") + "'"
	case engine.KindTimestampTZ:
		t = t.UTC()
	}
	return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05") + "'"
}

// NotDistinct is MySQL's null-safe equality.
func (Dialect) NotDistinct(a, b string) string { return a + " <=> " + b }

// NullsLast sorts NULL last: MySQL sorts it first ascending, and has no
// NULLS LAST.
func (Dialect) NullsLast(expr string, desc bool) string {
	if desc {
		return expr + " IS NULL, " + expr + " DESC"
	}
	return expr + " IS NULL, " + expr + " ASC"
}

// TimeKindOf classifies type names as the driver reports them: DATETIME
// is a wall-clock time, TIMESTAMP an instant (read in UTC, the session's
// zone).
func (Dialect) TimeKindOf(sqlType string) (engine.TimeKind, bool) {
	base, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(sqlType)), "(")
	switch base {
	case "DATE":
		return engine.KindDate, true
	case "DATETIME":
		return engine.KindTimestamp, true
	case "TIMESTAMP":
		return engine.KindTimestampTZ, true
	}
	return 0, false
}

// PartitionStart truncates col to its partition's start with
// DATE_FORMAT; an instant is first converted to the zone's wall-clock time
// (named zones need the server's time zone tables: mysql_tzinfo_to_sql).
func (d Dialect) PartitionStart(col string, k engine.TimeKind, unit, zone string) string {
	if k == engine.KindTimestampTZ && zone != "" && zone != "UTC" {
		col = "CONVERT_TZ(" + col + ", '+00:00', " + d.String(zone) + ")"
	}
	if k == engine.KindDate {
		switch unit {
		case "day":
			return col
		case "month":
			return "CAST(DATE_FORMAT(" + col + ", '%Y-%m-01') AS DATE)"
		}
		return "CAST(" + col + " AS DATETIME)"
	}
	f := "%Y-%m-%d 00:00:00"
	switch unit {
	case "hour":
		f = "%Y-%m-%d %H:00:00"
	case "month":
		f = "%Y-%m-01 00:00:00"
	}
	return "CAST(DATE_FORMAT(" + col + ", '" + f + "') AS DATETIME)"
}

// isText reports types whose order depends on a collation.
func isText(typ string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(typ), "(")
	switch strings.TrimSpace(base) {
	case "TEXT", "VARCHAR", "CHAR", "LONGTEXT", "MEDIUMTEXT", "TINYTEXT", "JSON", "ENUM", "SET":
		return true
	}
	return false
}

// ContentKey compares text bytewise, as DuckDB does: the database's
// collation may ignore case and trailing spaces, and leave ties to chance.
func (Dialect) ContentKey(expr, sqlType string) string {
	if isText(sqlType) {
		return "CAST(" + expr + " AS BINARY)"
	}
	return expr
}

// StageQuery materializes a query's result in a temporary table.
func (d Dialect) StageQuery(stage, query string) string {
	return fmt.Sprintf("CREATE TEMPORARY TABLE %s AS %s", d.Ident(stage), strings.TrimRight(strings.TrimSpace(query), ";"))
}

// Dedup keeps each key's first row in the row order (stdsql.RowOrder),
// with a window: MySQL has no DISTINCT ON.
func (d Dialect) Dedup(dst, src string, key []string, latestBy, deleteWhen string, cols []engine.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	order := stdsql.RowOrder(d, key, latestBy, deleteWhen, cols)
	if len(order) == 0 {
		order = []string{"(SELECT NULL)"}
	}
	// The key's text compared bytewise: a query's staged columns keep the
	// collation of the tables it read, which may ignore case.
	types := map[string]string{}
	for _, c := range cols {
		types[c.Name] = c.Type
	}
	part := make([]string, len(key))
	for i, k := range key {
		part[i] = d.ContentKey(d.Ident(k), types[k])
	}
	return fmt.Sprintf("CREATE TEMPORARY TABLE %s AS SELECT %s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS idem_rn FROM %s) AS x WHERE idem_rn = 1",
		d.Ident(dst), d.Idents(names), strings.Join(part, ", "), strings.Join(order, ", "), d.Ident(src))
}

// schemaExpr is the schema of t as SQL: its own, or the session's
// database.
func (d Dialect) schemaExpr(t engine.Table) string {
	if t.Schema == "" {
		return "DATABASE()"
	}
	return d.String(t.Schema)
}

// prepared runs the statement text a query selects: MySQL and MariaDB both
// have PREPARE … FROM @var, which DDL over a catalog query needs.
func prepared(selectText string) []string {
	return []string{
		"SET @idem_ddl = (" + selectText + ")",
		"PREPARE idem_ddl FROM @idem_ddl",
		"EXECUTE idem_ddl",
		"DEALLOCATE PREPARE idem_ddl",
	}
}

// CreateLock: none, DDL commits: a first load takes the table's lock and builds beside it.
func (Dialect) CreateLock(engine.Table) []string { return nil }

// CreateTableFrom creates the target with the staged columns and no rows,
// in its schema (a database, created if missing). A staged query's text
// columns are as wide as the longest value the query returned, and a
// literal's column is NOT NULL; the new table's text columns become
// LONGTEXT and every column nullable, as on the other engines, in one
// ALTER of the empty table.
func (d Dialect) CreateTableFrom(target engine.Table, stage, loadedAt string) []string {
	var stmts []string
	if target.Schema != "" {
		stmts = append(stmts, "CREATE DATABASE IF NOT EXISTS "+d.Ident(target.Schema))
	}
	extra := ""
	if loadedAt != "" {
		extra = ", CAST(NULL AS DATETIME(6)) AS " + d.Ident(loadedAt)
	}
	stmts = append(stmts, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s %s AS SELECT *%s FROM %s LIMIT 0", d.Table(target), d.tableOptions(), extra, d.Ident(stage)))
	return append(stmts, prepared(fmt.Sprintf(
		`SELECT coalesce(concat(%s, group_concat(concat('MODIFY "', replace(column_name, '"', '""'), '" ',
    CASE WHEN data_type IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext') THEN %s ELSE column_type END, ' NULL')
    ORDER BY ordinal_position SEPARATOR ', ')), 'DO 0')
  FROM information_schema.columns WHERE table_schema = %s AND table_name = %s`,
		d.String("ALTER TABLE "+d.Table(target)+" "), d.String("LONGTEXT COLLATE "+d.Collate()), d.schemaExpr(target), d.String(target.Name)))...)
}

// columnType spells a type name as the driver reports it (DECIMAL,
// DATETIME) as a column type that holds what the other engines' would.
func columnType(typ string) string {
	t := strings.ToUpper(strings.TrimSpace(typ))
	if strings.Contains(t, "(") {
		return t
	}
	switch t {
	case "BOOLEAN", "BOOL", "BIT":
		return "BIT(1)"
	case "TEXT", "VARCHAR", "CHAR", "TINYTEXT", "MEDIUMTEXT", "STRING":
		return "LONGTEXT"
	case "BLOB", "VARBINARY", "BINARY", "TINYBLOB", "MEDIUMBLOB":
		return "LONGBLOB"
	case "DATETIME":
		return "DATETIME(6)"
	case "TIMESTAMP":
		return "TIMESTAMP(6) NULL"
	case "DECIMAL", "NUMERIC":
		return "DECIMAL(65,30)"
	case "UNSIGNED BIGINT":
		return "BIGINT UNSIGNED"
	case "UNSIGNED INT":
		return "INT UNSIGNED"
	case "UNSIGNED SMALLINT":
		return "SMALLINT UNSIGNED"
	case "UNSIGNED TINYINT":
		return "TINYINT UNSIGNED"
	case "UNSIGNED MEDIUMINT":
		return "MEDIUMINT UNSIGNED"
	}
	return t
}

// AddColumn adds a nullable column of the staged column's type. (On this
// engine a target gaining columns is rebuilt, so only tombstone tables
// take it.)
func (d Dialect) AddColumn(target engine.Table, _ string, c engine.Column) string {
	return fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s NULL", d.Table(target), d.Ident(c.Name), columnType(c.Type))
}

// TableExists looks a table up in information_schema; an unqualified name
// in the session's database.
func (d Dialect) TableExists(t engine.Table) (string, []any) {
	if t.Schema == "" {
		return "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?", []any{t.Name}
	}
	return "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", []any{t.Schema, t.Name}
}

// GeneratedColumns finds AUTO_INCREMENT columns and columns whose default
// calls a uuid function.
func (d Dialect) GeneratedColumns(t engine.Table) (string, []any) {
	q := `SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = ?
  AND (extra LIKE '%%auto_increment%%' OR lower(coalesce(column_default, '')) LIKE '%%uuid%%')`
	if t.Schema == "" {
		return fmt.Sprintf(q, "DATABASE()"), []any{t.Name}
	}
	return fmt.Sprintf(q, "?"), []any{t.Schema, t.Name}
}

// valueText is a column's value as text for hashing: booleans as
// true/false, the rest as MySQL prints them. Numbers and times print
// ASCII, the same bytes in any character set, so they skip the conversion
// to the connection's (utf8mb4) that text needs: CAST AS BINARY gives the
// bytes CAST AS CHAR did, and the checksums stay those already stored
// (TestRowTextBytesUnchanged), at about a third less of the checksum's
// time over 1M rows.
func (d Dialect) valueText(expr, typ string) string {
	if strings.EqualFold(typ, "BOOLEAN") {
		return "CASE WHEN " + expr + " THEN 'true' WHEN NOT " + expr + " THEN 'false' END"
	}
	if asciiType(typ) {
		return "CAST(" + expr + " AS BINARY)"
	}
	return "CAST(" + expr + " AS CHAR)"
}

// asciiType reports whether a column type (as the driver or a job spells
// it) prints only ASCII: numbers, dates and times. BIT, whose value is
// bytes, is not one.
func asciiType(typ string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(typ)), "(")
	base = strings.TrimSpace(strings.TrimPrefix(base, "UNSIGNED "))
	base, _, _ = strings.Cut(base, " ")
	switch base {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT",
		"DECIMAL", "NUMERIC", "FLOAT", "DOUBLE", "REAL",
		"DATE", "DATETIME", "TIMESTAMP", "TIME", "YEAR":
		return true
	}
	return false
}

// rowText is a row's text for hashing: values separated by the unit
// separator (0x1F), NULL as the record separator (0x1E), characters text
// does not hold (cheaper than prefixing each value with its length;
// docs/decisions/0012-row-checksum-hashes.md).
func (d Dialect) rowText(cols []engine.Column) string {
	if len(cols) == 0 {
		return "''"
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("ifnull(%s, char(30))", d.valueText(d.Ident(c.Name), c.Type))
	}
	return "concat_ws(char(31), " + strings.Join(parts, ", ") + ")"
}

// Checksum sums a 64-bit hash (the first 16 hex digits of an MD5) of each
// row's text. The sum is exact (DECIMAL) and the runner reduces it modulo
// 2^64. It is the checksum of servers without CRC32C() (MySQL, MariaDB
// before 10.8), and the legacy one of those with it (crcChecksum).
func (d Dialect) Checksum(table string, cols []engine.Column, where string) string {
	return d.sumQuery(fmt.Sprintf("CAST(conv(substr(md5(%s), 1, 16), 16, 10) AS UNSIGNED)", d.rowText(cols)), table, where)
}

func (d Dialect) sumQuery(hash, table, where string) string {
	q := fmt.Sprintf("SELECT count(*), CAST(coalesce(sum(%s), 0) AS CHAR) FROM %s", hash, table)
	if where != "" {
		q += " WHERE " + where
	}
	return q
}

// crcChecksum is the checksum where the server has CRC32C() (MariaDB 10.8 and
// later): each row's 64-bit hash is its text's CRC-32 in the high half and
// its CRC-32C (another polynomial) in the low half, summed exactly as
// Checksum's, and cheaper than its MD5
// (docs/decisions/0012-row-checksum-hashes.md). Its checksums carry the tag
// "v2:"; one the ledger holds without it was made by Checksum
// (engine.ChecksumVersioner), which the skip then uses to compare.
type crcChecksum struct{ Dialect }

var _ engine.ChecksumVersioner = crcChecksum{}

// checksumTag marks the checksums crcChecksum makes.
const checksumTag = "v2:"

func (c crcChecksum) Checksum(table string, cols []engine.Column, where string) string {
	row := c.rowText(cols)
	return c.sumQuery(fmt.Sprintf("(crc32(%s) << 32) | crc32c(%s)", row, row), table, where)
}

func (crcChecksum) ChecksumTag() string { return checksumTag }

func (c crcChecksum) LegacyChecksum(table string, cols []engine.Column, where string) string {
	return c.Dialect.Checksum(table, cols, where)
}

// ledgerTypes spell the ledger's logical types. Key columns of text are
// VARCHAR(255) (an index needs a length); see CreateTable.
var ledgerTypes = engine.ColumnTypes{Text: "LONGTEXT", Int64: "BIGINT", Bool: "BIT(1)", Instant: "DATETIME(6)"}

func (d Dialect) columnSQL(c engine.ColumnDef, key bool) string {
	typ := ledgerTypes.Of(c.Type)
	if key && c.Type == engine.TypeText {
		typ = "VARCHAR(255)"
	}
	s := d.Ident(c.Name) + " " + typ
	if !c.Nullable {
		s += " NOT NULL"
	}
	if c.DefaultZero {
		s += " DEFAULT 0"
	}
	if c.Note != "" {
		s += " COMMENT " + d.String(c.Note)
	}
	return s
}

// CreateTable creates a table of def if it does not exist.
func (d Dialect) CreateTable(t engine.Table, def engine.TableDef) string {
	key := map[string]bool{}
	for _, k := range def.Key {
		key[k] = true
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + d.Table(t) + " (\n")
	for _, c := range def.Columns {
		b.WriteString("  " + d.columnSQL(c, key[c.Name]) + ",\n")
	}
	b.WriteString("  PRIMARY KEY (" + d.Idents(def.Key) + ")\n) ENGINE=InnoDB " + d.tableOptions())
	return b.String()
}

// LedgerDDL creates idem_runs, and adds a column a later version brought
// to a table an older version created, only when it is missing (MySQL 8
// has no ADD COLUMN IF NOT EXISTS).
func (d Dialect) LedgerDDL(t engine.Table, def engine.TableDef) []string {
	stmts := []string{d.CreateTable(t, def)}
	for _, c := range def.Added() {
		stmts = append(stmts, prepared(fmt.Sprintf(
			"SELECT IF(count(*) > 0, 'DO 0', %s) FROM information_schema.columns WHERE table_schema = %s AND table_name = %s AND column_name = %s",
			d.String("ALTER TABLE "+d.Table(t)+" ADD COLUMN "+d.columnSQL(c, false)), d.schemaExpr(t), d.String(t.Name), d.String(c.Name)))...)
	}
	return stmts
}

// Upsert inserts one row, replacing the row with the same key: ON
// DUPLICATE KEY UPDATE, the new values named by the row alias on MySQL
// 8.0.19 and later, by VALUES() on MariaDB.
func (d Dialect) Upsert(t engine.Table, cols, key []string) string {
	isKey := map[string]bool{}
	for _, k := range key {
		isKey[k] = true
	}
	ph := make([]string, len(cols))
	var set []string
	for i, c := range cols {
		ph[i] = "?"
		if isKey[c] {
			continue
		}
		if d.RowAlias {
			set = append(set, d.Ident(c)+" = "+d.Ident("new")+"."+d.Ident(c))
		} else {
			set = append(set, d.Ident(c)+" = VALUES("+d.Ident(c)+")")
		}
	}
	alias := ""
	if d.RowAlias {
		alias = " AS " + d.Ident("new")
	}
	return "INSERT INTO " + d.Table(t) + " (" + d.Idents(cols) + ") VALUES (" + strings.Join(ph, ", ") +
		")" + alias + " ON DUPLICATE KEY UPDATE " + strings.Join(set, ", ")
}

// records is the standard Records, except where MySQL differs.
type records struct{ stdsql.Standard }

// ColumnNames asks information_schema of the table's database.
func (records) ColumnNames(t engine.Table) (string, []any) {
	if t.Schema == "" {
		return "SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position", []any{t.Name}
	}
	return "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position", []any{t.Schema, t.Name}
}

// NextSeq binds its parameters in one derived table, so they appear in the
// order they are bound (every placeholder is "?").
func (r records) NextSeq(t engine.Table, seq string, eq []string, same string) string {
	d := Dialect{}
	var params, conds []string
	for i, c := range eq {
		params = append(params, fmt.Sprintf("? AS p%d", i))
		conds = append(conds, fmt.Sprintf("r.%s = p.p%d", d.Ident(c), i))
	}
	q := fmt.Sprintf("SELECT coalesce(max(r.%s), 0) + 1", d.Ident(seq))
	if same != "" {
		params = append(params, "? AS ps")
		q += fmt.Sprintf(", count(CASE WHEN r.%s = p.ps THEN 1 END)", d.Ident(same))
	}
	q += fmt.Sprintf(" FROM %s AS r JOIN (SELECT %s) AS p", d.Table(t), strings.Join(params, ", "))
	if len(conds) > 0 {
		q += " ON " + strings.Join(conds, " AND ")
	} else {
		q += " ON TRUE"
	}
	return q
}

// std is the standard groups, where MySQL's spelling differs.
type std struct{ stdsql.Standard }

// Sample casts to CHAR (MySQL has no CAST AS VARCHAR).
func (s std) Sample(table string, cols []string, cond string, n int) string {
	casts := make([]string, len(cols))
	for i, c := range cols {
		casts[i] = printed(s.D.Ident(c))
	}
	list := strings.Join(casts, ", ")
	w := ""
	if cond != "" {
		w = " WHERE " + cond
	}
	return fmt.Sprintf("SELECT %s FROM %s%s ORDER BY %s LIMIT %d", list, table, w, list, n)
}

// Head casts to CHAR as Sample does, and shows BIT(1), idem's booleans
// (BOOLEAN to the engine's column reader), as true and false rather than a
// byte.
func (s std) Head(table string, cols []engine.Column, cond string, order []string, n int) string {
	casts := make([]string, len(cols))
	for i, c := range cols {
		e := s.D.Ident(c.Name)
		if base, _, _ := strings.Cut(strings.ToUpper(c.Type), "("); slices.Contains([]string{"BIT", "BOOLEAN", "BOOL"}, strings.TrimSpace(base)) {
			casts[i] = "CASE WHEN " + e + " THEN 'true' WHEN NOT " + e + " THEN 'false' END"
		} else {
			casts[i] = printed(e)
		}
	}
	q := fmt.Sprintf("SELECT %s FROM %s AS %s", strings.Join(casts, ", "), table, stdsql.ShowAlias)
	if cond != "" {
		q += " WHERE " + cond
	}
	if len(order) > 0 {
		q += " ORDER BY " + strings.Join(order, ", ")
	}
	return fmt.Sprintf("%s LIMIT %d", q, n)
}

// CountDistinct counts with count(DISTINCT …), which MariaDB computes in
// memory, many times faster than a derived table of SELECT DISTINCT
// (docs/decisions/0011-count-distinct-per-engine.md). count(DISTINCT)
// skips rows with a NULL in cols, so those are counted apart, by their
// printed text (a NULL there reads as the text NULL; the runner refuses
// NULL keys before it counts them). One scan: MySQL cannot name a
// temporary table twice in one query.
func (s std) CountDistinct(table string, cols []string) string {
	ids := make([]string, len(cols))
	nulls := make([]string, len(cols))
	for i, c := range cols {
		ids[i] = s.D.Ident(c)
		nulls[i] = ids[i] + " IS NULL"
	}
	return fmt.Sprintf("SELECT count(DISTINCT %s) + count(DISTINCT CASE WHEN %s THEN %s END) FROM %s AS x",
		strings.Join(ids, ", "), strings.Join(nulls, " OR "), differ(s.D).RowText("x", cols), table)
}

// Placement counts with CASE: MySQL has no FILTER.
func (s std) Placement(table, cond, col string) string {
	return fmt.Sprintf("SELECT count(*), count(CASE WHEN %s THEN 1 END), count(CASE WHEN %s IS NULL THEN 1 END) FROM %s",
		cond, s.D.Ident(col), table)
}

// AlterType converts a staged column in place.
func (s std) AlterType(stage, col, typ string) string {
	return fmt.Sprintf("ALTER TABLE %s MODIFY COLUMN %s %s", s.D.Ident(stage), s.D.Ident(col), columnType(typ))
}

// DropTemp drops a temporary table, and never a real one of that name.
func (s std) DropTemp(name string) string { return "DROP TEMPORARY TABLE IF EXISTS " + s.D.Ident(name) }

// SchemaExists asks information_schema: a schema is a database.
func (s std) SchemaExists(schema string) (string, []any) {
	return "SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?", []any{schema}
}

// printed is expr as text, as DuckDB and PostgreSQL print it: a
// DATETIME(6) without its zero fraction digits (MySQL prints all six).
// The pattern matches only a timestamp's text.
func printed(expr string) string {
	return `REGEXP_REPLACE(CAST(` + expr + ` AS CHAR), '^([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2})\.?(\.[0-9]*[1-9])?0*$', '\1\2')`
}

// text is expr as text, NULL shown as NULL.
func text(expr string) string { return fmt.Sprintf("coalesce(%s, 'NULL')", printed(expr)) }

// differ compares rows as printed text, byte by byte: MariaDB's text
// comparison ignores trailing spaces and case.
func differ(d engine.Dialect) stdsql.TextDiffer {
	return stdsql.TextDiffer{D: d, Text: text, Differs: func(a, b string) string {
		return fmt.Sprintf("CAST(%s AS BINARY) <> CAST(%s AS BINARY)", a, b)
	}}
}

// sqlFor is the engine's SQL: its own spelling where it differs, the
// standard one elsewhere; crc says the server has CRC32C().
func sqlFor(d Dialect, crc bool) *engine.SQL {
	s := std{stdsql.Standard{D: d}}
	var check engine.Checksummer = d
	if crc {
		check = crcChecksum{d}
	}
	return &engine.SQL{Dialect: d, Types: d, Stage: d, Catalog: d, Check: check, Merge: d,
		Inspect: s, Write: s, Cond: s, Temp: s, Ledger: d, Records: records{s.Standard},
		Scratch: s, Diff: differ(d), Text: d, Index: d}
}

// CreateIndex gives a table idem builds the index on its partition column.
// The merge key's unique index is engine.KeyIndexer's (CreateKeyIndex),
// which every merge target needs, created or not. The built table is new,
// so no IF NOT EXISTS (which MySQL 8 lacks).
func (d Dialect) CreateIndex(t engine.Table, name, purpose string, cols []string) []string {
	if purpose == engine.IndexKey {
		return nil
	}
	return []string{d.IndexDDL(t, name, purpose, cols)}
}

// IndexDDL creates the index a purpose needs, spelled with backticks (lint
// gives it to users): a B-tree, InnoDB's only kind (MariaDB indexes a key's
// text by a hash of the whole value). Without the partition's index, InnoDB
// reads the whole table to delete and to checksum a partition
// (docs/decisions/0013-partition-indexes.md).
func (d Dialect) IndexDDL(t engine.Table, name, purpose string, cols []string) string {
	ticked := make([]string, len(cols))
	for i, c := range cols {
		ticked[i] = tick(c)
	}
	if purpose == engine.IndexKey {
		return fmt.Sprintf("ALTER TABLE %s ADD UNIQUE KEY %s (%s)", tickTable(t), tick(name), strings.Join(ticked, ", "))
	}
	return fmt.Sprintf("CREATE INDEX %s ON %s (%s)", tick(name), tickTable(t), strings.Join(ticked, ", "))
}

// DropIndex drops an index of t, if it exists (MariaDB's spelling; a
// merge's key index is the KeyIndexer's, which replaces it itself).
func (d Dialect) DropIndex(t engine.Table, name string) string {
	return fmt.Sprintf("ALTER TABLE %s DROP INDEX IF EXISTS %s", tickTable(t), tick(name))
}

// IndexedColumns reads the table's indexes: a B-tree finds a partition's
// rows by its leading columns, a unique index (a B-tree, or MariaDB's hash
// of a long text) looks a key up. A column indexed by a prefix (sub_part)
// has no name here and matches no column.
func (d Dialect) IndexedColumns(t engine.Table) (string, []any) {
	schema, args := "DATABASE()", []any{t.Name}
	if t.Schema != "" {
		schema, args = "?", []any{t.Schema, t.Name}
	}
	return fmt.Sprintf(`SELECT concat_ws(char(1), CASE WHEN max(index_type) = 'BTREE' THEN 'partition' END, CASE WHEN max(non_unique) = 0 THEN 'key' END),
  group_concat(CASE WHEN sub_part IS NULL THEN column_name ELSE '' END ORDER BY seq_in_index SEPARATOR X'01')
FROM information_schema.statistics
WHERE table_schema = %s AND table_name = ? AND index_type IN ('BTREE', 'HASH')
GROUP BY index_name`, schema), args
}

// The SQL of MariaDB 10.8 and later, of earlier MariaDB, of MySQL 8.0.19
// and later, and of earlier MySQL.
var (
	sqlText     = sqlFor(Dialect{}, true)
	sqlOld      = sqlFor(Dialect{}, false)
	sqlRowAlias = sqlFor(Dialect{RowAlias: true, Collation: "utf8mb4_0900_bin", MySQL: true}, false)
	// MySQL before 8.0.17 has no bytewise NO PAD collation: utf8mb4_bin
	// ignores trailing spaces (docs/engines.md says so).
	sqlMySQLOld = sqlFor(Dialect{Collation: "utf8mb4_bin", MySQL: true}, false)
)

// KeyCollations selects the text columns among cols of t with their
// collations (engine.TextComparison).
func (d Dialect) KeyCollations(t engine.Table, cols []string) (string, []any) {
	q := `SELECT column_name, character_set_name, collation_name, column_type, is_nullable FROM information_schema.columns
WHERE table_schema = %s AND table_name = ? AND collation_name IS NOT NULL AND column_name IN (%s) ORDER BY ordinal_position`
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	schema, args := "DATABASE()", []any{t.Name}
	if t.Schema != "" {
		schema, args = "?", []any{t.Schema, t.Name}
	}
	for _, c := range cols {
		args = append(args, c)
	}
	return fmt.Sprintf(q, schema, marks), args
}

// Ignores says what a collation ignores, from its name: a _bin collation
// compares bytes (and ignores trailing spaces unless NO PAD: nopad_bin,
// MySQL 8's 0900_bin); _ci ignores case, and accents unless _as; _ai
// ignores accents. MySQL 8's 0900 collations and MariaDB's nopad ones
// do not ignore trailing spaces; every other one does.
func (Dialect) Ignores(collation string) string {
	c := strings.ToLower(collation)
	if c == "" || c == "binary" {
		return ""
	}
	pad := !strings.Contains(c, "nopad") && !strings.Contains(c, "_0900_")
	if strings.HasSuffix(c, "_bin") {
		if pad {
			return "trailing spaces"
		}
		return ""
	}
	var what []string
	if strings.Contains(c, "_ci") {
		what = append(what, "case")
	}
	if strings.Contains(c, "_ai") || (strings.Contains(c, "_ci") && !strings.Contains(c, "_as")) {
		what = append(what, "accents")
	}
	if pad {
		what = append(what, "trailing spaces")
	}
	switch len(what) {
	case 0:
		return "differences its language's rules hold equal"
	case 1:
		return what[0]
	}
	return strings.Join(what[:len(what)-1], ", ") + " and " + what[len(what)-1]
}

// tick quotes an identifier with backticks, which a client reads with or
// without ANSI_QUOTES: for the statements lint gives users to run.
func tick(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func tickTable(t engine.Table) string {
	if t.Schema != "" {
		return tick(t.Schema) + "." + tick(t.Name)
	}
	return tick(t.Name)
}

// BytewiseDDL is the ALTER TABLE that gives a column a bytewise, NO PAD
// collation (the one idem's own tables get; <charset>_bin for a character
// set other than utf8mb4), spelled with backticks for a client without
// ANSI_QUOTES.
func (d Dialect) BytewiseDDL(t engine.Table, col, charset, typ string, nullable bool) string {
	collation := d.Collate()
	if !strings.EqualFold(charset, "utf8mb4") {
		collation = charset + "_bin"
	}
	s := fmt.Sprintf("ALTER TABLE %s MODIFY %s %s CHARACTER SET %s COLLATE %s", tickTable(t), tick(col), typ, charset, collation)
	if !nullable {
		s += " NOT NULL"
	}
	return s
}
