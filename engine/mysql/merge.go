package mysql

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
)

// MySQL has no MERGE. The merge is planned, then applied with one
// statement per action (UPDATE … JOIN, DELETE … JOIN, INSERT … SELECT),
// each repeating the row-order guard, so no statement writes a row its
// staged row does not precede.

func keyJoin(d Dialect, key []string, s, t string) string { return stdsql.KeyJoin(d, key, s, t) }

// byDelete picks the action for a winning staged row.
func byDelete(d Dialect, m engine.MergeSpec, ifDelete, ifLive string) string {
	if m.DeleteWhen == "" {
		return d.String(ifLive)
	}
	return fmt.Sprintf("CASE WHEN coalesce(s.%s, false) THEN %s ELSE %s END", d.Ident(m.DeleteWhen), d.String(ifDelete), d.String(ifLive))
}

// Tombstones creates the tombstone table with the target's columns and a
// unique key on the key (MariaDB indexes text keys by hash).
func (d Dialect) Tombstones(m engine.MergeSpec) []string {
	return []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (UNIQUE KEY idem_key (%s)) %s AS SELECT * FROM %s LIMIT 0",
		d.Table(m.Tombstones), d.Idents(m.Key), d.tableOptions(), d.Table(m.Target))}
}

// RekeyTombstones puts idem_key on the new key, replacing the one the
// table was made with in the same statement; a table made by hand without
// it gets it. MySQL has no DROP INDEX IF EXISTS: the catalog decides.
func (d Dialect) RekeyTombstones(m engine.MergeSpec) []string {
	t := m.Tombstones
	add := fmt.Sprintf("ADD UNIQUE KEY %s (%s)", d.Ident("idem_key"), d.Idents(m.Key))
	alter := "ALTER TABLE " + d.Table(t) + " "
	return prepared(fmt.Sprintf("SELECT IF(count(*) > 0, %s, %s) FROM information_schema.statistics WHERE table_schema = %s AND table_name = %s AND index_name = 'idem_key'",
		d.String(alter+"DROP INDEX "+d.Ident("idem_key")+", "+add), d.String(alter+add), d.schemaExpr(t), d.String(t.Name)))
}

// TombstoneColumn adds the target's column c, nullable, with its type as
// read (see columnType).
func (d Dialect) TombstoneColumn(m engine.MergeSpec, c engine.Column) string {
	return d.AddColumn(m.Tombstones, "", c)
}

// IsBool: MariaDB and MySQL have no boolean type. The reader's booleans
// are BIT(1), read back as BOOLEAN (driver.go); a BOOLEAN column is
// TINYINT(1), and a comparison in a query is an integer: each is a flag,
// 0 false.
func (Dialect) IsBool(sqlType string) bool {
	t := strings.TrimSpace(sqlType)
	if len(t) > len("UNSIGNED ") && strings.EqualFold(t[:len("UNSIGNED ")], "UNSIGNED ") {
		t = t[len("UNSIGNED "):]
	}
	f := engine.FamilyOf(t)
	return f == engine.FamilyBool || f == engine.FamilyInteger || strings.EqualFold(t, "MEDIUMINT")
}

var _ engine.BoolTyper = Dialect{}

// MergePlan classifies each staged row against the key's current row: the
// target's live row, else its tombstone.
func (d Dialect) MergePlan(plan, src, action string, m engine.MergeSpec) string {
	k := d.Ident(m.Key[0])
	cases := fmt.Sprintf("  WHEN t.%s IS NOT NULL THEN CASE WHEN %s THEN %s ELSE %s END\n",
		k, stdsql.Precedes(d, m, "s", "t"), byDelete(d, m, engine.MergeDelete, engine.MergeUpdate), stdsql.Loses(d, m, "s", "t"))
	from := fmt.Sprintf("FROM %s AS s LEFT JOIN %s AS t ON %s", d.Ident(src), d.Table(m.Target), keyJoin(d, m.Key, "s", "t"))
	if m.Tombstones.Name != "" {
		cases += fmt.Sprintf("  WHEN x.%s IS NOT NULL THEN CASE WHEN %s THEN %s ELSE %s END\n",
			k, stdsql.Precedes(d, m, "s", "x"), byDelete(d, m, engine.MergeDeleteAbsent, engine.MergeReinsert), stdsql.Loses(d, m, "s", "x"))
		from += fmt.Sprintf("\n  LEFT JOIN %s AS x ON %s", d.Table(m.Tombstones), keyJoin(d, m.Key, "s", "x"))
	}
	return fmt.Sprintf("CREATE TEMPORARY TABLE %s AS SELECT s.*, CASE\n%s  ELSE %s END AS %s\n%s",
		d.Ident(plan), cases, byDelete(d, m, engine.MergeDeleteAbsent, engine.MergeInsert), d.Ident(action), from)
}

// Merge applies a plan: the matched keys' updates, then their deletes;
// with tombstones, forgetting those a live row won over and writing the
// deletes; then the new keys. Every statement binds loaded_at (when the
// job has one) exactly once, in a derived table p: the runner binds it to
// each statement, and MySQL's parameters are positional.
func (d Dialect) Merge(plan, action string, m engine.MergeSpec) engine.MergeStatements {
	q := newMergeSQL(d, plan, action, m)
	// A target's update assigns every column from the staged row, all
	// read before any is written (a multi-table UPDATE's WHERE is decided
	// first), so the guard sees the old row.
	var out engine.MergeStatements
	out.Matched = []string{
		q.update(m.Target, engine.MergeUpdate),
		q.delete(m.Target, engine.MergeDelete),
	}
	inserted := []string{engine.MergeInsert}
	if m.Tombstones.Name != "" {
		out.Tombstones = append(out.Tombstones,
			q.delete(m.Tombstones, engine.MergeReinsert),
			q.update(m.Tombstones, engine.MergeDelete, engine.MergeDeleteAbsent),
			fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM %s AS s%s\nLEFT JOIN %s AS t ON %s\nWHERE %s AND t.%s IS NULL",
				d.Table(m.Tombstones), strings.Join(q.cols, ", "), strings.Join(q.vals, ", "), d.Ident(plan), q.param,
				d.Table(m.Tombstones), keyJoin(d, m.Key, "s", "t"),
				q.is(engine.MergeDelete, engine.MergeDeleteAbsent), d.Ident(m.Key[0])))
		inserted = append(inserted, engine.MergeReinsert)
	}
	out.Insert = []string{fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM %s AS s%s\nWHERE %s",
		d.Table(m.Target), strings.Join(q.cols, ", "), strings.Join(q.vals, ", "), d.Ident(plan), q.param, q.is(inserted...))}
	return out
}

// mergeSQL builds Merge's statements.
type mergeSQL struct {
	d            Dialect
	plan, action string
	m            engine.MergeSpec
	param        string   // the join binding loaded_at as p.v, or ""
	set          []string // an UPDATE's assignments to t
	cols, vals   []string // an INSERT's columns and values
}

func newMergeSQL(d Dialect, plan, action string, m engine.MergeSpec) *mergeSQL {
	q := &mergeSQL{d: d, plan: plan, action: action, m: m}
	isKey := map[string]bool{}
	for _, k := range m.Key {
		isKey[k] = true
	}
	loaded := ""
	if m.LoadedAt != "" {
		q.param, loaded = "\nJOIN (SELECT ? AS v) AS p", "p.v"
	}
	for _, c := range m.Cols {
		q.cols = append(q.cols, d.Ident(c.Name))
		q.vals = append(q.vals, "s."+d.Ident(c.Name))
		if !isKey[c.Name] {
			q.set = append(q.set, fmt.Sprintf("t.%s = s.%s", d.Ident(c.Name), d.Ident(c.Name)))
		}
	}
	if m.LoadedAt != "" {
		q.set = append(q.set, "t."+d.Ident(m.LoadedAt)+" = "+loaded)
		q.cols = append(q.cols, d.Ident(m.LoadedAt))
		q.vals = append(q.vals, loaded)
	}
	if len(q.set) == 0 { // every column is key: nothing to update but the key itself
		q.set = append(q.set, fmt.Sprintf("t.%s = s.%s", d.Ident(m.Key[0]), d.Ident(m.Key[0])))
	}
	return q
}

// is is the condition that a staged row's action is one of actions.
func (q *mergeSQL) is(actions ...string) string {
	lits := make([]string, len(actions))
	for i, x := range actions {
		lits[i] = q.d.String(x)
	}
	return "s." + q.d.Ident(q.action) + " IN (" + strings.Join(lits, ", ") + ")"
}

// update writes the staged rows of actions over their keys' rows of t.
func (q *mergeSQL) update(t engine.Table, actions ...string) string {
	d, m := q.d, q.m
	return fmt.Sprintf("UPDATE %s AS t\nJOIN %s AS s ON %s%s\nSET %s\nWHERE %s AND %s",
		d.Table(t), d.Ident(q.plan), keyJoin(d, m.Key, "s", "t"), q.param, strings.Join(q.set, ", "),
		q.is(actions...), stdsql.Precedes(d, m, "s", "t"))
}

// delete deletes the rows of t whose keys' staged rows have one of actions.
func (q *mergeSQL) delete(t engine.Table, actions ...string) string {
	d, m := q.d, q.m
	return fmt.Sprintf("DELETE t FROM %s AS t\nJOIN %s AS s ON %s%s\nWHERE %s AND %s",
		d.Table(t), d.Ident(q.plan), keyJoin(d, m.Key, "s", "t"), q.param,
		q.is(actions...), stdsql.Precedes(d, m, "s", "t"))
}

var _ engine.KeyIndexer = (*DB)(nil)

// KeyIndex finds a unique index (or the primary key) on exactly the key's
// columns, none of them indexed by a prefix only.
func (d *DB) KeyIndex(t engine.Table, key []string) (string, []any) {
	dl := Dialect{}
	names := make([]string, len(key))
	for i, k := range key {
		names[i] = dl.String(k)
	}
	schema, args := "DATABASE()", []any{t.Name}
	if t.Schema != "" {
		schema, args = "?", []any{t.Schema, t.Name}
	}
	return fmt.Sprintf(`SELECT 1 FROM information_schema.statistics
WHERE table_schema = %s AND table_name = ? AND non_unique = 0
GROUP BY index_name
HAVING count(*) = %d AND sum(column_name IN (%s) AND sub_part IS NULL) = %d
LIMIT 1`, schema, len(key), strings.Join(names, ", "), len(key)), args
}

// CreateKeyIndex adds the unique key idem_key (MariaDB indexes text
// columns by a hash of the whole value).
func (d *DB) CreateKeyIndex(t engine.Table, key []string) string {
	dl := Dialect{}
	return fmt.Sprintf("ALTER TABLE %s ADD UNIQUE KEY %s (%s)", dl.Table(t), dl.Ident("idem_key"), dl.Idents(key))
}

// ReplaceKeyIndex puts idem_key on key in place of an idem_key on another
// key (the job's key changed), in one statement, which fails as a whole
// if the table holds the new key twice. MySQL has no DROP INDEX IF
// EXISTS: there, a changed key meets the old index's name.
func (d *DB) ReplaceKeyIndex(t engine.Table, key []string) string {
	if !d.mariadb {
		return d.CreateKeyIndex(t, key)
	}
	dl := Dialect{}
	return fmt.Sprintf("ALTER TABLE %s DROP INDEX IF EXISTS %s, ADD UNIQUE KEY %s (%s)", dl.Table(t), dl.Ident("idem_key"), dl.Ident("idem_key"), dl.Idents(key))
}
