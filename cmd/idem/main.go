// Command idem runs data load jobs that are idempotent by construction.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemdata/idem/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
