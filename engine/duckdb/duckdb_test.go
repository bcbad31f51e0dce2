package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/idemdata/idem/engine/enginetest"
)

// harness gives each test its own database file.
var harness = enginetest.Harness{
	Target: func(t *testing.T) string {
		return "duckdb:" + filepath.Join(t.TempDir(), "target.duckdb")
	},
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness)
}

func TestGoldenSQL(t *testing.T) {
	enginetest.Golden(t, harness, "duckdb")
}
