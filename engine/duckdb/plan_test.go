package duckdb_test

import (
	"testing"

	"github.com/idemdata/idem/engine/enginetest"
)

// TestPlanGolden compares `idem plan` with the golden files, and each plan
// with what a run then executes.
func TestPlanGolden(t *testing.T) {
	enginetest.GoldenPlan(t, harness, "duckdb")
}
