package postgres

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
  WHEN t.%s IS NULL THEN CASE WHEN %s THEN %s ELSE %s END
  WHEN %s THEN CASE WHEN %s THEN %s ELSE %s END
  ELSE %s END AS %s
FROM %s AS s LEFT JOIN %s AS t ON %s`,
		d.Ident(plan),
		d.Ident(m.Key[0]), d.isDelete(m, "s"), d.String(engine.MergeSkip), d.String(engine.MergeInsert),
		d.newer(m.LatestBy, "s", "t"), d.isDelete(m, "s"), d.String(engine.MergeDelete), d.String(engine.MergeUpdate),
		d.String(engine.MergeSkip), d.Ident(action),
		d.Ident(src), d.Table(m.Target), d.on(m.Key, "s", "t"))
}

// Merge applies the plan's inserts, updates and deletes in one MERGE
// (PostgreSQL 15+). MERGE needs no unique index on the key, which the target
// may not have; INSERT … ON CONFLICT would. The newest-wins guard is
// repeated here so this statement alone never lets an older row overwrite a
// newer one.
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
	if len(set) == 0 { // every column is key: a newer version changes nothing but its version
		set = append(set, fmt.Sprintf("%s = s.%s", d.Ident(m.Key[0]), d.Ident(m.Key[0])))
	}
	a := "s." + d.Ident(action)
	return fmt.Sprintf(`MERGE INTO %s AS t
USING (SELECT * FROM %s WHERE %s <> %s) AS s
ON %s
WHEN MATCHED AND %s = %s AND %s THEN DELETE
WHEN MATCHED AND %s = %s AND %s THEN UPDATE SET %s
WHEN NOT MATCHED AND %s = %s THEN INSERT (%s) VALUES (%s)`,
		d.Table(m.Target), d.Ident(plan), d.Ident(action), d.String(engine.MergeSkip),
		d.on(m.Key, "s", "t"),
		a, d.String(engine.MergeDelete), d.newer(m.LatestBy, "s", "t"),
		a, d.String(engine.MergeUpdate), d.newer(m.LatestBy, "s", "t"), strings.Join(set, ", "),
		a, d.String(engine.MergeInsert), strings.Join(cols, ", "), strings.Join(vals, ", "))
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
