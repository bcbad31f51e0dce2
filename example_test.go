package idem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/idemdata/idem"
)

// Load a job file and run it for one day from Go, without the CLI.
func Example() {
	dir, _ := os.MkdirTemp("", "idem-example-")
	defer os.RemoveAll(dir)
	os.CopyFS(dir, os.DirFS("examples/jaffle"))
	os.Remove(filepath.Join(dir, "warehouse.duckdb"))

	j, err := idem.Load(filepath.Join(dir, "orders.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		results, err := idem.Run(context.Background(), j, idem.Options{Date: "2018-01-01"})
		if err != nil {
			fmt.Println(err)
			return
		}
		r := results[0]
		fmt.Println(r.Partition, r.Action, r.RowCount, r.Checksum)
	}
	// Output:
	// 2018-01-01 loaded 1 977fdb04049e826c
	// 2018-01-01 skipped 1 977fdb04049e826c
}
