package engine

import (
	"fmt"
	"strings"
)

// Standard is the SQL of the groups DuckDB and PostgreSQL spell alike
// (Inspector, Writer, Temp), built only from a Dialect's quoting and
// literals. An engine that spells one of them differently (MySQL has no
// count(*) FILTER) gives SQL its own implementation of that group.
type Standard struct{ D Dialect }

var (
	_ Inspector  = Standard{}
	_ Writer     = Standard{}
	_ Conditions = Standard{}
	_ Temp       = Standard{}
)

func (s Standard) idents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = s.D.Ident(n)
	}
	return strings.Join(q, ", ")
}

func where(cond string) string {
	if cond == "" {
		return ""
	}
	return " WHERE " + cond
}

// Columns selects no row, for the columns' names and types.
func (Standard) Columns(table string) string { return "SELECT * FROM " + table + " LIMIT 0" }

// Count counts the rows where cond holds.
func (Standard) Count(table, cond string) string {
	return "SELECT count(*) FROM " + table + where(cond)
}

// CountDistinct counts the distinct values of cols.
func (s Standard) CountDistinct(table string, cols []string) string {
	return fmt.Sprintf("SELECT count(*) FROM (SELECT DISTINCT %s FROM %s) AS k", s.idents(cols), table)
}

// Sample selects up to n rows of cols as text, ordered by that text.
func (s Standard) Sample(table string, cols []string, cond string, n int) string {
	casts := make([]string, len(cols))
	for i, c := range cols {
		casts[i] = fmt.Sprintf("CAST(%s AS VARCHAR)", s.D.Ident(c))
	}
	list := strings.Join(casts, ", ")
	return fmt.Sprintf("SELECT %s FROM %s%s ORDER BY %s LIMIT %d", list, table, where(cond), list, n)
}

// GroupCount counts the rows with each value of expr.
func (Standard) GroupCount(table, expr, cond string) string {
	return fmt.Sprintf("SELECT %s AS p, count(*) FROM %s%s GROUP BY 1 ORDER BY 1", expr, table, where(cond))
}

// Tally counts the rows with each value of col.
func (s Standard) Tally(table, col string) string {
	c := s.D.Ident(col)
	return fmt.Sprintf("SELECT %s, count(*) FROM %s GROUP BY %s", c, table, c)
}

// DeleteWhere deletes the rows where cond holds.
func (Standard) DeleteWhere(table, cond string) string { return "DELETE FROM " + table + where(cond) }

// InsertSelect copies cols from src into table, loadedAt bound to $1.
func (s Standard) InsertSelect(table string, cols []string, loadedAt, src, cond string) string {
	into, sel := s.idents(cols), s.idents(cols)
	if loadedAt != "" {
		into += ", " + s.D.Ident(loadedAt)
		sel += ", " + s.D.Placeholder(1)
	}
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s%s", table, into, sel, src, where(cond))
}

// Placement counts all rows, the rows where cond holds, and those whose
// col is NULL, in one scan.
func (s Standard) Placement(table, cond, col string) string {
	return fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE %s), count(*) FILTER (WHERE %s IS NULL) FROM %s",
		cond, s.D.Ident(col), table)
}

// Between is col >= lo AND col < hi.
func (s Standard) Between(col, lo, hi string) string {
	c := s.D.Ident(col)
	return fmt.Sprintf("%s >= %s AND %s < %s", c, lo, c, hi)
}

// AnyNull is true when any of cols is NULL.
func (s Standard) AnyNull(cols []string) string {
	conds := make([]string, len(cols))
	for i, c := range cols {
		conds[i] = s.D.Ident(c) + " IS NULL"
	}
	return strings.Join(conds, " OR ")
}

// In is col IN ('a', 'b', …).
func (s Standard) In(col string, values ...string) string {
	lits := make([]string, len(values))
	for i, v := range values {
		lits[i] = s.D.String(v)
	}
	return fmt.Sprintf("%s IN (%s)", s.D.Ident(col), strings.Join(lits, ", "))
}

// NotNull is col IS NOT NULL.
func (s Standard) NotNull(col string) string { return s.D.Ident(col) + " IS NOT NULL" }

// Not is NOT (cond).
func (Standard) Not(cond string) string { return "NOT (" + cond + ")" }

// And joins conditions with AND; a condition holding OR must come
// parenthesized (Not parenthesizes).
func (Standard) And(conds ...string) string { return strings.Join(conds, " AND ") }

// AlterType converts a staged column in place.
func (s Standard) AlterType(stage, col, typ string) string {
	c := s.D.Ident(col)
	return fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s TYPE %s USING CAST(%s AS %s)", s.D.Ident(stage), c, typ, c, typ)
}

// DropTemp drops a temporary table.
func (s Standard) DropTemp(name string) string { return "DROP TABLE IF EXISTS " + s.D.Ident(name) }
