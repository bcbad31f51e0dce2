package idemtest_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/idemdata/idem/idemtest"
)

// exampleT stands in for the *testing.T a test passes.
type exampleT struct{ dir string }

func (exampleT) Helper()                        {}
func (exampleT) Errorf(format string, a ...any) { fmt.Printf(format+"\n", a...) }
func (exampleT) Fatalf(format string, a ...any) { fmt.Printf(format+"\n", a...) }
func (t exampleT) TempDir() string              { return t.dir }

// A job and its input in a folder; in a test, RunTwice(t, "jobs/orders.yaml", …).
func Example() {
	dir, _ := os.MkdirTemp("", "idemtest-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "orders.csv"), []byte(`order_id,order_date,status,amount
1,2026-11-27,placed,10.00
2,2026-11-28,placed,20.50
3,2026-11-28,shipped,5.25
`), 0o644)
	os.WriteFile(filepath.Join(dir, "orders.yaml"), []byte(`idem: 1
job: orders_daily
target:
  table: orders
source:
  files: orders.csv
strategy: partition
partition:
  column: order_date
key: [order_id]
`), 0o644)

	rep := idemtest.RunTwice(exampleT{dir}, filepath.Join(dir, "orders.yaml"), "2026-11-28")
	fmt.Println(rep.Verdict, rep.First.RowCount, "rows; change one row:", rep.Change.Verdict, rep.Change.Key)
	// Output: pass 2 rows; change one row: pass order_id=2
}
