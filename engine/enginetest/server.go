package enginetest

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequireEnv names the servers that must be reachable (comma-separated,
// e.g. "postgres,mysql"): a test needing one fails instead of skipping. CI
// sets it, so that a server that did not start cannot pass as a skip.
const RequireEnv = "IDEM_TEST_REQUIRE"

// Server is a database server that tests of one engine need, found through
// an environment variable with a local default.
type Server struct {
	Name    string // as RequireEnv names it: "postgres"
	EnvVar  string // holds the DSN: "IDEM_TEST_POSTGRES"
	Default string // the DSN when EnvVar is unset
	Start   string // how to start a server, for the skip message
	// Ping reports whether a server answers at dsn.
	Ping func(ctx context.Context, dsn string) error
}

var pings sync.Map // dsn -> *pingResult: one attempt per process

type pingResult struct {
	once sync.Once
	err  error
}

// DSN returns the server's DSN. When no server answers, the test is skipped
// with a message saying how to start one, or fails when RequireEnv names
// the server.
func (s Server) DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(s.EnvVar)
	if dsn == "" {
		dsn = s.Default
	}
	v, _ := pings.LoadOrStore(dsn, &pingResult{})
	p := v.(*pingResult)
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.err = s.Ping(ctx, dsn)
	})
	if p.err == nil {
		return dsn
	}
	msg := "no " + s.Name + " server answers (" + p.err.Error() + "); start one: " + s.Start +
		", or point " + s.EnvVar + " at one"
	if Required(s.Name) {
		t.Fatalf("%s; %s=%s requires it", msg, RequireEnv, os.Getenv(RequireEnv))
	}
	t.Skip(msg)
	return ""
}

// Required reports whether RequireEnv names the server.
func Required(name string) bool {
	var names []string
	for n := range strings.SplitSeq(os.Getenv(RequireEnv), ",") {
		names = append(names, strings.TrimSpace(n))
	}
	return slices.Contains(names, name)
}

// Postgres is the PostgreSQL server the tests use: IDEM_TEST_POSTGRES, or
// the local one. The pgx driver must be registered ("pgx"), as
// engine/postgres does.
var Postgres = Server{
	Name:    "postgres",
	EnvVar:  "IDEM_TEST_POSTGRES",
	Default: "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
	Start:   "pg_ctlcluster --skip-systemctl-redirect 15 main start, or docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:15",
	Ping: func(ctx context.Context, dsn string) error {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	},
}
