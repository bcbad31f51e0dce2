package engine

import "strings"

// Beside lists the tables a run may create next to target, each named
// after it: the table a Swapper run builds to replace it (BuildSuffix),
// the one an exchanging run builds a partition in (ExchangeSuffix; an
// ExchangeNamer's names are shortened to fit), and with tombstones the
// tombstone table (TombstoneSuffix). A job's table name must leave room
// for each within MaxIdentBytes, on every engine alike.
func Beside(target Table, tombstones bool) []Table {
	suffixes := []string{BuildSuffix, ExchangeSuffix}
	if tombstones {
		suffixes = append(suffixes, TombstoneSuffix)
	}
	out := make([]Table, len(suffixes))
	for i, s := range suffixes {
		out[i] = Table{Schema: target.Schema, Name: target.Name + s}
	}
	return out
}

// IdemInfix is in the name of every table idem creates beside a target
// (Beside, and an engine's own, such as MySQL's swap): a target named so
// could be another target's.
const IdemInfix = "__idem_"

// HoldsIdemInfix reports whether name holds IdemInfix, in any case.
func HoldsIdemInfix(name string) bool {
	return strings.Contains(strings.ToLower(name), IdemInfix)
}

// SameName reports whether two identifiers name one object on some engine:
// equal but for case (DuckDB folds the case of every name, MariaDB of
// column names). Compared so on every engine, a job means the same
// wherever it runs.
func SameName(a, b string) bool { return strings.EqualFold(a, b) }

// BoolTyper is an optional ability of an engine's Types whose database has
// no boolean type of its own (MySQL, MariaDB: BOOLEAN is TINYINT(1), and a
// comparison yields an integer): which column types hold a flag such as
// delete_when.
type BoolTyper interface {
	IsBool(sqlType string) bool
}

// IsBool reports whether a column of sqlType holds booleans on the engine
// whose Types t are.
func IsBool(t Types, sqlType string) bool {
	if b, ok := t.(BoolTyper); ok {
		return b.IsBool(sqlType)
	}
	return FamilyOf(sqlType) == FamilyBool
}
