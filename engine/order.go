package engine

import (
	"fmt"
)

// The row order. Every row ever loaded for a key has a place in one total
// order: the greatest latest_by first (NULL last), then a delete before a
// live row (a delete stays deleted against an equal version), then the
// other columns ascending (NULL last) in column order, compared by the
// dialect's ContentKey (text bytewise). The state of a key after any set of
// runs is the first of its rows: staging de-duplicates by this order, and a
// merge writes a staged row only if it precedes the key's current row (live,
// or remembered as a tombstone). So the table never depends on the order
// the inputs were loaded in.

// contentCols are the columns compared after the version and the delete
// flag: all but the key (equal within a key) and latest_by.
func contentCols(key []string, latestBy string, cols []Column) []Column {
	skip := map[string]bool{latestBy: true}
	for _, k := range key {
		skip[k] = true
	}
	var out []Column
	for _, c := range cols {
		if !skip[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

func colType(cols []Column, name string) string {
	for _, c := range cols {
		if c.Name == name {
			return c.Type
		}
	}
	return ""
}

// deleteFlag is whether the row (of alias q, "" for none) is a delete; a
// NULL flag is a live row.
func deleteFlag(d Dialect, deleteWhen, q string) string {
	return fmt.Sprintf("coalesce(%s, false)", qualify(d, q, deleteWhen))
}

func qualify(d Dialect, q, col string) string {
	if q == "" {
		return d.Ident(col)
	}
	return q + "." + d.Ident(col)
}

// RowOrder is the ORDER BY list (without the key) that puts a key's first
// row first, for a dialect's Dedup.
func RowOrder(d Comparer, key []string, latestBy, deleteWhen string, cols []Column) []string {
	var order []string
	if latestBy != "" {
		order = append(order, nullsLast(d, d.ContentKey(d.Ident(latestBy), colType(cols, latestBy)), true))
	}
	if deleteWhen != "" {
		order = append(order, deleteFlag(d, deleteWhen, "")+" DESC")
	}
	for _, c := range contentCols(key, latestBy, cols) {
		order = append(order, nullsLast(d, d.ContentKey(d.Ident(c.Name), c.Type), false))
	}
	return order
}

// ShowAlias names the table Inspector.Head reads.
const ShowAlias = "r"

// ShowOrder is the ORDER BY list that shows a table's rows in one order
// whatever order they were written in, on every engine alike: the key's
// columns first (none without a key), then every other column, each
// ascending, NULL last, compared by content (ContentKey: text bytewise).
// Columns are named through ShowAlias.
func ShowOrder(s *SQL, key []string, cols []Column) []string {
	var order []string
	for _, k := range key {
		order = append(order, nullsLast(s.Dialect, s.Types.ContentKey(qualify(s.Dialect, ShowAlias, k), colType(cols, k)), false))
	}
	for _, c := range contentCols(key, "", cols) {
		order = append(order, nullsLast(s.Dialect, s.Types.ContentKey(qualify(s.Dialect, ShowAlias, c.Name), c.Type), false))
	}
	return order
}

// precedes is true when row s comes before row t of the same key in the row
// order (and false when they are equal). It is the lexicographic comparison
// spelled out, null-safe and linear in the number of columns:
// lt1 OR (eq1 AND (lt2 OR (eq2 AND …))).
func precedes(d Comparer, m MergeSpec, s, t string) string {
	expr := ""
	// then wraps the comparison of one more significant column around the
	// comparison of the rest.
	then := func(lt, eq string) {
		if expr == "" {
			expr = "(" + lt + ")"
			return
		}
		expr = fmt.Sprintf("(%s OR (%s AND %s))", lt, eq, expr)
	}
	content := contentCols(m.Key, m.LatestBy, m.Cols)
	for i := len(content) - 1; i >= 0; i-- {
		c := content[i]
		sv, tv := d.ContentKey(qualify(d, s, c.Name), c.Type), d.ContentKey(qualify(d, t, c.Name), c.Type)
		then(fmt.Sprintf("%s < %s OR (%s IS NOT NULL AND %s IS NULL)", sv, tv, sv, tv),
			notDistinct(d, sv, tv))
	}
	if m.DeleteWhen != "" {
		sd, td := deleteFlag(d, m.DeleteWhen, s), deleteFlag(d, m.DeleteWhen, t)
		then(fmt.Sprintf("%s AND NOT %s", sd, td), fmt.Sprintf("%s = %s", sd, td))
	}
	typ := colType(m.Cols, m.LatestBy)
	sv, tv := d.ContentKey(qualify(d, s, m.LatestBy), typ), d.ContentKey(qualify(d, t, m.LatestBy), typ)
	then(fmt.Sprintf("%s > %s OR (%s IS NOT NULL AND %s IS NULL)", sv, tv, sv, tv),
		notDistinct(d, sv, tv))
	return expr
}

// Precedes is the row-order comparison (see precedes) for an engine that
// writes its own merge: true when row s comes before row t of one key.
func Precedes(d Comparer, m MergeSpec, s, t string) string { return precedes(d, m, s, t) }

// NullSpeller is an optional Dialect ability, for SQL without the standard
// spellings the row order uses (MySQL and MariaDB have neither IS NOT
// DISTINCT FROM nor NULLS LAST). Without it, the standard ones are used.
type NullSpeller interface {
	// NotDistinct is a null-safe equality of a and b.
	NotDistinct(a, b string) string
	// NullsLast orders by expr (descending when desc), NULL last.
	NullsLast(expr string, desc bool) string
}

func notDistinct(d Dialect, a, b string) string {
	if n, ok := d.(NullSpeller); ok {
		return n.NotDistinct(a, b)
	}
	return fmt.Sprintf("%s IS NOT DISTINCT FROM %s", a, b)
}

func nullsLast(d Dialect, expr string, desc bool) string {
	if n, ok := d.(NullSpeller); ok {
		return n.NullsLast(expr, desc)
	}
	if desc {
		return expr + " DESC NULLS LAST"
	}
	return expr + " ASC NULLS LAST"
}

// TombstoneSuffix names a target's tombstone table: <table>__idem_deleted.
const TombstoneSuffix = "__idem_deleted"

// MaxIdentBytes is the longest identifier idem creates. PostgreSQL silently
// truncates longer names (NAMEDATALEN - 1), so two long table names could
// share one tombstone table; the limit holds on every engine so a job means
// the same wherever it runs.
const MaxIdentBytes = 63

// TombstoneTable is where a merge with delete_when remembers deleted keys:
// a table next to the target, in its schema.
func TombstoneTable(target Table) (Table, error) {
	name := target.Name + TombstoneSuffix
	if len(name) > MaxIdentBytes {
		return Table{}, fmt.Errorf("table name %q is too long for delete_when: deleted keys are remembered in %q, longer than %d bytes; use a table name of at most %d bytes",
			target.Name, name, MaxIdentBytes, MaxIdentBytes-len(TombstoneSuffix))
	}
	return Table{Schema: target.Schema, Name: name}, nil
}
