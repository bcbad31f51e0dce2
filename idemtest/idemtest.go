// Package idemtest checks, from a Go test, that an idem job is idempotent:
// one call runs the job twice for a date against a test database and fails
// the test with a readable diff when the two runs disagree, then (for file
// sources) changes one input row in a copy of the input and checks that
// only the rows of that key changed.
//
//	func TestOrdersIdempotent(t *testing.T) {
//		idemtest.RunTwice(t, "jobs/orders.yaml", "2026-11-28")
//	}
//
// It is `idem verify` as a test helper: the runs go to scratch tables next
// to the target (or, without Target, in a fresh DuckDB file in a temporary
// folder), with a scratch ledger, and are dropped afterwards.
package idemtest

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/runner"
)

// TB is the part of testing.TB RunTwice uses; *testing.T and *testing.B
// are one.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	TempDir() string
}

type config struct {
	url     string
	timeout time.Duration
}

// Option changes how RunTwice runs.
type Option func(*config)

// Target runs the job against url (a test database: "duckdb:PATH" or
// "postgres://…") instead of a fresh DuckDB file. A job whose source is a
// query needs it: its source tables must be there. Only scratch tables are
// written; the job's table and ledger are left as they are.
func Target(url string) Option { return func(c *config) { c.url = url } }

// LockTimeout bounds the wait for the database (default one minute).
func LockTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// RunTwice loads the job file at jobPath, verifies it for date (two runs
// compared by row count and checksum, and the change-one-row check for
// file sources), and fails t with the report when the job is not
// idempotent, or with the error when a run could not be made. It returns
// the report (nil after an error).
func RunTwice(t TB, jobPath, date string, opts ...Option) *idem.VerifyReport {
	t.Helper()
	c := config{timeout: time.Minute}
	for _, o := range opts {
		o(&c)
	}
	j, err := idem.Load(jobPath)
	if err != nil {
		t.Fatalf("idemtest: %v", err)
		return nil
	}
	if c.url == "" {
		c.url = "duckdb:" + filepath.Join(t.TempDir(), "idemtest.duckdb")
	}
	j.Target.URL = c.url
	rep, err := idem.Verify(context.Background(), j, idem.Options{Date: date, LockTimeout: c.timeout})
	if err != nil {
		t.Fatalf("idemtest: verifying %s for %s: %v", jobPath, date, err)
		return nil
	}
	if rep.Verdict != runner.VerdictPass {
		var b strings.Builder
		rep.WriteText(&b)
		t.Errorf("idemtest: %s is not idempotent for %s:\n%s", jobPath, date, b.String())
	}
	return rep
}
