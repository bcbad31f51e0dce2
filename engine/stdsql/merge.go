package stdsql

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
)

// The merge SQL below is standard (PostgreSQL 15 and DuckDB spell it alike),
// built only from a Dialect's quoting and literals. An engine whose MERGE
// differs writes its own MergeStatements.

func keyJoin(d engine.Dialect, key []string, s, t string) string {
	conds := make([]string, len(key))
	for i, k := range key {
		conds[i] = fmt.Sprintf("%s.%s = %s.%s", t, d.Ident(k), s, d.Ident(k))
	}
	return strings.Join(conds, " AND ")
}

// KeyJoin is the equality of the key columns of s and t.
func KeyJoin(d engine.Dialect, key []string, s, t string) string { return keyJoin(d, key, s, t) }

// byDelete picks the action for a winning staged row: ifDelete when its
// delete_when column is true, else ifLive.
func byDelete(d engine.Dialect, m engine.MergeSpec, ifDelete, ifLive string) string {
	if m.DeleteWhen == "" {
		return d.String(ifLive)
	}
	return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", deleteFlag(d, m.DeleteWhen, "s"), d.String(ifDelete), d.String(ifLive))
}

// StandardMergePlan classifies each staged row against the key's current
// row: the target's live row, else its tombstone. The target's key is unique
// (idem's merges keep it so) and so is the tombstones', so the joins do not
// multiply rows.
func StandardMergePlan(d engine.Comparer, plan, src, action string, m engine.MergeSpec) string {
	return StandardMergePlanWith(d, plan, src, action, m, "")
}

// StandardMergePlanWith is StandardMergePlan with more select expressions
// over s (staging) and t (the target's matching row), such as
// "t.rowid AS x", after s's columns.
func StandardMergePlanWith(d engine.Comparer, plan, src, action string, m engine.MergeSpec, extra string) string {
	return StandardMergePlanOpts(d, plan, src, action, m, PlanOptions{Extra: extra})
}

// PlanOptions vary the standard merge plan.
type PlanOptions struct {
	// Extra select expressions over s and t, after s's columns. With
	// Narrow, t has only the staged columns (no rowid).
	Extra string
	// Narrow joins the target (and the tombstones) as only their rows whose
	// key is staged, for an engine that builds its join's hash table from the
	// right side whatever its size (ClickHouse;
	// docs/decisions/0010-clickhouse-merge-touches-staged-keys.md). The plan
	// is the same: a row whose key is not staged matches no staged row.
	Narrow bool
	// Target, when set, is what the target joins as (SQL text, aliased t
	// by the plan): a subquery of the target's rows that the engine finds
	// its own way, which must hold every row whose key is staged.
	Target string
}

// StandardMergePlanOpts is StandardMergePlan with options.
func StandardMergePlanOpts(d engine.Comparer, plan, src, action string, m engine.MergeSpec, o PlanOptions) string {
	extra := o.Extra
	if extra != "" {
		extra += ", "
	}
	joined := func(t engine.Table) string {
		if !o.Narrow {
			return d.Table(t)
		}
		cols := make([]string, len(m.Cols))
		for i, c := range m.Cols {
			cols[i] = c.Name
		}
		keys := IdentList(d, m.Key)
		return fmt.Sprintf("(SELECT %s FROM %s WHERE (%s) IN (SELECT %s FROM %s))",
			IdentList(d, cols), d.Table(t), keys, keys, d.Ident(src))
	}
	k := d.Ident(m.Key[0])
	cases := fmt.Sprintf("  WHEN t.%s IS NOT NULL THEN CASE WHEN %s THEN %s ELSE %s END\n",
		k, precedes(d, m, "s", "t"), byDelete(d, m, engine.MergeDelete, engine.MergeUpdate), Loses(d, m, "s", "t"))
	target := joined(m.Target)
	if o.Target != "" {
		target = o.Target
	}
	from := fmt.Sprintf("FROM %s AS s LEFT JOIN %s AS t ON %s", d.Ident(src), target, keyJoin(d, m.Key, "s", "t"))
	if m.Tombstones.Name != "" {
		cases += fmt.Sprintf("  WHEN x.%s IS NOT NULL THEN CASE WHEN %s THEN %s ELSE %s END\n",
			k, precedes(d, m, "s", "x"), byDelete(d, m, engine.MergeDeleteAbsent, engine.MergeReinsert), Loses(d, m, "s", "x"))
		from += fmt.Sprintf("\n  LEFT JOIN %s AS x ON %s", joined(m.Tombstones), keyJoin(d, m.Key, "s", "x"))
	}
	return fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT s.*, %sCASE\n%s  ELSE %s END AS %s\n%s",
		d.Ident(plan), extra, cases, byDelete(d, m, engine.MergeDeleteAbsent, engine.MergeInsert), d.Ident(action), from)
}

// StandardMerge applies a plan: a MERGE of the target's matched keys
// (deletes and updates), then with tombstones a MERGE of the tombstones
// (write the deletes, forget those a live row won over), then a plain INSERT
// of the keys new to the target. The row-order guard is repeated in each
// MERGE, so it alone never lets a row overwrite one it does not precede.
// Only the matched rows go through the target's join, which measured faster
// than one MERGE of every row on both DuckDB and PostgreSQL; the plan was
// made in the same transaction under the run's lock, so its new keys are
// still new.
func StandardMerge(d engine.Comparer, plan, action string, m engine.MergeSpec) engine.MergeStatements {
	l := newMergeLists(d, m)
	out := engine.MergeStatements{
		Matched: []string{matchedMerge(d, plan, action, m, l)},
		Insert:  []string{insertNew(d, plan, action, m, l)},
	}
	if m.Tombstones.Name != "" {
		out.Tombstones = []string{tombstoneMerge(d, plan, action, m, l)}
	}
	return out
}

// mergeLists are the column lists StandardMerge's statements share.
type mergeLists struct {
	set  []string // the UPDATE's assignments
	cols []string // the INSERT's columns
	vals []string // the INSERT's values, from the plan's s
}

func newMergeLists(d engine.Comparer, m engine.MergeSpec) mergeLists {
	isKey := map[string]bool{}
	for _, k := range m.Key {
		isKey[k] = true
	}
	var l mergeLists
	for _, c := range m.Cols {
		l.cols = append(l.cols, d.Ident(c.Name))
		l.vals = append(l.vals, "s."+d.Ident(c.Name))
		if !isKey[c.Name] {
			l.set = append(l.set, fmt.Sprintf("%s = s.%s", d.Ident(c.Name), d.Ident(c.Name)))
		}
	}
	if m.LoadedAt != "" {
		l.set = append(l.set, d.Ident(m.LoadedAt)+" = "+d.Placeholder(1))
		l.cols = append(l.cols, d.Ident(m.LoadedAt))
		l.vals = append(l.vals, d.Placeholder(1))
	}
	if len(l.set) == 0 { // every column is key: nothing to update but the key itself
		l.set = append(l.set, fmt.Sprintf("%s = s.%s", d.Ident(m.Key[0]), d.Ident(m.Key[0])))
	}
	return l
}

// matchedMerge deletes and updates the target's rows the plan matched.
func matchedMerge(d engine.Comparer, plan, action string, m engine.MergeSpec, l mergeLists) string {
	a := "s." + d.Ident(action)
	return fmt.Sprintf(`MERGE INTO %s AS t
USING (SELECT * FROM %s WHERE %s IN (%s, %s)) AS s
ON %s
WHEN MATCHED AND %s = %s AND %s THEN DELETE
WHEN MATCHED AND %s = %s AND %s THEN UPDATE SET %s`,
		d.Table(m.Target), d.Ident(plan), d.Ident(action), d.String(engine.MergeUpdate), d.String(engine.MergeDelete),
		keyJoin(d, m.Key, "s", "t"),
		a, d.String(engine.MergeDelete), precedes(d, m, "s", "t"),
		a, d.String(engine.MergeUpdate), precedes(d, m, "s", "t"), strings.Join(l.set, ", "))
}

// tombstoneMerge writes the plan's deletes to the tombstones and forgets
// those a live row won over.
func tombstoneMerge(d engine.Comparer, plan, action string, m engine.MergeSpec, l mergeLists) string {
	a := "s." + d.Ident(action)
	// A tombstone is updated in place, never deleted and inserted again
	// in one transaction: DuckDB's unique index can report a duplicate
	// key for that.
	return fmt.Sprintf(`MERGE INTO %s AS t
USING (SELECT * FROM %s WHERE %s IN (%s, %s, %s)) AS s
ON %s
WHEN MATCHED AND %s = %s AND %s THEN DELETE
WHEN MATCHED AND %s <> %s AND %s THEN UPDATE SET %s
WHEN NOT MATCHED AND %s <> %s THEN INSERT (%s) VALUES (%s)`,
		d.Table(m.Tombstones), d.Ident(plan), d.Ident(action), d.String(engine.MergeDelete), d.String(engine.MergeDeleteAbsent), d.String(engine.MergeReinsert),
		keyJoin(d, m.Key, "s", "t"),
		a, d.String(engine.MergeReinsert), precedes(d, m, "s", "t"),
		a, d.String(engine.MergeReinsert), precedes(d, m, "s", "t"), strings.Join(l.set, ", "),
		a, d.String(engine.MergeReinsert), strings.Join(l.cols, ", "), strings.Join(l.vals, ", "))
}

// insertNew inserts the plan's rows new to the target (and with Rewrite
// the updated ones, which the first statement deleted).
func insertNew(d engine.Comparer, plan, action string, m engine.MergeSpec, l mergeLists) string {
	plain := make([]string, len(l.vals))
	for i, v := range l.vals {
		plain[i] = strings.TrimPrefix(v, "s.")
	}
	written := []string{d.String(engine.MergeInsert)}
	if m.Tombstones.Name != "" {
		written = append(written, d.String(engine.MergeReinsert))
	}
	if m.Rewrite { // the first statement deleted the rows updates replace
		written = append(written, d.String(engine.MergeUpdate))
	}
	inserted := "= " + written[0]
	if len(written) > 1 {
		inserted = "IN (" + strings.Join(written, ", ") + ")"
	}
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s %s",
		d.Table(m.Target), strings.Join(l.cols, ", "), strings.Join(plain, ", "), d.Ident(plan), d.Ident(action), inserted)
}
