package idemtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemdata/idem/idemtest"
)

// recorder is a TB that keeps what RunTwice reports.
type recorder struct {
	dir  string
	errs []string
}

func (*recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.errs = append(r.errs, "fatal: "+fmt.Sprintf(format, a...))
}
func (r *recorder) TempDir() string { return r.dir }

func TestRunTwiceFailsWithTheColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "noisy.yaml")
	os.WriteFile(path, []byte(`idem: 1
job: noisy
target:
  table: noisy
source:
  query: SELECT CAST({{ start }} AS DATE) AS d, range AS id, random() AS r FROM range(3)
strategy: partition
partition:
  column: d
key: [id]
`), 0o644)
	rec := &recorder{dir: t.TempDir()}
	rep := idemtest.RunTwice(rec, path, "2026-11-28")
	if len(rec.errs) != 1 {
		t.Fatalf("want one failure, got %q", rec.errs)
	}
	msg := rec.errs[0]
	for _, want := range []string{"not idempotent", "FAIL", "column r differs in 3 of 3 rows", "random value"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
	if rep == nil || rep.Verdict != "fail" {
		t.Errorf("report: %+v", rep)
	}
}

func TestRunTwiceBadJobIsFatal(t *testing.T) {
	rec := &recorder{dir: t.TempDir()}
	if rep := idemtest.RunTwice(rec, filepath.Join(t.TempDir(), "missing.yaml"), "2026-11-28"); rep != nil {
		t.Errorf("got a report for a missing job file")
	}
	if len(rec.errs) != 1 || !strings.HasPrefix(rec.errs[0], "fatal: ") {
		t.Errorf("want one fatal, got %q", rec.errs)
	}
}
