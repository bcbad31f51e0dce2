//go:build idem_swap_fake

package main

// The conformance suite's binary also knows duckdb-swap: targets (see
// engine/duckdb/swapfake), so the swap path's cases that start the binary
// (crash points, interrupts, concurrent runs) run on it too.
import _ "github.com/idemdata/idem/engine/duckdb/swapfake"
