//go:build !no_clickhouse

package difftest_test

import (
	"path/filepath"
	"testing"

	"github.com/idemdata/idem/engine/clickhouse" // registers chdb:
	"github.com/idemdata/idem/engine/enginetest"
)

func init() {
	engines = append(engines, engineSpec{name: "clickhouse", keepOpen: true, target: func(parent, t *testing.T) string {
		if _, err := clickhouse.Library(); err != nil {
			msg := err.Error() + " (scripts/fetch-chdb.sh fetches it)"
			if enginetest.Required("clickhouse") {
				t.Fatalf("%s; %s requires it", msg, enginetest.RequireEnv)
			}
			t.Skip(msg)
		}
		return "chdb:" + filepath.Join(parent.TempDir(), "diff.chdb")
	}})
}
