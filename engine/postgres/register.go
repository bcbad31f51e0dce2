package postgres

import (
	"context"
	"errors"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/dsn"
)

func init() {
	for _, scheme := range []string{"postgres", "postgresql"} {
		engine.Register(scheme, engine.Driver{
			Name:              "postgres",
			Form:              scheme + "://…",
			CheckURL:          checkURL,
			Lexicon:           &lexicon,
			ConcurrentWriters: true,
			Open:              openTarget,
		})
	}
}

// openTarget connects to a postgres:// URL (the whole URL is the location).
func openTarget(ctx context.Context, url string, o engine.OpenOptions) (engine.DB, error) {
	var db *DB
	var err error
	if o.ReadOnly {
		db, err = OpenReadOnly(ctx, url, o.LockTimeout)
	} else {
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

// parseURL splits a postgres:// URL's credentials off and checks its host
// list (host[:port],…): a port that is not a number is usually part of a
// password whose '@' was missed.
func parseURL(url string) (dsn.ServerURL, error) {
	u, err := dsn.ParseServerURL(url)
	if err != nil {
		return dsn.ServerURL{}, err
	}
	if err := u.CheckHosts(); err != nil {
		return dsn.ServerURL{}, err
	}
	return u, nil
}

func checkURL(url string) error {
	_, err := parseURL(url)
	return err
}
