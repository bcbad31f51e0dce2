// Package faults holds idem's fault-injection tests: a real idem process
// killed with SIGKILL at random moments during a large run (every
// engine), its sessions ended by the server, and many processes writing one
// table at once (PostgreSQL and MySQL/MariaDB). Each counts what it tried and checks that the target is exactly
// the old or the new contents, that the ledger agrees with the table, and
// that the next run converges. docs/reliability.md gives the commands and
// the counts.
//
// The tests run a small count in `go test ./internal/faults` (not with
// -short); the environment sets the full count:
//
//	IDEM_FAULT_KILLS=200 IDEM_FAULT_CONNKILLS=50 go test ./internal/faults -run . -v -timeout 24h
package faults
