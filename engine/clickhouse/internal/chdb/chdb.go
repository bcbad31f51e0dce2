// Package chdb binds libchdb.so (embedded ClickHouse) at run time, when a
// chdb: target is first opened: the idem binary runs every other engine on
// a machine without the library. chdb-go's own binding cannot be imported
// for that reason: it opens the library in init and panics without it.
package chdb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// LibEnv names the library file; chdb-go's CHDB_LIB_PATH is read too.
const LibEnv = "IDEM_CHDB_LIB"

// ErrNoLibrary marks a machine without libchdb.so.
var ErrNoLibrary = errors.New("libchdb.so (embedded ClickHouse) was not found")

type result struct{ internal unsafe.Pointer }
type connection struct{ internal unsafe.Pointer }

var (
	loadOnce sync.Once
	loadErr  error

	chdbConnect       func(argc int, argv []*byte) *connection
	chdbCloseConn     func(conn *connection)
	chdbQuery         func(conn unsafe.Pointer, query string, format string) *result
	chdbDestroyResult func(r *result)
	chdbResultBuffer  func(r *result) *byte
	chdbResultLength  func(r *result) uint
	chdbResultError   func(r *result) string
)

// Candidates are where the library is looked for, in order.
func Candidates() []string {
	var out []string
	for _, env := range []string{LibEnv, "CHDB_LIB_PATH"} {
		if p := os.Getenv(env); p != "" {
			out = append(out, p)
		}
	}
	if cache, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(cache, "idem", "chdb", Version, "libchdb.so"))
	}
	return append(out, "/usr/local/lib/libchdb.so", "/usr/lib/libchdb.so")
}

// Version is the libchdb.so release scripts/fetch-chdb.sh fetches.
const Version = "26.5.3"

// Find returns the first candidate that exists.
func Find() (string, error) {
	for _, p := range Candidates() {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (looked in $%s, $CHDB_LIB_PATH, the cache and /usr/local/lib); run scripts/fetch-chdb.sh and set %s to the path it prints",
		ErrNoLibrary, LibEnv, LibEnv)
}

// Load opens the library once.
func Load() error {
	loadOnce.Do(func() {
		path, err := Find()
		if err != nil {
			loadErr = err
			return
		}
		var lib uintptr
		keepGoSignals(func() { lib, err = openLib(path) })
		if err != nil {
			loadErr = fmt.Errorf("loading %s: %w", path, err)
			return
		}
		purego.RegisterLibFunc(&chdbConnect, lib, "chdb_connect")
		purego.RegisterLibFunc(&chdbCloseConn, lib, "chdb_close_conn")
		purego.RegisterLibFunc(&chdbQuery, lib, "chdb_query")
		purego.RegisterLibFunc(&chdbDestroyResult, lib, "chdb_destroy_query_result")
		purego.RegisterLibFunc(&chdbResultBuffer, lib, "chdb_result_buffer")
		purego.RegisterLibFunc(&chdbResultLength, lib, "chdb_result_length")
		purego.RegisterLibFunc(&chdbResultError, lib, "chdb_result_error")
	})
	return loadErr
}

// Session is the process's one chDB session (chDB allows one at a time).
type Session struct {
	conn *connection
}

// Connect opens a session on the folder path with extra command-line
// settings (--name=value).
func Connect(path string, args ...string) (*Session, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	argv := append([]string{"clickhouse", "--path=" + path}, args...)
	cargv := make([]*byte, len(argv))
	for i, s := range argv {
		b := append([]byte(s), 0)
		cargv[i] = &b[0]
	}
	var conn *connection
	keepGoSignals(func() { conn = chdbConnect(len(cargv), cargv) })
	if conn == nil {
		return nil, fmt.Errorf("chdb: could not open a session on %s", path)
	}
	return &Session{conn: conn}, nil
}

// Query runs one statement and returns its output in format.
func (s *Session) Query(q, format string) ([]byte, error) {
	if s.conn == nil {
		return nil, errors.New("chdb: session closed")
	}
	r := chdbQuery(s.conn.internal, q, format)
	if r == nil {
		return nil, nil
	}
	defer chdbDestroyResult(r)
	if msg := chdbResultError(r); msg != "" {
		return nil, errors.New(msg)
	}
	n := chdbResultLength(r)
	buf := chdbResultBuffer(r)
	if buf == nil || n == 0 {
		return nil, nil
	}
	return append([]byte(nil), unsafe.Slice(buf, n)...), nil
}

// Close ends the session.
func (s *Session) Close() {
	if s.conn != nil {
		chdbCloseConn(s.conn)
		s.conn = nil
	}
}
