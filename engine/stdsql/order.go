package stdsql

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
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
func contentCols(key []string, latestBy string, cols []engine.Column) []engine.Column {
	skip := map[string]bool{latestBy: true}
	for _, k := range key {
		skip[k] = true
	}
	var out []engine.Column
	for _, c := range cols {
		if !skip[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

func colType(cols []engine.Column, name string) string {
	for _, c := range cols {
		if c.Name == name {
			return c.Type
		}
	}
	return ""
}

// deleteFlag is whether the row (of alias q, "" for none) is a delete; a
// NULL flag is a live row.
func deleteFlag(d engine.Dialect, deleteWhen, q string) string {
	return fmt.Sprintf("coalesce(%s, false)", qualify(d, q, deleteWhen))
}

func qualify(d engine.Dialect, q, col string) string {
	if q == "" {
		return d.Ident(col)
	}
	return q + "." + d.Ident(col)
}

// RowOrder is the ORDER BY list (without the key) that puts a key's first
// row first, for a dialect's Dedup.
func RowOrder(d engine.Comparer, key []string, latestBy, deleteWhen string, cols []engine.Column) []string {
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
func ShowOrder(s *engine.SQL, key []string, cols []engine.Column) []string {
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
func precedes(d engine.Comparer, m engine.MergeSpec, s, t string) string {
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

// tied is true when rows s and t of one key have equal versions and
// delete flags but differ in content, so that the row order decides
// between them by content alone; "" when rows have no other column to
// differ in.
func tied(d engine.Comparer, m engine.MergeSpec, s, t string) string {
	content := contentCols(m.Key, m.LatestBy, m.Cols)
	if len(content) == 0 {
		return ""
	}
	typ := colType(m.Cols, m.LatestBy)
	conds := []string{notDistinct(d, d.ContentKey(qualify(d, s, m.LatestBy), typ), d.ContentKey(qualify(d, t, m.LatestBy), typ))}
	if m.DeleteWhen != "" {
		conds = append(conds, fmt.Sprintf("%s = %s", deleteFlag(d, m.DeleteWhen, s), deleteFlag(d, m.DeleteWhen, t)))
	}
	same := make([]string, len(content))
	for i, c := range content {
		same[i] = notDistinct(d, d.ContentKey(qualify(d, s, c.Name), c.Type), d.ContentKey(qualify(d, t, c.Name), c.Type))
	}
	conds = append(conds, "NOT ("+strings.Join(same, " AND ")+")")
	return "(" + strings.Join(conds, " AND ") + ")"
}

// Loses is the merge plan's action for a staged row s that does not
// precede its key's current row t: MergeTie when they tie on the version
// (the current row is kept, first by content), else MergeSkip.
func Loses(d engine.Comparer, m engine.MergeSpec, s, t string) string {
	tie := tied(d, m, s, t)
	if tie == "" {
		return d.String(engine.MergeSkip)
	}
	return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", tie, d.String(engine.MergeTie), d.String(engine.MergeSkip))
}

// Precedes is the row-order comparison (see precedes) for an engine that
// writes its own merge: true when row s comes before row t of one key.
func Precedes(d engine.Comparer, m engine.MergeSpec, s, t string) string { return precedes(d, m, s, t) }

func notDistinct(d engine.Dialect, a, b string) string {
	if n, ok := d.(engine.NullSpeller); ok {
		return n.NotDistinct(a, b)
	}
	return fmt.Sprintf("%s IS NOT DISTINCT FROM %s", a, b)
}

func nullsLast(d engine.Dialect, expr string, desc bool) string {
	if n, ok := d.(engine.NullSpeller); ok {
		return n.NullsLast(expr, desc)
	}
	if desc {
		return expr + " DESC NULLS LAST"
	}
	return expr + " ASC NULLS LAST"
}
