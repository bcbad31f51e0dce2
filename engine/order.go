package engine

import (
	"fmt"
)

// NullSpeller is an optional Dialect ability, for SQL without the standard
// spellings the row order uses (MySQL and MariaDB have neither IS NOT
// DISTINCT FROM nor NULLS LAST). Without it, the standard ones are used.
type NullSpeller interface {
	// NotDistinct is a null-safe equality of a and b.
	NotDistinct(a, b string) string
	// NullsLast orders by expr (descending when desc), NULL last.
	NullsLast(expr string, desc bool) string
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
