// Package stdsql is the SQL that standard engines share, beside the
// contract (package engine) and not part of it: ANSI quoting and
// literals, the Standard statement groups, the row order, the merge plan
// and its statements, and the one Differ. An engine builds its engine.SQL
// from these and replaces what it spells differently.
package stdsql
