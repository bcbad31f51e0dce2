package duckdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/idemdata/idem/engine"
)

func init() {
	engine.Register("duckdb", engine.Driver{
		Name:    "duckdb",
		File:    true,
		Form:    "duckdb:PATH",
		Example: "duckdb:warehouse.duckdb or duckdb::memory:",
		Lexicon: &lexicon,
		Open:    openTarget,
	})
}

// openTarget opens a duckdb: URL's file, resolved against the job's folder.
func openTarget(ctx context.Context, path string, o engine.OpenOptions) (engine.DB, error) {
	if path != ":memory:" && !filepath.IsAbs(path) {
		path = filepath.Join(o.Dir, path)
	}
	var db *DB
	var err error
	if o.ReadOnly {
		db, err = OpenReadOnly(ctx, path, o.LockTimeout)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, engine.BadTarget(err)
		}
	} else {
		db, err = Open(ctx, path, o.LockTimeout)
	}
	if errors.Is(err, ErrNotDatabase) {
		return nil, engine.BadTarget(fmt.Errorf("%s: %w", o.URL, err))
	}
	if err != nil { // a nil *DB must not become a non-nil engine.DB
		return nil, err
	}
	return db, nil
}
