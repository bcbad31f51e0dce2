// Command idem-bench measures idem against each engine's own bulk path and
// prints one table (BENCHMARKS.md):
//
//	go run ./cmd/idem-bench [--engines duckdb,postgres,mysql,clickhouse] [--rows N] [--repeat K] [--big] [--json]
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemdata/idem/internal/benchcli"
	"github.com/idemdata/idem/internal/peakrss"
)

func main() {
	peakrss.Serve() // when this process is the copy measuring a run
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := benchcli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
