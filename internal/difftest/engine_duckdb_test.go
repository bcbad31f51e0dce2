//go:build !no_duckdb

package difftest_test

import (
	"path/filepath"
	"testing"

	_ "github.com/idemdata/idem/engine/duckdb" // registers duckdb:
)

func init() {
	engines = append(engines, engineSpec{name: "duckdb", keepOpen: true, target: func(parent, _ *testing.T) string {
		return "duckdb:" + filepath.Join(parent.TempDir(), "diff.duckdb")
	}})
}
