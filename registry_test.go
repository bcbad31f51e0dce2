package idem_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
)

// fakeDB is what the fake engine opens: it records how it was opened.
type fakeDB struct {
	engine.DB // nil: the test calls nothing else
	location  string
	opts      engine.OpenOptions
}

func init() {
	engine.Register("fakedb", engine.Driver{
		Name: "fakedb", File: true, Form: "fakedb:PATH", Example: "fakedb:w.fake",
		Open: func(_ context.Context, loc string, o engine.OpenOptions) (engine.DB, error) {
			if loc == "broken.fake" {
				return nil, engine.BadTarget(errors.New("broken.fake is not a fake database"))
			}
			return &fakeDB{location: loc, opts: o}, nil
		},
	})
	engine.Register("fakeserver", engine.Driver{
		Name: "fakeserver", Form: "fakeserver://…", ConcurrentWriters: true,
		Open: func(_ context.Context, loc string, o engine.OpenOptions) (engine.DB, error) {
			return &fakeDB{location: loc, opts: o}, nil
		},
	})
}

// An engine registered outside idem opens through the public API, with no
// switch in idem knowing it.
func TestOpenRegisteredEngine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := idem.Open(ctx, "fakedb:data/w.fake", "/jobs", 3*time.Second)
	require.NoError(t, err)
	f := db.(*fakeDB)
	require.Equal(t, "data/w.fake", f.location, "a file engine gets the path as written")
	require.Equal(t, engine.OpenOptions{URL: "fakedb:data/w.fake", Dir: "/jobs", LockTimeout: 3 * time.Second}, f.opts)

	db, err = idem.OpenReadOnly(ctx, "fakedb://w.fake", "/jobs", time.Second)
	require.NoError(t, err)
	require.Equal(t, "w.fake", db.(*fakeDB).location)
	require.True(t, db.(*fakeDB).opts.ReadOnly)

	db, err = idem.Open(ctx, "fakeserver://u:pw@h/db", "/jobs", time.Second)
	require.NoError(t, err)
	require.Equal(t, "fakeserver://u:pw@h/db", db.(*fakeDB).location, "a server engine gets the whole URL")
	require.True(t, idem.ConcurrentWriters("fakeserver://h/db"))
	require.False(t, idem.ConcurrentWriters("fakedb:w.fake"))

	_, err = idem.Open(ctx, "fakedb:broken.fake", "/jobs", time.Second)
	require.ErrorIs(t, err, idem.ErrTarget, "the driver's BadTarget is idem's ErrTarget")
	require.EqualError(t, err, "broken.fake is not a fake database")

	_, err = idem.Open(ctx, "fakedb:", "/jobs", time.Second)
	require.ErrorIs(t, err, idem.ErrTarget)
	require.EqualError(t, err, "fakedb: needs a file path (fakedb:w.fake)")
}

// An unknown scheme is a target error listing every registered engine,
// and shows no password.
func TestOpenUnknownScheme(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"sqlite:w.db", "sqlserver://root:S3cr3t@h:1433/w", "fakeserver:h/db"} {
		_, err := idem.Open(context.Background(), url, t.TempDir(), time.Second)
		require.ErrorIs(t, err, idem.ErrTarget, url)
		require.NotContains(t, err.Error(), "S3cr3t")
		require.Contains(t, err.Error(), "is not a target URL (")
		for _, form := range []string{"duckdb:PATH", "fakedb:PATH", "fakeserver://…", "mysql://…", "postgres://…", "postgresql://…"} {
			require.Contains(t, err.Error(), form, url)
		}
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "engine: Register called twice for scheme duckdb", func() {
		engine.Register("duckdb", engine.Driver{Name: "duckdb", Open: func(context.Context, string, engine.OpenOptions) (engine.DB, error) { return nil, nil }})
	})
}
