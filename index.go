package idem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// MissingIndex is an index a job's target lacks, which a target idem
// creates has (engine.Indexer): without it, a run reads the whole table.
type MissingIndex struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
	Unique  bool     `json:"unique"`
	// Cost says what a run pays without it.
	Cost string `json:"cost"`
	// Create is the engine's statement that creates it.
	Create string `json:"create"`
}

// MissingIndexes opens j's target read-only and reports the index its
// strategy needs that the table lacks: on the partition column (a
// partition job), or on the key (a merge job). A target that does not
// exist yet, or an engine that needs no index, reports none.
func MissingIndexes(ctx context.Context, j *Job, lockTimeout time.Duration) (missing []MissingIndex, err error) {
	err = withExisting(ctx, j, lockTimeout, func(db engine.DB) (err error) {
		missing, err = missingIndexes(ctx, j, db)
		return err
	})
	return missing, err
}

// withExisting opens j's target read-only and calls fn with it; a target
// that does not exist yet calls nothing.
func withExisting(ctx context.Context, j *Job, lockTimeout time.Duration, fn func(engine.DB) error) error {
	db, err := OpenReadOnly(ctx, j.Target.URL, j.Dir, lockTimeout)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

func missingIndexes(ctx context.Context, j *Job, db engine.DB) ([]MissingIndex, error) {
	ix := db.SQL().Index
	if ix == nil {
		return nil, nil
	}
	t := engine.Table(j.Table())
	q, args := db.SQL().Catalog.TableExists(t)
	rows, err := db.Conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	exists := rows.Next()
	if err := errors.Join(rows.Err(), rows.Close()); err != nil || !exists {
		return nil, err
	}
	have, err := engine.ReadIndexes(ctx, db.Conn(), ix, t)
	if err != nil {
		return nil, fmt.Errorf("reading the indexes of %s: %w", j.Target.Table, err)
	}
	want := MissingIndex{Table: j.Target.Table, Columns: []string{j.Partition.Column},
		Cost: "deleting and checksumming a partition (every run, and every rerun that is skipped) reads the whole table: a run's time grows with the table, not with the partition"}
	purpose := engine.IndexPartition
	if j.Strategy == job.StrategyMerge {
		want.Columns, want.Unique, purpose = j.Key, true, engine.IndexKey
		want.Cost = "the merge plan joins the staged rows with the whole table: merging a small batch into a large table reads all of it"
	}
	for _, h := range have[purpose] {
		if covers(h, want.Columns) {
			return nil, nil
		}
	}
	want.Create = ix.IndexDDL(t, engine.IndexName(t, purpose), purpose, want.Columns)
	return []MissingIndex{want}, nil
}

// covers reports whether an index on have serves lookups of want: its
// leading columns are want's, in any order.
func covers(have, want []string) bool {
	if len(have) < len(want) {
		return false
	}
	lead := slices.Clone(have[:len(want)])
	w := slices.Clone(want)
	slices.Sort(lead)
	slices.Sort(w)
	return slices.Equal(lead, w)
}

// LooseKey is a key column of a job's target whose collation ignores what
// idem does not (engine.TextComparison): keys idem keeps apart, such as
// abc and ABC, are one key to the table's unique index, and a run that
// writes both fails on it.
type LooseKey struct {
	Table     string `json:"table"`
	Column    string `json:"column"`
	Collation string `json:"collation"`
	// Ignores says what the collation ignores: "case, accents and
	// trailing spaces", "trailing spaces", ….
	Ignores string `json:"ignores"`
	// Alter is the engine's statement that gives the column a bytewise
	// collation.
	Alter string `json:"alter"`
}

// LooseKeys opens j's target read-only and reports its key columns whose
// collation does not compare byte for byte. A job without a key, a target
// that does not exist yet, or an engine whose text always compares byte
// for byte reports none.
func LooseKeys(ctx context.Context, j *Job, lockTimeout time.Duration) (loose []LooseKey, err error) {
	if len(j.Key) == 0 {
		return nil, nil
	}
	err = withExisting(ctx, j, lockTimeout, func(db engine.DB) (err error) {
		loose, err = looseKeys(ctx, j, db)
		return err
	})
	return loose, err
}

func looseKeys(ctx context.Context, j *Job, db engine.DB) ([]LooseKey, error) {
	tc := db.SQL().Text
	if tc == nil {
		return nil, nil
	}
	t := engine.Table(j.Table())
	q, args := tc.KeyCollations(t, j.Key)
	rows, err := db.Conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the collations of %s: %w", j.Target.Table, err)
	}
	defer rows.Close()
	var loose []LooseKey
	for rows.Next() {
		var col, charset, collation, typ, nullable string
		if err := rows.Scan(&col, &charset, &collation, &typ, &nullable); err != nil {
			return nil, err
		}
		if what := tc.Ignores(collation); what != "" {
			loose = append(loose, LooseKey{Table: j.Target.Table, Column: col, Collation: collation, Ignores: what,
				Alter: tc.BytewiseDDL(t, col, charset, typ, strings.EqualFold(nullable, "YES"))})
		}
	}
	return loose, rows.Err()
}
