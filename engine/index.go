package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Indexer is an optional group of an engine's SQL (SQL.Index, nil when the
// engine needs none): the indexes idem gives a target it creates, so that
// the cost of a run follows the rows it touches, not the table's size. A
// partition target gets an index on the partition column (deleting and
// checksumming a partition read that partition); a merge target a unique
// index on the key (the merge plan looks staged keys up). For a target idem
// did not create, `idem lint --target` reads the indexes it has
// (IndexedColumns) and says which one is missing.
type Indexer interface {
	// CreateIndex creates, if it does not exist, index name on cols of t
	// for a purpose (IndexPartition, IndexKey: a unique index); the engine
	// picks the kind of index that serves it.
	CreateIndex(t Table, name, purpose string, cols []string) []string
	// IndexDDL is the one statement a user runs to create that index on a
	// table idem did not create (idem lint --target shows it).
	IndexDDL(t Table, name, purpose string, cols []string) string
	// DropIndex drops index name of t, if it exists: idem's unique index
	// on a merge's key, when the job's key changed.
	DropIndex(t Table, name string) string
	// IndexedColumns selects, for each index of t that can serve a
	// purpose, the purposes it serves (IndexPartition, IndexKey, joined by
	// IndexColumnSep) and its columns in order, joined by IndexColumnSep.
	IndexedColumns(t Table) (string, []any)
}

// IndexColumnSep separates the column names IndexedColumns selects: no
// identifier holds it.
const IndexColumnSep = "\x01"

// Index purposes, the last part of an index name.
const (
	IndexPartition = "partition" // finds a partition's rows
	IndexKey       = "key"       // unique, looks a key up
)

// IndexName is the name of a target's index for a purpose:
// <table>__idem_<purpose>, with a long table name shortened and told apart
// by a hash of it, so that the name fits in MaxIdentBytes and two long
// table names never share an index name (CREATE INDEX IF NOT EXISTS would
// skip the second).
func IndexName(t Table, purpose string) string {
	suffix := "__idem_" + purpose
	name := t.Name + suffix
	if len(name) <= MaxIdentBytes {
		return name
	}
	h := sha256.Sum256([]byte(t.Name))
	tag := "_" + hex.EncodeToString(h[:4])
	keep := MaxIdentBytes - len(suffix) - len(tag)
	cut := t.Name[:keep]
	for len(cut) > 0 && !validUTF8End(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + tag + suffix
}

// validUTF8End reports whether s does not end inside a multi-byte
// character.
func validUTF8End(s string) bool {
	i := len(s) - 1
	n := 0
	for i >= 0 && s[i]&0xC0 == 0x80 {
		i--
		n++
	}
	if i < 0 {
		return n == 0
	}
	c := s[i]
	switch {
	case c < 0x80:
		return n == 0
	case c&0xE0 == 0xC0:
		return n == 1
	case c&0xF0 == 0xE0:
		return n == 2
	case c&0xF8 == 0xF0:
		return n == 3
	}
	return false
}

// ReadIndexes reads t's indexes (IndexedColumns) on q: each index's
// columns, in order, by the purposes it serves.
func ReadIndexes(ctx context.Context, q Querier, ix Indexer, t Table) (map[string][][]string, error) {
	query, args := ix.IndexedColumns(t)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	all := map[string][][]string{}
	for rows.Next() {
		var purposes, cols string
		if err := rows.Scan(&purposes, &cols); err != nil {
			return nil, err
		}
		for _, p := range strings.Split(purposes, IndexColumnSep) {
			all[p] = append(all[p], strings.Split(cols, IndexColumnSep))
		}
	}
	return all, rows.Err()
}
