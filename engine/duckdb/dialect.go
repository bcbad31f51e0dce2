package duckdb

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
)

// Dialect is DuckDB's SQL. It is pure: no database is touched.
type Dialect struct{ stdsql.ANSI }

var (
	_ engine.Dialect = Dialect{}
	_ engine.Stager  = Dialect{}
)

// String renders a string literal.
func (Dialect) String(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// TimeKindOf classifies DuckDB's type names.
func (Dialect) TimeKindOf(sqlType string) (engine.TimeKind, bool) {
	switch t := strings.ToUpper(sqlType); {
	case t == "DATE":
		return engine.KindDate, true
	case t == "TIMESTAMPTZ" || t == "TIMESTAMP WITH TIME ZONE":
		return engine.KindTimestampTZ, true
	case strings.HasPrefix(t, "TIMESTAMP") || t == "DATETIME":
		return engine.KindTimestamp, true
	}
	return 0, false
}

// StageQuery materializes a query's result.
func (d Dialect) StageQuery(stage, query string) string {
	return fmt.Sprintf("CREATE TEMP TABLE %s AS %s", d.Ident(stage), strings.TrimRight(strings.TrimSpace(query), ";"))
}

// ContentKey is expr itself: DuckDB compares text bytewise already, and
// every type it has is ordered.
func (Dialect) ContentKey(expr, _ string) string { return expr }

// Dedup keeps each key's first row in the row order (stdsql.RowOrder), so
// the survivor never depends on the order rows arrived in.
func (d Dialect) Dedup(dst, src string, key []string, latestBy, deleteWhen string, cols []engine.Column) string {
	order := stdsql.RowOrder(d, key, latestBy, deleteWhen, cols)
	if len(order) == 0 { // every column is key: rows with one key are identical
		order = append(order, d.Ident(key[0]))
	}
	return fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT * FROM %s QUALIFY row_number() OVER (PARTITION BY %s ORDER BY %s) = 1",
		d.Ident(dst), d.Ident(src), d.Idents(key), strings.Join(order, ", "))
}

// CreateLock: none, one process holds the file.
func (Dialect) CreateLock(engine.Table) []string { return nil }

// CreateTableFrom creates the target with the staged columns and no rows.
func (d Dialect) CreateTableFrom(target engine.Table, stage, loadedAt string) []string {
	var stmts []string
	if target.Schema != "" {
		stmts = append(stmts, "CREATE SCHEMA IF NOT EXISTS "+d.Ident(target.Schema))
	}
	extra := ""
	if loadedAt != "" {
		extra = ", CAST(NULL AS TIMESTAMPTZ) AS " + d.Ident(loadedAt)
	}
	return append(stmts, fmt.Sprintf("CREATE TABLE %s AS SELECT *%s FROM %s LIMIT 0", d.Table(target), extra, d.Ident(stage)))
}

// AddColumn adds a nullable column of the staged column's type (DuckDB
// reports full type names: DECIMAL(12,2), VARCHAR[]).
func (d Dialect) AddColumn(target engine.Table, _ string, c engine.Column) string {
	return fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", d.Table(target), d.Ident(c.Name), c.Type)
}

// Checksum sums 64-bit row hashes: order-independent and, unlike XOR,
// duplicate-sensitive. The sum is a HUGEINT, returned as text.
func (d Dialect) Checksum(table string, cols []engine.Column, where string) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	q := fmt.Sprintf("SELECT count(*), CAST(coalesce(sum(hash(%s)), 0) AS VARCHAR) FROM %s", d.Idents(names), table)
	if where != "" {
		q += " WHERE " + where
	}
	return q
}

// ledgerTypes spell the ledger's logical types.
var ledgerTypes = engine.ColumnTypes{Text: "VARCHAR", Int64: "BIGINT", Bool: "BOOLEAN", Instant: "TIMESTAMPTZ"}

// LedgerDDL creates idem_runs, and adds the columns later versions brought
// to one an older version created. DuckDB cannot add a column with a
// constraint: an added column is nullable, and its default fills old rows.
func (d Dialect) LedgerDDL(t engine.Table, def engine.TableDef) []string {
	out := []string{d.CreateTable(t, def)}
	for _, c := range def.Added() {
		out = append(out, "ALTER TABLE "+d.Table(t)+" ADD COLUMN IF NOT EXISTS "+d.ColumnSQL(c, ledgerTypes, false))
	}
	return out
}

// CreateTable creates a table of def if it does not exist.
func (d Dialect) CreateTable(t engine.Table, def engine.TableDef) string {
	return d.CreateTableSQL(t, def, ledgerTypes)
}

// TableExists looks a table up in the catalog of the open database (not
// among temporary tables).
func (d Dialect) TableExists(t engine.Table) (string, []any) {
	schema := t.Schema
	if schema == "" {
		schema = "main"
	}
	return "SELECT 1 FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2",
		[]any{schema, t.Name}
}

// sqlText is the engine's SQL: its own spelling where it differs, the
// standard one elsewhere.
var sqlText = func() *engine.SQL {
	d, std := Dialect{}, stdsql.Standard{D: Dialect{}}
	return &engine.SQL{Dialect: d, Types: d, Stage: d, Catalog: d, Check: d, Merge: d,
		Inspect: std, Write: std, Cond: std, Temp: std, Ledger: d, Records: std,
		Scratch: std, Diff: stdsql.TextDiffer{D: d, Text: stdsql.StandardText}}
}()
