package filereader

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/idemdata/idem/engine"
	duckdbengine "github.com/idemdata/idem/engine/duckdb"
)

// A warm-up does, while the target opens (ClickHouse's embedded library
// takes a quarter of a second to load), the reader's first work on the
// input a run is about to load: describe the files' columns from the
// sniffer's sample and sniff a CSV file's dialect. DescribeSample of the
// same input waits for it and takes its answers, and Input.CSV its sniff,
// when the files are as they were (same size and modification time).
// Anything else is worked out as without a warm-up: a warm-up changes when
// the work is done, never what it answers.
type warmUp struct {
	key    string // the query of the input as given, before Reader.known
	done   chan struct{}
	cancel context.CancelFunc
	// Set before done is closed, and only when every step succeeded.
	files []fileStamp
	sel   string // the query described
	read  []engine.Column
	sniff *duckdbengine.CSVSniff
	delim string // sniff's
}

type fileStamp struct {
	path  string
	size  int64
	mtime time.Time
}

var warm struct {
	mu sync.Mutex
	w  *warmUp
}

// Warm starts a warm-up for in on an in-memory DuckDB of its own (no
// scratch folder: nothing is left behind if the process ends before it
// does), and returns what ends it: stop cancels it without waiting (a
// DuckDB sniff runs to its end regardless), so a run that skips the load
// is not held up by it. One warm-up is current at a time; Warm while one
// is does nothing.
func Warm(in engine.FileInput) (stop func()) {
	key, err := duckdbengine.Dialect{}.SelectFiles(in)
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &warmUp{key: key, done: make(chan struct{}), cancel: cancel}
	warm.mu.Lock()
	if warm.w != nil {
		warm.mu.Unlock()
		cancel()
		return func() {}
	}
	warm.w = w
	warm.mu.Unlock()
	go func() {
		defer close(w.done)
		w.run(ctx, in)
	}()
	return func() {
		w.cancel()
		warm.mu.Lock()
		if warm.w == w {
			warm.w = nil
		}
		warm.mu.Unlock()
	}
}

// run does the warm-up's work; an error leaves the answers unset.
func (w *warmUp) run(ctx context.Context, in engine.FileInput) {
	files, ok := stamp(in.Paths)
	if !ok {
		return
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	for _, q := range duckdbengine.ReaderSettings("") { // a sample does not spill
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return
		}
	}
	rd := &Reader{conn: conn}
	in, _ = rd.known(ctx, in)
	sel, err := duckdbengine.Dialect{}.SelectFiles(in)
	if err != nil {
		return
	}
	read, err := duckdbengine.DescribeFiles(ctx, conn, in, sel)
	if err != nil {
		return
	}
	if in.Format == "csv" && len(in.Paths) > 0 {
		if s, err := duckdbengine.SniffCSV(ctx, conn, in.Paths[0], in.Delim); err == nil {
			w.sniff, w.delim = &s, in.Delim
		}
	}
	w.files, w.sel, w.read = files, sel, read
}

// warmFor is the current warm-up of in (before Reader.known), once it is
// done, or nil.
func warmFor(in engine.FileInput) *warmUp {
	warm.mu.Lock()
	w := warm.w
	warm.mu.Unlock()
	if w == nil {
		return nil
	}
	if key, err := (duckdbengine.Dialect{}).SelectFiles(in); err != nil || key != w.key {
		return nil
	}
	<-w.done
	return w
}

// stamp reads each file's size and modification time.
func stamp(paths []string) ([]fileStamp, bool) {
	fs := make([]fileStamp, len(paths))
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, false
		}
		fs[i] = fileStamp{path: p, size: st.Size(), mtime: st.ModTime()}
	}
	return fs, true
}

// described is the warm-up's description of sel, if it has one and the
// files are unchanged since.
func (w *warmUp) described(sel string) ([]engine.Column, bool) {
	if w == nil || w.read == nil || w.sel != sel || !w.unchanged() {
		return nil, false
	}
	return slices.Clone(w.read), true
}

// sniffed is the warm-up's sniff of path with delim, if it has one and
// the files are unchanged since.
func (w *warmUp) sniffed(path, delim string) (duckdbengine.CSVSniff, bool) {
	if w == nil || w.sniff == nil || w.delim != delim || len(w.files) == 0 || w.files[0].path != path || !w.unchanged() {
		return duckdbengine.CSVSniff{}, false
	}
	return *w.sniff, true
}

func (w *warmUp) unchanged() bool {
	paths := make([]string, len(w.files))
	for i, f := range w.files {
		paths[i] = f.path
	}
	now, ok := stamp(paths)
	if !ok {
		return false
	}
	for i := range now {
		if now[i].size != w.files[i].size || !now[i].mtime.Equal(w.files[i].mtime) {
			return false
		}
	}
	return true
}
