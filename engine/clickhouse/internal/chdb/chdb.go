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
	"strings"
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

	// Streaming (libchdb 3 and later; nil before).
	chdbStreamQuery  func(conn unsafe.Pointer, query string, format string) *result
	chdbStreamFetch  func(conn unsafe.Pointer, r *result) *result
	chdbStreamCancel func(conn unsafe.Pointer, r *result)
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
		if hasSym(lib, "chdb_stream_query") && hasSym(lib, "chdb_stream_fetch_result") && hasSym(lib, "chdb_stream_cancel_query") {
			purego.RegisterLibFunc(&chdbStreamQuery, lib, "chdb_stream_query")
			purego.RegisterLibFunc(&chdbStreamFetch, lib, "chdb_stream_fetch_result")
			purego.RegisterLibFunc(&chdbStreamCancel, lib, "chdb_stream_cancel_query")
		}
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

// CanStream reports whether the library streams a query's output.
func CanStream() bool { return chdbStreamQuery != nil }

// Stream is a query's output, a block at a time. While it is open, the
// session runs no other statement: libchdb answers one with an empty
// output and no error.
type Stream struct {
	s    *Session
	h    *result
	done bool
}

// Stream starts q, whose output comes a block at a time (Next), each
// block in format, whole (a format with a header repeats it).
func (s *Session) Stream(q, format string) (*Stream, error) {
	if s.conn == nil {
		return nil, errors.New("chdb: session closed")
	}
	if !CanStream() {
		return nil, errors.New("chdb: this libchdb does not stream")
	}
	h := chdbStreamQuery(s.conn.internal, q, format)
	if h == nil {
		return nil, errors.New("chdb: the query did not start")
	}
	if msg := chdbResultError(h); msg != "" {
		chdbDestroyResult(h)
		return nil, errors.New(msg)
	}
	return &Stream{s: s, h: h}, nil
}

// Next returns the next block of output (a copy), or nil at the end.
func (st *Stream) Next() ([]byte, error) {
	if st.done {
		return nil, nil
	}
	r := chdbStreamFetch(st.s.conn.internal, st.h)
	if r == nil {
		st.done = true
		return nil, nil
	}
	defer chdbDestroyResult(r)
	if msg := chdbResultError(r); msg != "" {
		st.done = true
		if strings.Contains(msg, "No active streaming query") {
			// libchdb's end of a stream whose last block held its header
			// alone (an empty result), rather than an empty block.
			return nil, nil
		}
		return nil, errors.New(msg)
	}
	n := chdbResultLength(r)
	if n == 0 {
		st.done = true
		return nil, nil
	}
	return append([]byte(nil), unsafe.Slice(chdbResultBuffer(r), n)...), nil
}

// Close ends the stream, cancelling the query if its output was not read
// to the end.
func (st *Stream) Close() {
	if st.h == nil {
		return
	}
	if !st.done {
		chdbStreamCancel(st.s.conn.internal, st.h)
	}
	chdbDestroyResult(st.h)
	st.h = nil
}

// Close ends the session.
func (s *Session) Close() {
	if s.conn != nil {
		chdbCloseConn(s.conn)
		s.conn = nil
	}
}
