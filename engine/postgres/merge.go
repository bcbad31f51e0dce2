package postgres

import (
	"fmt"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
)

// Tombstones creates the tombstone table with the target's columns and a
// primary key on the key (a key is looked up, not scanned for). Two first
// runs of one table would race to create it, as for the target (see
// CreateTableFrom): they take turns on the same advisory lock.
func (d Dialect) Tombstones(m engine.MergeSpec) []string {
	return []string{
		fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", lockKey("idem", "create", m.Tombstones.Schema, m.Tombstones.Name)),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (LIKE %s, PRIMARY KEY (%s))", d.Table(m.Tombstones), d.Table(m.Target), d.Idents(m.Key)),
	}
}

// RekeyTombstones drops the primary key the table was made with and makes
// a unique index on the new key; the old key's columns may now be NULL.
func (d Dialect) RekeyTombstones(m engine.MergeSpec) []string {
	t, index := m.Tombstones, m.Tombstones.Name+"_key"
	stmts := []string{fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT IF EXISTS %s", d.Table(t), d.Ident(t.Name+"_pkey"))}
	for _, c := range m.Cols {
		stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL", d.Table(t), d.Ident(c.Name)))
	}
	return append(stmts,
		"DROP INDEX IF EXISTS "+d.Table(engine.Table{Schema: t.Schema, Name: index}),
		fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (%s)", d.Ident(index), d.Table(t), d.Idents(m.Key)))
}

// TombstoneColumn adds the target's column c with its exact type, read
// from the catalog (see AddColumn).
func (d Dialect) TombstoneColumn(m engine.MergeSpec, c engine.Column) string {
	return d.addColumnLike(m.Tombstones, d.Table(m.Target), c.Name)
}

// MergePlan is the standard plan: one LEFT JOIN of staging with the target.
func (d Dialect) MergePlan(plan, src, action string, m engine.MergeSpec) string {
	return stdsql.StandardMergePlan(d, plan, src, action, m)
}

// Merge is the standard two-statement apply (PostgreSQL 15+ and DuckDB both
// have MERGE).
func (d Dialect) Merge(plan, action string, m engine.MergeSpec) engine.MergeStatements {
	return stdsql.StandardMerge(d, plan, action, m)
}

// GeneratedColumns finds columns the database fills: identity columns, and
// defaults calling a sequence (serial) or a uuid generator
// (gen_random_uuid(), uuid_generate_v4()). Stored generated columns are
// computed from the row itself, so they are not listed.
func (d Dialect) GeneratedColumns(t engine.Table) (string, []any) {
	schema, args := "current_schema()", []any{t.Name}
	if t.Schema != "" {
		schema, args = "$2", []any{t.Name, t.Schema}
	}
	return `SELECT a.attname FROM pg_catalog.pg_attribute AS a
JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attrdef AS ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
WHERE c.relname = $1 AND n.nspname = ` + schema + ` AND a.attnum > 0 AND NOT a.attisdropped
  AND (a.attidentity <> '' OR lower(pg_get_expr(ad.adbin, ad.adrelid)) ~ '(nextval|uuid[a-z0-9_]*)\(')`, args
}
