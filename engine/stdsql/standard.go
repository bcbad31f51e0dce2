package stdsql

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
)

// Standard is the SQL of the groups DuckDB and PostgreSQL spell alike
// (Inspector, Writer, Temp), built only from a Dialect's quoting and
// literals. An engine that spells one of them differently (MySQL has no
// count(*) FILTER) gives SQL its own implementation of that group.
type Standard struct{ D engine.Dialect }

var (
	_ engine.Inspector  = Standard{}
	_ engine.Writer     = Standard{}
	_ engine.Conditions = Standard{}
	_ engine.Temp       = Standard{}
)

func (s Standard) idents(names []string) string { return IdentList(s.D, names) }

// IdentList quotes a list of identifiers, comma-separated.
func IdentList(d engine.Dialect, names []string) string { return identList(d.Ident, names) }

func identList(ident func(string) string, names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = ident(n)
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

// Head selects the first n rows in order, each value cast to text.
func (s Standard) Head(table string, cols []engine.Column, cond string, order []string, n int) string {
	casts := make([]string, len(cols))
	for i, c := range cols {
		casts[i] = fmt.Sprintf("CAST(%s AS VARCHAR)", s.D.Ident(c.Name))
	}
	return fmt.Sprintf("SELECT %s FROM %s AS %s%s%s LIMIT %d", strings.Join(casts, ", "), table, ShowAlias, where(cond), orderBy(order), n)
}

func orderBy(order []string) string {
	if len(order) == 0 {
		return ""
	}
	return " ORDER BY " + strings.Join(order, ", ")
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

// RepeatedKey selects the first key table holds twice, among src's.
func (s Standard) RepeatedKey(table, src string, key []string) string {
	k := s.idents(key)
	among := ""
	if src != "" {
		among = fmt.Sprintf(" WHERE (%s) IN (SELECT %s FROM %s)", k, k, s.D.Ident(src))
	}
	return fmt.Sprintf("SELECT %s, count(*) FROM %s%s GROUP BY %s HAVING count(*) > 1 ORDER BY %s LIMIT 1", k, table, among, k, k)
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

// True is coalesce(col, false), as a merge reads delete_when.
func (s Standard) True(col string) string { return "coalesce(" + s.D.Ident(col) + ", false)" }

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

// eqs is a = $1 AND b = $2 … for the columns eq.
func (s Standard) eqs(eq []string) string {
	conds := make([]string, len(eq))
	for i, c := range eq {
		conds[i] = fmt.Sprintf("%s = %s", s.D.Ident(c), s.D.Placeholder(i+1))
	}
	return strings.Join(conds, " AND ")
}

// ColumnNames asks information_schema, which DuckDB and PostgreSQL share.
func (s Standard) ColumnNames(t engine.Table) (string, []any) {
	return fmt.Sprintf("SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = %s AND table_name = %s",
		s.D.Placeholder(1), s.D.Placeholder(2)), []any{t.Schema, t.Name}
}

// Select selects cols where eq holds, ordered by orderBy.
func (s Standard) Select(t engine.Table, cols []engine.ColumnDef, eq, orderBy []string) string {
	list := make([]string, len(cols))
	for i, c := range cols {
		list[i] = s.D.Ident(c.Name)
		if c.Nullable {
			list[i] = "coalesce(" + list[i] + ", " + s.D.String("") + ")"
		}
	}
	q := "SELECT " + strings.Join(list, ", ") + " FROM " + s.D.Table(t) + where(s.eqs(eq))
	if len(orderBy) > 0 {
		q += " ORDER BY " + s.idents(orderBy)
	}
	return q
}

// DistinctPairs selects the pairs of a and b where a <> $1.
func (s Standard) DistinctPairs(t engine.Table, a, b string) string {
	return fmt.Sprintf("SELECT DISTINCT %s, %s FROM %s WHERE %s <> %s ORDER BY 1, 2",
		s.D.Ident(a), s.D.Ident(b), s.D.Table(t), s.D.Ident(a), s.D.Placeholder(1))
}

// MaxSeq selects coalesce(max(seq), 0).
func (s Standard) MaxSeq(t engine.Table, seq string, eq []string) string {
	return fmt.Sprintf("SELECT coalesce(max(%s), 0) FROM %s%s", s.D.Ident(seq), s.D.Table(t), where(s.eqs(eq)))
}

// NextSeq selects coalesce(max(seq), 0) + 1, and the rows where same
// matches.
func (s Standard) NextSeq(t engine.Table, seq string, eq []string, same string) string {
	q := fmt.Sprintf("SELECT coalesce(max(%s), 0) + 1", s.D.Ident(seq))
	if same != "" {
		q += fmt.Sprintf(", count(*) FILTER (WHERE %s = %s)", s.D.Ident(same), s.D.Placeholder(len(eq)+1))
	}
	return q + " FROM " + s.D.Table(t) + where(s.eqs(eq))
}

// Insert inserts one row of bound values.
func (s Standard) Insert(t engine.Table, cols []string) string {
	ph := make([]string, len(cols))
	for i := range cols {
		ph[i] = s.D.Placeholder(i + 1)
	}
	return "INSERT INTO " + s.D.Table(t) + " (" + s.idents(cols) + ") VALUES (" + strings.Join(ph, ", ") + ")"
}

// SchemaExists asks information_schema.
func (s Standard) SchemaExists(schema string) (string, []any) {
	return "SELECT count(*) FROM information_schema.schemata WHERE schema_name = " + s.D.Placeholder(1) +
		" AND catalog_name = current_database()", []any{schema}
}

// CopyTable is CREATE TABLE … AS SELECT *.
func (s Standard) CopyTable(dst, src engine.Table) string {
	return fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM %s", s.D.Table(dst), s.D.Table(src))
}

// DropTable drops a table if it exists.
func (s Standard) DropTable(t engine.Table) string { return "DROP TABLE IF EXISTS " + s.D.Table(t) }

// CreateStage creates the staging table the reader's rows are loaded into.
func (s Standard) CreateStage(stage string, cols []engine.Column) []string {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = s.D.Ident(c.Name) + " " + c.Type
	}
	return []string{fmt.Sprintf("CREATE TEMP TABLE %s (%s)", s.D.Ident(stage), strings.Join(defs, ", "))}
}
