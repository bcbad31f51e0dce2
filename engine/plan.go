package engine

import (
	"fmt"
	"strings"
)

// LoadNote is the comment a run records for a bulk load, so `idem plan`
// and the golden files say which files go into which table, and how: a
// loader streams rows outside SQL text, where no statement shows them.
func LoadNote(files []string, stage, how string) string {
	return "-- load " + strings.Join(files, ", ") + " into " + stage + " " + how
}

// LockDescriber is an optional DB ability, found by type assertion: it
// says what Lock takes for a scope (the keys of advisory locks, say), for
// the lock step `idem plan` prints: Lock runs on the transaction itself,
// outside the run's recorder, so its statements are not recorded.
type LockDescriber interface {
	DescribeLock(scope LockScope) string
}

// WithColumn selects every row of temporary table src (a name) with one
// more column, col, holding value (a literal), for Stager.StageQuery: the
// run's version under latest_by: run.
func WithColumn(d Dialect, src, col, value string) string {
	return fmt.Sprintf("SELECT s.*, %s AS %s FROM %s AS s", value, d.Ident(col), d.Ident(src))
}

// SelectAll selects every row of temporary table src (a name), for
// Stager.StageQuery.
func SelectAll(d Dialect, src string) string { return "SELECT * FROM " + d.Ident(src) }
