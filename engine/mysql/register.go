package mysql

import (
	"context"
	"errors"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/dsn"
)

func init() {
	engine.Register("mysql", engine.Driver{
		Name:              "mysql",
		Form:              "mysql://…",
		Example:           "mysql://user@127.0.0.1:3306/warehouse",
		Lexicon:           &lexicon,
		ConcurrentWriters: true,
		Open:              openTarget,
	})
}

// openTarget connects to a mysql:// URL (the whole URL is the location).
func openTarget(ctx context.Context, url string, o engine.OpenOptions) (engine.DB, error) {
	var db *DB
	var err error
	switch {
	case o.Source:
		db, err = OpenSource(ctx, url, o.LockTimeout)
	case o.ReadOnly:
		db, err = OpenReadOnly(ctx, url, o.LockTimeout)
	default:
		db, err = Open(ctx, url, o.LockTimeout)
	}
	if errors.Is(err, dsn.ErrURL) {
		return nil, engine.BadTarget(err)
	}
	if err != nil { // a nil *DB must not become a non-nil engine.DB
		return nil, err
	}
	return db, nil
}
