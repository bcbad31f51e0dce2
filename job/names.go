package job

import (
	"fmt"
	"sort"

	"github.com/idemdata/idem/engine"
)

// The names a job gives (its table, and the columns it names) are checked
// here, up front and alike for every engine, so that a job that one engine
// would refuse, truncate or fold is refused on all of them: PostgreSQL cuts
// identifiers after 63 bytes (two long names would then be one table or
// one column), and DuckDB folds case (two spellings would be one column,
// or one table).

// checkNames reports the names of j no engine may hold apart: too long for
// the smallest limit (PostgreSQL's), with the tables idem names after the
// target, or equal to another name but for case.
func (j *Job) checkNames() []Problem {
	var ps []Problem
	if t, err := ParseTable(j.Target.Table); err == nil {
		ps = append(ps, j.tableNameProblems(t)...)
	}
	cols := j.givenColumns()
	for _, c := range cols {
		if n := len(c.col); n > engine.MaxIdentBytes {
			ps = append(ps, Problem{Path: c.path, Msg: fmt.Sprintf(
				"column name %q is %d bytes, longer than %d: PostgreSQL would cut it short (two such names would be one column), so no engine takes it",
				c.col, n, engine.MaxIdentBytes)})
		}
	}
	for i, a := range cols {
		for _, b := range cols[:i] {
			if a.col != b.col && engine.SameName(a.col, b.col) {
				ps = append(ps, Problem{Path: a.path, Msg: fmt.Sprintf(
					"column %q differs from %q (%s) only in case: DuckDB and MariaDB would read one column, the others two; spell it one way",
					a.col, b.col, b.path)})
				break
			}
		}
	}
	return ps
}

// tableNameProblems checks the target's schema and table names, and the
// names of the tables idem creates beside it (engine.Beside).
func (j *Job) tableNameProblems(t TableName) []Problem {
	var ps []Problem
	add := func(format string, args ...any) {
		ps = append(ps, Problem{Path: "target.table", Msg: fmt.Sprintf(format, args...)})
	}
	if n := len(t.Schema); n > engine.MaxIdentBytes {
		add("schema name %q is %d bytes, longer than %d: PostgreSQL would cut it short, so no engine takes it", t.Schema, n, engine.MaxIdentBytes)
	}
	if engine.HoldsIdemInfix(t.Name) {
		add("table name %q holds %q, which names the tables idem creates beside a target (another job's table could be one)", t.Name, engine.IdemInfix)
		return ps
	}
	merge := j.Strategy == StrategyMerge && j.DeleteWhen != ""
	longest := ""
	for _, b := range engine.Beside(engine.Table{Name: t.Name}, merge) {
		if len(b.Name) > len(longest) {
			longest = b.Name
		}
	}
	if len(longest) <= engine.MaxIdentBytes {
		return ps
	}
	limit := engine.MaxIdentBytes - (len(longest) - len(t.Name))
	why := "a run may build it anew beside it"
	if merge && len(longest) == len(t.Name)+len(engine.TombstoneSuffix) {
		why = "delete_when remembers deleted keys"
	}
	add("table name %q is %d bytes, too long: %s in %q, longer than %d bytes (PostgreSQL's limit, kept on every engine); use a table name of at most %d bytes",
		t.Name, len(t.Name), why, longest, engine.MaxIdentBytes, limit)
	return ps
}

// givenColumns lists every column name the job gives, with its path:
// those namedColumns lists, loaded_at, and the columns: entries in order.
func (j *Job) givenColumns() []namedColumn {
	cs := j.namedColumns()
	if j.LoadedAt != "" {
		cs = append(cs, namedColumn{"loaded_at", j.LoadedAt})
	}
	names := make([]string, 0, len(j.Columns))
	for c := range j.Columns {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		cs = append(cs, namedColumn{"columns." + c, c})
	}
	return cs
}
