package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/idemdata/idem/engine/sqltext"
)

// Driver is one engine as the rest of idem sees it: how its target URLs are
// written and how a target is opened. Each engine package registers its
// driver in init, so adding an engine touches no shared switch.
type Driver struct {
	// Name is the engine's name ("duckdb", "postgres"). Schemes that spell
	// one engine (postgres, postgresql) register the same name.
	Name string
	// File: a URL is scheme:PATH (or scheme://PATH), a path relative to
	// the job file's folder. Otherwise it is a server URL,
	// scheme://user:password@host/…, whose password is redacted in output.
	File bool
	// Form is how a URL is written, for messages: duckdb:PATH, postgres://….
	Form string
	// Example is a complete URL, for the message about a URL without a
	// location.
	Example string
	// CheckURL, when set, checks a server URL as Open will read it, so a
	// job file with a malformed one is refused before anything is opened.
	// Its errors wrap dsn.ErrURL and never show the password. Unset, only
	// the credentials are split off (dsn.ParseServerURL).
	CheckURL func(url string) error
	// Lexicon is how the engine reads SQL text (where its strings,
	// quoted identifiers and comments end) and which of its functions give
	// a different value on every run: what lint reads a job's query with,
	// and `idem checksum --where` its condition. Nil: read by
	// sqltext.Unknown's rules. The engine's Dialect returns the same one
	// (Lexer).
	Lexicon *sqltext.Lexicon
	// ConcurrentWriters: several connections may write one target at once
	// (a server), so a backfill may run partitions in parallel.
	ConcurrentWriters bool
	// Open opens a target. location is the file path as written (resolve
	// it against o.Dir) or the whole server URL.
	Open func(ctx context.Context, location string, o OpenOptions) (DB, error)
}

// OpenOptions are what Driver.Open is told besides the location.
type OpenOptions struct {
	// URL is the target URL as written, for messages (redact it).
	URL string
	// Dir is the job file's folder: a relative file path resolves
	// against it, so a job runs the same from any working directory.
	Dir string
	// LockTimeout bounds waiting for another process's lock.
	LockTimeout time.Duration
	// ReadOnly opens an existing target so that nothing can write it; a
	// file that does not exist is an error wrapping fs.ErrNotExist.
	ReadOnly bool
	// Source opens a job's source database (ReadOnly too): its values are
	// read as SourceReader reads them, and an engine that cannot open it
	// beside the run's target refuses at once rather than wait.
	Source bool
}

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes a URL scheme (without the colon) open with d. Like
// database/sql.Register it panics when the scheme is taken or d cannot
// open anything: both are mistakes in the program, made at init.
func Register(scheme string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if _, dup := drivers[scheme]; dup {
		panic("engine: Register called twice for scheme " + scheme)
	}
	if scheme == "" || d.Name == "" || d.Open == nil {
		panic(fmt.Sprintf("engine: Register(%q): a scheme, a name and Open are required", scheme))
	}
	drivers[scheme] = d
}

// Lookup returns the driver registered for a scheme (case-sensitive, as
// written in target URLs).
func Lookup(scheme string) (Driver, bool) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	d, ok := drivers[scheme]
	return d, ok
}

// registered returns every registered driver, in scheme order.
func registered() []Driver {
	var out []Driver
	for _, s := range Schemes() {
		d, _ := Lookup(s)
		out = append(out, d)
	}
	return out
}

// Schemes lists the registered schemes, sorted.
func Schemes() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	out := make([]string, 0, len(drivers))
	for s := range drivers {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Forms lists how the registered engines' URLs are written (Driver.Form),
// in scheme order, for messages.
func Forms() []string {
	var out []string
	for _, s := range Schemes() {
		d, _ := Lookup(s)
		out = append(out, d.Form)
	}
	return out
}

// ErrBadTarget marks a target that cannot be used as given (a malformed
// URL, a file that is not a database, a read-only open of a file that does
// not exist): trying again will not help. Drivers mark such errors with
// BadTarget; idem reports them as its ErrTarget.
var ErrBadTarget = errors.New("unusable target")

// BadTarget marks err as ErrBadTarget, its message unchanged.
func BadTarget(err error) error {
	if err == nil {
		return nil
	}
	return badTarget{err}
}

type badTarget struct{ error }

func (badTarget) Is(target error) bool { return target == ErrBadTarget }
func (e badTarget) Unwrap() error      { return e.error }
