// Package enginestub registers stand-ins for idem's engines, for the tests
// of packages that read job files but link no engine (DuckDB needs cgo):
// the same schemes and URL forms as engine/duckdb and engine/postgres
// register, with an Open that fails. Import it for its side effect, in
// tests only.
package enginestub

import (
	"context"
	"errors"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/dsn"
)

func init() {
	open := func(context.Context, string, engine.OpenOptions) (engine.DB, error) {
		return nil, errors.New("enginestub: no engine is linked into this test")
	}
	engine.Register("duckdb", engine.Driver{Name: "duckdb", File: true, Form: "duckdb:PATH",
		Example: "duckdb:warehouse.duckdb or duckdb::memory:", Open: open})
	// As engine/postgres checks its URLs: credentials, then the host list.
	checkPostgres := func(url string) error {
		u, err := dsn.ParseServerURL(url)
		if err != nil {
			return err
		}
		return u.CheckHosts()
	}
	for _, s := range []string{"postgres", "postgresql"} {
		engine.Register(s, engine.Driver{Name: "postgres", Form: s + "://…", CheckURL: checkPostgres, ConcurrentWriters: true, Open: open})
	}
}
