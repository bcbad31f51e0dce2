package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/idemdata/idem/engine/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Harness{
		Target: func(t *testing.T) string {
			return "duckdb:" + filepath.Join(t.TempDir(), "target.duckdb")
		},
	})
}
