package duckdb

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
)

// newer is the newest-wins guard: the staged version is strictly newer than
// the target's. A target row without a version loses to any versioned row.
func (d Dialect) newer(latestBy, s, t string) string {
	v := d.Ident(latestBy)
	return fmt.Sprintf("(%s.%s < %s.%s OR (%s.%s IS NULL AND %s.%s IS NOT NULL))", t, v, s, v, t, v, s, v)
}

func (d Dialect) on(key []string, s, t string) string {
	conds := make([]string, len(key))
	for i, k := range key {
		conds[i] = fmt.Sprintf("%s.%s = %s.%s", t, d.Ident(k), s, d.Ident(k))
	}
	return strings.Join(conds, " AND ")
}

func (d Dialect) isDelete(m engine.MergeSpec, s string) string {
	if m.DeleteWhen == "" {
		return "false"
	}
	return fmt.Sprintf("coalesce(%s.%s, false)", s, d.Ident(m.DeleteWhen))
}

// MergePlan classifies each staged row against the target in one join. The
// target's key is unique (idem's merges keep it so), so the join does not
// multiply rows.
func (d Dialect) MergePlan(plan, src, action string, m engine.MergeSpec) string {
	return fmt.Sprintf(`CREATE TEMP TABLE %s AS SELECT s.*, CASE
  WHEN t.%s IS NULL THEN CASE WHEN %s THEN '%s' ELSE '%s' END
  WHEN %s THEN CASE WHEN %s THEN '%s' ELSE '%s' END
  ELSE '%s' END AS %s
FROM %s AS s LEFT JOIN %s AS t ON %s`,
		d.Ident(plan),
		d.Ident(m.Key[0]), d.isDelete(m, "s"), engine.MergeSkip, engine.MergeInsert,
		d.newer(m.LatestBy, "s", "t"), d.isDelete(m, "s"), engine.MergeDelete, engine.MergeUpdate,
		engine.MergeSkip, d.Ident(action),
		d.Ident(src), d.Table(m.Target), d.on(m.Key, "s", "t"))
}

// Merge applies the plan's inserts, updates and deletes in one MERGE. The
// newest-wins guard is repeated here so this statement alone never lets an
// older row overwrite a newer one.
func (d Dialect) Merge(plan, action string, m engine.MergeSpec) string {
	isKey := map[string]bool{}
	for _, k := range m.Key {
		isKey[k] = true
	}
	var set, cols, vals []string
	for _, c := range m.Cols {
		cols = append(cols, d.Ident(c))
		vals = append(vals, "s."+d.Ident(c))
		if !isKey[c] {
			set = append(set, fmt.Sprintf("%s = s.%s", d.Ident(c), d.Ident(c)))
		}
	}
	if m.LoadedAt != "" {
		set = append(set, d.Ident(m.LoadedAt)+" = "+d.Placeholder(1))
		cols = append(cols, d.Ident(m.LoadedAt))
		vals = append(vals, d.Placeholder(1))
	}
	a := "s." + d.Ident(action)
	return fmt.Sprintf(`MERGE INTO %s AS t
USING (SELECT * FROM %s WHERE %s <> '%s') AS s
ON %s
WHEN MATCHED AND %s = '%s' AND %s THEN DELETE
WHEN MATCHED AND %s = '%s' AND %s THEN UPDATE SET %s
WHEN NOT MATCHED AND %s = '%s' THEN INSERT (%s) VALUES (%s)`,
		d.Table(m.Target), d.Ident(plan), d.Ident(action), engine.MergeSkip,
		d.on(m.Key, "s", "t"),
		a, engine.MergeDelete, d.newer(m.LatestBy, "s", "t"),
		a, engine.MergeUpdate, d.newer(m.LatestBy, "s", "t"), strings.Join(set, ", "),
		a, engine.MergeInsert, strings.Join(cols, ", "), strings.Join(vals, ", "))
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
