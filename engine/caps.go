package engine

import (
	"context"
	"fmt"
	"reflect"
)

// Commit is how a run's writes become atomic on an engine: the runner
// picks one protocol per run from it.
type Commit int

const (
	// CommitTransaction: every step of a run, DDL included, in one
	// transaction (DuckDB, PostgreSQL).
	CommitTransaction Commit = iota
	// CommitSwap: DDL commits the open transaction (MySQL, MariaDB). DDL
	// runs before the data transaction, which holds DML only; a change of
	// the table's shape is built beside it and swapped in (Swapper).
	CommitSwap
	// CommitExchange: no transactions at all (ClickHouse). A partition is
	// built beside the target and exchanged in one atomic statement
	// (PartitionExchanger); a whole table is swapped (Swapper).
	CommitExchange
)

func (c Commit) String() string {
	switch c {
	case CommitTransaction:
		return "transaction"
	case CommitSwap:
		return "swap"
	case CommitExchange:
		return "exchange"
	}
	return fmt.Sprintf("Commit(%d)", int(c))
}

// Capabilities is everything an engine can do beyond DB, in one value:
// the runner reads it once per run and never asserts a type itself. A
// wrapper of a DB (a scratch target, a test fake) embeds it and so carries
// its Capabilities unchanged. The optional hooks that only tune a run
// (SizeMemory, SizeCommit, CheckZone, Interpret, DescribeLock) are never
// nil: an engine without them gets ones that do nothing.
type Capabilities struct {
	Commit Commit
	// Swap is set for CommitSwap and CommitExchange.
	Swap Swapper
	// Exchange is set for CommitExchange.
	Exchange PartitionExchanger
	// Optional abilities that change what a run does (nil: not had).
	Copy          Copier
	ExchangeNames ExchangeNamer
	Patches       PatchHolder
	KeyIndex      KeyIndexer
	SplitChecksum SplitChecksummer
	// Hooks, never nil.
	Memory MemorySizer
	Size   CommitSizer
	Zones  ZoneChecker
	Errors ErrorInterpreter
	Locks  LockDescriber
}

// Declare is what an engine's DB.Capabilities returns: the commit kind it
// declares, and the abilities its concrete type db has (the one place
// where abilities are found by type assertion). It panics on a
// declaration that cannot work (a swap engine that cannot swap): an
// engine's bug, met by its first test.
func Declare(db any, commit Commit) Capabilities {
	c := Capabilities{Commit: commit,
		Memory: noMemory{}, Size: noSize{}, Zones: anyZone{}, Errors: sameError{}, Locks: noLockText{}}
	c.Swap, _ = db.(Swapper)
	c.Exchange, _ = db.(PartitionExchanger)
	c.Copy, _ = db.(Copier)
	c.ExchangeNames, _ = db.(ExchangeNamer)
	c.Patches, _ = db.(PatchHolder)
	c.KeyIndex, _ = db.(KeyIndexer)
	c.SplitChecksum, _ = db.(SplitChecksummer)
	setHook(&c.Memory, db)
	setHook(&c.Size, db)
	setHook(&c.Zones, db)
	setHook(&c.Errors, db)
	setHook(&c.Locks, db)
	if err := c.check(); err != nil {
		panic(fmt.Sprintf("engine %T: %v", db, err))
	}
	return c
}

// setHook sets *h to db when db implements the hook's interface.
func setHook[T any](h *T, db any) {
	if v, ok := db.(T); ok {
		*h = v
	}
}

// check refuses a declaration whose protocol lacks what it needs.
func (c Capabilities) check() error {
	switch c.Commit {
	case CommitTransaction:
		if c.Exchange != nil {
			return fmt.Errorf("declares %s but exchanges partitions", c.Commit)
		}
	case CommitSwap:
		if c.Swap == nil {
			return fmt.Errorf("declares %s but is not a Swapper", c.Commit)
		}
	case CommitExchange:
		if c.Swap == nil || c.Exchange == nil {
			return fmt.Errorf("declares %s but is not both a Swapper and a PartitionExchanger", c.Commit)
		}
	default:
		return fmt.Errorf("declares an unknown commit kind %s", c.Commit)
	}
	return nil
}

// Declared lists the commit kind and every ability c holds, each with the
// type that provides it: two DBs whose lists are equal run the same way.
func (c Capabilities) Declared() []string {
	out := []string{"commit " + c.Commit.String()}
	v := reflect.ValueOf(c)
	for i := 1; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.IsNil() {
			continue
		}
		out = append(out, fmt.Sprintf("%s %T", v.Type().Field(i).Name, f.Interface()))
	}
	return out
}

// The hooks of an engine that has none.
type (
	noMemory   struct{}
	noSize     struct{}
	anyZone    struct{}
	sameError  struct{}
	noLockText struct{}
)

func (noMemory) SizeMemory(context.Context, Querier, MemoryUse) error { return nil }
func (noSize) SizeCommit(context.Context, Querier, int64) error       { return nil }
func (anyZone) CheckZone(context.Context, string) error               { return nil }
func (sameError) Interpret(err error) error                           { return err }
func (noLockText) DescribeLock(LockScope) string                      { return "" }
