package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/ledger"
)

// RepeatedKeyError is a merge refused because its target (or its
// tombstone table) holds a key in more than one row: a merge keeps one row
// per key, and would otherwise write the key's new row twice, or fail
// halfway on engines that refuse it. Nothing was written. The CLI maps it
// to exit 1, like any failed run.
type RepeatedKeyError struct {
	Table string   // the table holding the key, as the job names it
	Key   []string // the key's columns
	Value []string // the key's value, one per column, as text
	Rows  int64    // how many rows hold it
}

func (e *RepeatedKeyError) Error() string {
	parts := make([]string, len(e.Key))
	for i, k := range e.Key {
		parts[i] = k + "=" + e.Value[i]
	}
	return fmt.Sprintf("%s holds key {%s} in %d rows, and a merge keeps one row per key (a job without key sharing the table, or a key changed and changed back, can write it twice); nothing was written. Keep one row of each such key, then run again (README: repairing a table that holds a key twice)",
		e.Table, strings.Join(parts, ", "), e.Rows)
}

// checkPlanRows refuses a merge whose target holds a staged key twice,
// before anything is written. The plan joins each staged row with its
// key's row in the target and in the tombstones, so such a key gives the
// plan more rows than staging has: the counts are compared, and only when
// they differ is the key looked for.
func (r *run) checkPlanRows(ctx context.Context, planRows int64) error {
	if planRows == r.res.RowsIn-r.res.RowsDeduped {
		return nil
	}
	if err := r.repeatedKey(ctx, r.sql.Table(r.merge.Target), r.src, r.job.Target.Table); err != nil {
		return err
	}
	if tomb := r.merge.Tombstones; tomb.Name != "" {
		if err := r.repeatedKey(ctx, r.sql.Table(tomb), r.src, dotted(tomb)); err != nil {
			return err
		}
	}
	return fmt.Errorf("planning the merge: %d staged rows gave %d planned ones, and no table holds a key twice; nothing was written", r.res.RowsIn-r.res.RowsDeduped, planRows)
}

// checkFirstMerge refuses the first merge of the job onto a table, or
// its first under a changed definition (a key changed, say), when the
// table holds any key twice, on every engine: later merges check the keys
// they touch (checkPlanRows). The job's own earlier rows are one per key
// of its old key, not of its new one. An engine whose merge needs a
// unique index on the key (MySQL, MariaDB) could not add it to such a
// table anyway; checking on every engine makes the same table the same
// refusal everywhere.
func (r *run) checkFirstMerge(ctx context.Context) error {
	if r.ledger {
		changed, err := ledger.DefinitionChanged(ctx, r.s, r.db, r.job.Name, r.job.DefinitionHash())
		if err != nil || !changed {
			return err
		}
	}
	if err := r.repeatedKey(ctx, r.table, "", r.job.Target.Table); err != nil {
		return err
	}
	if err := r.replaceKeyIndex(ctx); err != nil {
		return err
	}
	return r.rekeyTombstones(ctx)
}

// rekeyTombstones gives the tombstone table of a merge whose definition
// changed its unique key on the job's key: made on an earlier key, it
// refuses deletes the new key keeps apart. A tombstone table holding a
// key twice under the new key is refused like the target.
func (r *run) rekeyTombstones(ctx context.Context) error {
	if r.job.DeleteWhen == "" {
		return nil
	}
	tomb, err := engine.TombstoneTable(engine.Table(r.job.Table()))
	if err != nil { // planMerge names the problem
		return nil
	}
	if found, err := r.tombstonesExist(ctx, tomb); err != nil || !found {
		return err
	}
	if err := r.repeatedKey(ctx, r.sql.Table(tomb), "", dotted(tomb)); err != nil {
		return err
	}
	cols, err := r.s.columns(ctx, r.sql, r.sql.Table(tomb))
	if err != nil {
		return err
	}
	stmts := r.sql.Merge.RekeyTombstones(engine.MergeSpec{Key: r.job.Key, Tombstones: tomb, Cols: cols})
	if len(stmts) > 0 {
		if err := r.proto.planDDL(r, "make the unique key of "+tomb.Name+" on the key"); err != nil {
			return err
		}
	}
	for _, q := range stmts {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("keying %s on %v: %w", tomb.Name, r.job.Key, err)
		}
	}
	return nil
}

// replaceKeyIndex gives a merge target idem's unique index on the job's
// key when no unique index of the table is on exactly that key: the index
// idem made on an earlier key refuses rows the new key keeps apart.
func (r *run) replaceKeyIndex(ctx context.Context) error {
	ix := r.sql.Index
	t := engine.Table(r.job.Table())
	if ix == nil {
		return nil
	}
	name := engine.IndexName(t, engine.IndexKey)
	create := ix.CreateIndex(t, name, engine.IndexKey, r.job.Key)
	if len(create) == 0 {
		return nil
	}
	if has, err := r.hasKeyIndex(ctx, ix, t); err != nil || has {
		return err
	}
	if err := r.proto.planDDL(r, "replace the unique index on the key of "+r.job.Target.Table); err != nil {
		return err
	}
	for _, q := range append([]string{ix.DropIndex(t, name)}, create...) {
		if _, err := r.s.exec(ctx, q); err != nil {
			return fmt.Errorf("indexing the key of %s (the merge's key is %v): %w", r.job.Target.Table, r.job.Key, err)
		}
	}
	return nil
}

// hasKeyIndex reports whether t has a unique index on exactly the job's
// key, in any order.
func (r *run) hasKeyIndex(ctx context.Context, ix engine.Indexer, t engine.Table) (bool, error) {
	have, err := engine.ReadIndexes(ctx, r.s, ix, t)
	if err != nil {
		return false, fmt.Errorf("reading the indexes of %s: %w", r.job.Target.Table, err)
	}
	want := slices.Sorted(slices.Values(r.job.Key))
	for _, cols := range have[engine.IndexKey] {
		if slices.Equal(slices.Sorted(slices.Values(cols)), want) {
			return true, nil
		}
	}
	return false, nil
}

// repeatedKey returns a *RepeatedKeyError for the first key that table
// (quoted; name is how the error names it) holds twice among the keys of
// temporary table src ("" for any key), or nil when there is none.
func (r *run) repeatedKey(ctx context.Context, table, src, name string) error {
	rows, err := r.s.QueryContext(ctx, r.sql.Inspect.RepeatedKey(table, src, r.job.Key))
	if err != nil {
		return fmt.Errorf("looking for a key %s holds twice: %w", name, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return rows.Err()
	}
	vals := make([]any, len(r.job.Key))
	ptrs := make([]any, len(r.job.Key)+1)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	ptrs[len(vals)] = &n
	if err := rows.Scan(ptrs...); err != nil {
		return fmt.Errorf("looking for a key %s holds twice: %w", name, err)
	}
	e := &RepeatedKeyError{Table: name, Key: r.job.Key, Rows: n}
	for _, v := range vals {
		e.Value = append(e.Value, keyText(v))
	}
	return e
}

// dotted is t as errors name it: schema.name, or name.
func dotted(t engine.Table) string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// keyText is a key value as an error shows it: its text quoted, as the
// NULL key error shows values, so that spaces show.
func keyText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return strconv.Quote(string(x))
	case time.Time:
		return strconv.Quote(x.UTC().Format("2006-01-02 15:04:05.999999999"))
	}
	return strconv.Quote(fmt.Sprint(v))
}

// checkDeleteFlag refuses a merge whose delete_when column is not a
// boolean, before anything is created: the target's type where it has the
// column (staging takes it), else the input's, which a first merge gives
// the target and its tombstone table. A text column holding Y or N would
// otherwise fail inside the merge, or, compared as a number, delete
// nothing.
func (r *run) checkDeleteFlag() error {
	col := r.job.DeleteWhen
	if col == "" {
		return nil
	}
	where, typ := r.job.Target.Table, ""
	for _, c := range r.targetCols {
		if c.Name == col {
			typ = c.Type
		}
	}
	if typ == "" {
		where = "the input"
		for _, c := range r.stageCols {
			if c.Name == col {
				typ = c.Type
			}
		}
	}
	if typ == "" || engine.IsBool(r.sql.Types, typ) {
		return nil // a missing column is checkColumns's to name
	}
	return &InputError{Column: col, Msg: fmt.Sprintf(
		"column %q (delete_when) is %s in %s; delete_when needs a boolean column (true or false), so nothing was written: give the source a boolean column, or declare it under columns: as BOOLEAN",
		col, typ, where)}
}

// dropTombstones drops the tombstone table a failed run created on an
// engine whose DDL is not part of the data transaction (engine.Swapper),
// so that it is not left typed or filled by a run that did not land.
func (r *run) dropTombstones(ctx context.Context, err error) {
	if err == nil || !r.tombCreated || r.landed || errors.Is(err, errSkipped) {
		return
	}
	if _, derr := r.s.exec(ctx, r.proto.drop(r, r.merge.Tombstones)); derr != nil {
		r.log.Warn("dropping the tombstone table", "table", r.merge.Tombstones.Name, "err", derr)
	}
}

// tombstonesExist reports whether table t (the tombstones, or any table
// beside the target) exists.
func (r *run) tombstonesExist(ctx context.Context, t engine.Table) (bool, error) {
	q, args := r.sql.Catalog.TableExists(t)
	var one int
	switch err := r.s.QueryRowContext(ctx, q, args...).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}
