package postgres

import (
	"fmt"

	"github.com/idemdata/idem/engine"
)

var _ engine.LockDescriber = (*DB)(nil)

// lockKeys are the advisory lock keys of scope: its table's, and its
// partition's (0 for a whole-table scope). Lock takes them and
// DescribeLock names them, so a plan shows the keys a run waits on, as
// pg_locks shows them.
func lockKeys(scope engine.LockScope) (table, partition int64) {
	t := scope.Table
	table = lockKey("idem", "table", t.Schema, t.Name)
	if scope.Partition != "" {
		partition = lockKey("idem", "partition", t.Schema, t.Name, scope.Partition)
	}
	return table, partition
}

// DescribeLock names the transaction-scoped advisory locks Lock takes.
func (d *DB) DescribeLock(scope engine.LockScope) string {
	table, partition := lockKeys(scope)
	if scope.Partition == "" {
		return fmt.Sprintf("pg_advisory_xact_lock(%d) (the table's key, exclusive)", table)
	}
	return fmt.Sprintf("pg_advisory_xact_lock_shared(%d) (the table's key), pg_advisory_xact_lock(%d) (the partition's key)", table, partition)
}
