package idem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/idemdata/idem"
)

// Backfill a range of days in one process, then read the ledger's status.
func ExampleBackfill() {
	dir, _ := os.MkdirTemp("", "idem-example-")
	defer os.RemoveAll(dir)
	os.CopyFS(dir, os.DirFS("examples/jaffle"))
	os.Remove(filepath.Join(dir, "warehouse.duckdb"))

	j, err := idem.Load(filepath.Join(dir, "orders.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := idem.Backfill(context.Background(), j, idem.BackfillOptions{From: "2018-01-01", To: "2018-01-03"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range b.Results {
		fmt.Println(r.Partition, r.Action, r.RowCount)
	}
	fmt.Println("failed:", b.Failed) // no order on 2018-01-03

	s, err := idem.ReadStatus(context.Background(), j, "2018-01-01", "2018-01-03", time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("complete:", s.OK(), "failed:", s.Failed)
	// Output:
	// 2018-01-01 loaded 1
	// 2018-01-02 loaded 1
	// 2018-01-03 failed 0
	// failed: [2018-01-03]
	// complete: false failed: [2018-01-03]
}
