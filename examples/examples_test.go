// Package examples_test checks that the example jobs are idempotent, with
// idemtest, on DuckDB and (when a server answers) PostgreSQL.
package examples_test

import (
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/idemtest"
)

var postgres = enginetest.Postgres

// Dates that exercise each job: jaffle's first day and a day with two
// orders; quakes' first snapshot and one that overlaps the one before.
var jobs = []struct{ path, date string }{
	{"jaffle/orders.yaml", "2018-01-01"},
	{"jaffle/orders.yaml", "2018-01-05"},
	{"quakes/quakes.yaml", "2026-08-19T00"},
	{"quakes/quakes.yaml", "2026-08-20T12"},
}

func TestExamplesIdempotentDuckDB(t *testing.T) {
	for _, j := range jobs {
		t.Run(j.path+"@"+j.date, func(t *testing.T) {
			rep := idemtest.RunTwice(t, j.path, j.date) // a fresh DuckDB file
			if rep != nil && (rep.Change == nil || rep.Change.Verdict != "pass") {
				t.Errorf("change one row not checked: %+v", rep.Change)
			}
		})
	}
}

// Against the server's test database itself: verify writes only scratch
// tables, and drops them.
func TestExamplesIdempotentPostgres(t *testing.T) {
	dsn := postgres.DSN(t)
	for _, j := range jobs {
		t.Run(j.path+"@"+j.date, func(t *testing.T) {
			rep := idemtest.RunTwice(t, j.path, j.date, idemtest.Target(dsn))
			if rep != nil && (rep.Change == nil || rep.Change.Verdict != "pass") {
				t.Errorf("change one row not checked: %+v", rep.Change)
			}
		})
	}
}
