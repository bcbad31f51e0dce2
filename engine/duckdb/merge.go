package duckdb

import (
	"fmt"

	"github.com/idemdata/idem/engine"
)

// Tombstones creates the tombstone table with the target's columns and a
// unique index on the key, which keeps one tombstone per key. DuckDB's
// optimizer hash-joins staging with the tombstones, as with the target (it
// does not pick an index join): one scan of the deletes per run, not one per
// staged row.
func (d Dialect) Tombstones(m engine.MergeSpec) []string {
	return []string{
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS SELECT * FROM %s LIMIT 0", d.Table(m.Tombstones), d.Table(m.Target)),
		fmt.Sprintf("CREATE UNIQUE INDEX IF NOT EXISTS %s ON %s (%s)", d.Ident(m.Tombstones.Name+"_key"), d.Table(m.Tombstones), d.Idents(m.Key)),
	}
}

// MergePlan is the standard plan: one LEFT JOIN of staging with the target.
func (d Dialect) MergePlan(plan, src, action string, m engine.MergeSpec) string {
	return engine.StandardMergePlan(d, plan, src, action, m)
}

// Merge is the standard two-statement apply (PostgreSQL 15+ and DuckDB both
// have MERGE).
func (d Dialect) Merge(plan, action string, m engine.MergeSpec) []string {
	return engine.StandardMerge(d, plan, action, m)
}

// GeneratedColumns finds columns filled by a sequence or a uuid default.
func (d Dialect) GeneratedColumns(t engine.Table) (string, []any) {
	schema := t.Schema
	if schema == "" {
		schema = "main"
	}
	return `SELECT column_name FROM information_schema.columns
WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2
  AND (lower(column_default) LIKE '%nextval(%' OR lower(column_default) LIKE '%uuid(%')`, []any{schema, t.Name}
}
