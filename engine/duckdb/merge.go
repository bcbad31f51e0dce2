package duckdb

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/stdsql"
)

// Tombstones creates the tombstone table with the target's columns. It
// has no unique index: DuckDB cannot make an index anew under its name in
// the transaction that dropped it (a key changed), and the merge checks
// the keys it touches itself (a key held twice is refused).
func (d Dialect) Tombstones(m engine.MergeSpec) []string {
	return []string{
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS SELECT * FROM %s LIMIT 0", d.Table(m.Tombstones), d.Table(m.Target)),
	}
}

// RekeyTombstones drops the unique index an earlier idem made on the
// key the table was made with.
func (d Dialect) RekeyTombstones(m engine.MergeSpec) []string {
	t := m.Tombstones
	return []string{"DROP INDEX IF EXISTS " + d.Table(engine.Table{Schema: t.Schema, Name: t.Name + "_key"})}
}

// TombstoneColumn adds the target's column c with its type as read
// (DuckDB gives it whole: DECIMAL(12,2)).
func (d Dialect) TombstoneColumn(m engine.MergeSpec, c engine.Column) string {
	return d.AddColumn(m.Tombstones, "", c)
}

// rowidColumn is the merge plan's column holding the matched target row's
// rowid, which the rewrite's delete finds the row by.
const rowidColumn = "_idem_rowid"

// MergePlan is the standard plan, keeping the matched row's rowid. The
// target joins as only its rows of staged keys: their rowids by a semi-join
// reading the key column alone, then those rows fetched by rowid; a join
// with the table reads every column of every row
// (docs/decisions/0021-duckdb-merge-plan-by-matched-rowids.md). Rowids hold
// within the transaction: the plan is made in it and nothing writes the
// table before the rewrite's delete finds rows by them (0007).
func (d Dialect) MergePlan(plan, src, action string, m engine.MergeSpec) string {
	rowid := d.Ident(rowidColumn)
	matched := d.Ident("_idem_matched")
	target := fmt.Sprintf("(SELECT *, rowid AS %s FROM %s WHERE rowid IN (SELECT r FROM %s))", rowid, d.Table(m.Target), matched)
	q := stdsql.StandardMergePlanOpts(d, plan, src, action, m, stdsql.PlanOptions{Extra: "t." + rowid + " AS " + rowid, Target: target})
	with := fmt.Sprintf("WITH %s AS MATERIALIZED (SELECT t.rowid AS r FROM %s AS t SEMI JOIN %s AS s ON %s)\n",
		matched, d.Table(m.Target), d.Ident(src), stdsql.KeyJoin(d, m.Key, "s", "t"))
	head := "CREATE TEMP TABLE " + d.Ident(plan) + " AS "
	return strings.Replace(q, head, head+with, 1)
}

// Merge is the standard apply (PostgreSQL 15+ and DuckDB both have
// MERGE), or with m.Rewrite (engine.Rewriter) the same with the matched
// keys' losing rows deleted and the winners inserted with the new keys: an
// UPDATE spread over a large table rewrites the columns it sets in every row
// group it touches when the commit checkpoints, a delete marks rows.
func (d Dialect) Merge(plan, action string, m engine.MergeSpec) engine.MergeStatements {
	stmts := stdsql.StandardMerge(d, plan, action, m)
	if !m.Rewrite {
		return stmts
	}
	// Every statement of a merge binds parameter 1 when there is a
	// loaded_at column; the delete takes it without using it.
	param := ""
	if m.LoadedAt != "" {
		param = ", (SELECT CAST(" + d.Placeholder(1) + " AS TIMESTAMPTZ) AS v) AS p"
	}
	// The row is found by its rowid; the key's equality is checked too, so
	// a rowid that no longer names the row deletes nothing, and the runner's
	// count of deleted rows fails the run. StandardMerge's Insert inserts
	// the updates with the new keys.
	stmts.Matched = []string{fmt.Sprintf("DELETE FROM %s AS t USING %s AS s%s\nWHERE t.rowid = s.%s AND %s AND s.%s IN (%s, %s) AND %s",
		d.Table(m.Target), d.Ident(plan), param, d.Ident(rowidColumn), stdsql.KeyJoin(d, m.Key, "s", "t"),
		d.Ident(action), d.String(engine.MergeUpdate), d.String(engine.MergeDelete), stdsql.Precedes(d, m, "s", "t"))}
	return stmts
}

// RewriteBlockers finds what refuses a key deleted and inserted again in one
// transaction: DuckDB's unique indexes and primary keys ("Duplicate key",
// 1.5.6), and foreign keys.
func (d Dialect) RewriteBlockers(t engine.Table) (string, []any) {
	schema := t.Schema
	if schema == "" {
		schema = "main"
	}
	return `SELECT constraint_type FROM duckdb_constraints()
WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')
  AND ((schema_name = $1 AND table_name = $2) OR (constraint_type = 'FOREIGN KEY' AND referenced_table = $2))
UNION ALL
SELECT 'UNIQUE INDEX' FROM duckdb_indexes()
WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 AND is_unique`, []any{schema, t.Name}
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
