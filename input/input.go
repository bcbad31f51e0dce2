// Package input is idem's one reader of input files: it lists them, reads
// every value of every file once to decide each column's type, and then
// reads them again into typed batches that every engine loads as they are.
// No engine parses an input value: the rules here decide what each value
// is, the same way for every target (see Parse and the rules in csv.go,
// jsonl.go, time.go, number.go and infer.go).
package input

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Spec is what to read and how its columns are typed beforehand.
type Spec struct {
	// Paths are the files, each an exact path (never a pattern).
	Paths []string
	// Format is csv, jsonl or parquet.
	Format string
	// Types are the columns whose type is decided beforehand (a job's
	// columns:, an existing target's columns), by name: every value must
	// be one of that type, exactly, or the input is refused.
	Types map[string]Type
	// Limits are the target's (nil: none beyond the reader's).
	Limits *Limits
	// Locate names columns whose NULLs Scan remembers by file and line (a
	// key, the partition column), for messages.
	Locate []string
}

// Column is one input column as Scan decided it.
type Column struct {
	Name string
	Type Type
	// Fixed: the type was given (Spec.Types), not inferred.
	Fixed bool
	// NullAt locates its first empty values (up to 3), for the columns in
	// Spec.Locate.
	NullAt []Location
	// For an inferred column: the first value that is only text (none of
	// the other kinds; nil for none), and how many values are dates or
	// timestamps. A column that must be a date names its odd value so.
	FirstText  *ValueAt
	TimeValues int64
}

// ValueAt is one value of the input and where it is.
type ValueAt struct {
	File  string
	Line  int
	Value string
}

// Location is one input row: its file and line (1-based, counting a CSV
// header), and the row as written.
type Location struct {
	File string
	Line int
	Row  string
}

func (l Location) String() string { return fmt.Sprintf("%s line %d: %s", l.File, l.Line, l.Row) }

// Input is the input as Scan read it.
type Input struct {
	Columns []Column
	// Rows is how many rows the files hold.
	Rows int64
	// Fingerprint is the hash of the files' bytes as Scan read them
	// (Fingerprint's), for a caller to compare with the one its run id
	// took: a file that changed in between was not the input named.
	Fingerprint string
	spec        Spec
	files       []fileState
}

// fileState is what Scan learned of one file, which Read checks again.
type fileState struct {
	path  string
	size  int64
	mtime time.Time
	rows  int64
	delim byte
	cols  []int // CSV: the input column of each of the file's fields
	// half is where Scan split the file in two (0: it did not), with the
	// lines and rows before it: Read reads the halves at once too.
	half      int64
	halfLines int
	halfRows  int64
}

// ErrChanged marks an input file that changed between the two readings of
// one run: its rows cannot be trusted to be the ones Scan checked.
var ErrChanged = errors.New("an input file changed while it was read")

// Scan reads every file once: their structure, every value of every column
// (a type given is checked on each value; the others are decided over all
// of them), and the limits of the target's types.
func Scan(ctx context.Context, spec Spec) (*Input, error) {
	in := &Input{spec: spec}
	if len(spec.Paths) == 0 {
		return nil, errors.New("no input files")
	}
	var err error
	switch spec.Format {
	case "csv":
		err = in.scanCSV(ctx)
	case "jsonl":
		err = in.scanJSONL(ctx)
	case "parquet":
		err = in.scanParquet(ctx)
	default:
		err = fmt.Errorf("%q is not an input format (csv, jsonl, parquet)", spec.Format)
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// Open opens an input file for reading its text: a .gz file is
// decompressed, and must end whole (a gzip member with its checksum and
// length), or reading it fails.
func Open(path string) (io.ReadCloser, error) {
	rc, _, err := openHashed(path, nil)
	return rc, err
}

// hashedFile is an input file whose bytes, as stored, are hashed as they
// are read (compressed ones before decompression).
type hashedFile struct {
	io.Reader
	f   *os.File
	raw io.Reader // the file's bytes, through the hash
	z   *gzFile
}

func (h *hashedFile) Close() error {
	if h.z != nil {
		h.z.Reader.Close()
	}
	return h.f.Close()
}

// finish reads what the reader left of the file, so the hash covers every
// byte.
func (h *hashedFile) finish() error {
	_, err := io.Copy(io.Discard, h.raw)
	return err
}

// openHashed opens path for its text, its stored bytes written to hash
// (nil: not hashed) as they are read.
func openHashed(path string, hash io.Writer) (*hashedFile, io.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	var raw io.Reader = f
	if hash != nil {
		raw = io.TeeReader(f, hash)
	}
	h := &hashedFile{Reader: raw, f: f, raw: raw}
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return h, raw, nil
	}
	z, err := newGzip(raw)
	if err != nil {
		f.Close()
		return nil, nil, &Error{File: path, Msg: "is not gzip-compressed, as its name says: " + err.Error(), Err: err}
	}
	h.Reader, h.z = z, z
	return h, raw, nil
}

// stat records a file's size and modification time.
func stat(path string) (fileState, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileState{}, err
	}
	return fileState{path: path, size: st.Size(), mtime: st.ModTime()}, nil
}

// unchanged checks that a file is as Scan found it.
func (fs fileState) unchanged() error {
	now, err := stat(fs.path)
	if err != nil {
		return err
	}
	if now.size != fs.size || !now.mtime.Equal(fs.mtime) {
		return fmt.Errorf("%w: %s (size or modification time); run again", ErrChanged, fs.path)
	}
	return nil
}

// column returns the index of the column named name (compared without
// case, as engines fold names), adding it when absent.
func (in *Input) column(name string) (int, bool) {
	for i, c := range in.Columns {
		if strings.EqualFold(c.Name, name) {
			return i, true
		}
	}
	return -1, false
}

// addColumn adds a column, typed by Spec.Types when it names it.
func (in *Input) addColumn(name string) int {
	c := Column{Name: name}
	for n, t := range in.spec.Types {
		if strings.EqualFold(n, name) {
			c.Type, c.Fixed = t, true
		}
	}
	in.Columns = append(in.Columns, c)
	return len(in.Columns) - 1
}

// locating reports whether NULLs of column i are to be located.
func (in *Input) locating(i int) bool {
	for _, n := range in.spec.Locate {
		if strings.EqualFold(n, in.Columns[i].Name) {
			return true
		}
	}
	return false
}

// checkName refuses a column name that engines cannot keep alike.
func checkName(file string, line int, name string) error {
	bad := func(format string, args ...any) error {
		return &NameError{File: file, Line: line, Msg: fmt.Sprintf("column name %q ", abbreviate(name)) + fmt.Sprintf(format, args...) + ", so idem refuses it on every engine; rename the column in the file"}
	}
	switch {
	case strings.TrimSpace(name) == "":
		return &Error{File: file, Line: line, Msg: "a column has an empty name: every column needs one"}
	case len(name) > MaxNameBytes:
		return &NameError{File: file, Line: line, Msg: fmt.Sprintf("column name %q is %d bytes long: PostgreSQL cuts names at %d bytes, so idem refuses longer ones on every engine; rename the column in the file", abbreviate(name), len(name), MaxNameBytes)}
	case !utf8.ValidString(name):
		return bad("is not valid UTF-8: no engine keeps it as written")
	case strings.ContainsRune(name, 0):
		return bad("holds a NUL: PostgreSQL keeps none in a name")
	case strings.TrimRight(name, " \t") != name:
		return bad("ends with a blank: MariaDB and MySQL refuse such a name")
	}
	for _, r := range name {
		if r > 0xffff {
			return bad("holds %q, a character beyond U+FFFF: MariaDB and MySQL keep none in a name", r)
		}
	}
	return nil
}

// decide types the columns Scan did not find typed, and checks the limits
// of the target's types.
func (in *Input) decide(guesses []*guess) error {
	for i := range in.Columns {
		c := &in.Columns[i]
		g := guesses[i]
		if !c.Fixed {
			t, err := g.decide(c.Name)
			if err != nil {
				return err
			}
			c.Type = t
			if g.text.line > 0 {
				c.FirstText = &ValueAt{File: g.text.file, Line: g.text.line, Value: g.text.value}
			}
			c.TimeValues = g.count[fDate] + g.count[fStamp] + g.count[fZoned]
		}
		if err := g.checkLimits(c.Name, c.Type, in.spec.Limits); err != nil {
			return err
		}
	}
	return nil
}

// Reader yields the input's rows in batches (Input.Read).
type Reader struct {
	ctx     context.Context
	batches chan batchOrErr
	free    chan *Batch // batches released, to be filled again
	cancel  context.CancelFunc
	done    chan struct{}
	err     error
}

type batchOrErr struct {
	b   *Batch
	err error
}

// Read reads the files again and yields their rows, typed as Scan decided,
// a batch at a time; the next batch is read while the caller loads one.
// Close it when done.
func (in *Input) Read(ctx context.Context) *Reader {
	return startReader(ctx, in.newBatch, func(ctx context.Context, out *sink) error {
		switch in.spec.Format {
		case "csv":
			return in.readCSV(ctx, out)
		case "jsonl":
			return in.readJSONL(ctx, out)
		case "parquet":
			return in.readParquet(ctx, out)
		}
		return nil
	})
}

// startReader runs read in its own goroutine, its batches handed over one
// at a time: the next batch is read while the caller loads one. Batches
// the caller releases are filled again (fresh makes the others).
func startReader(ctx context.Context, fresh func() *Batch, read func(ctx context.Context, out *sink) error) *Reader {
	ctx, cancel := context.WithCancel(ctx)
	r := &Reader{ctx: ctx, batches: make(chan batchOrErr, 1), free: make(chan *Batch, maxFilling), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer close(r.batches)
		if err := read(ctx, &sink{ctx: ctx, out: r.batches, free: r.free, fresh: fresh}); err != nil {
			select {
			case r.batches <- batchOrErr{err: err}:
			case <-ctx.Done():
			}
		}
	}()
	return r
}

// maxFilling is how many batches a read fills at once (a file's two
// halves): no more released ones are kept.
const maxFilling = 2

// sink is where a read puts its rows: batch is an empty batch to fill
// (one the caller released, when there is one), send hands a full one over.
type sink struct {
	ctx   context.Context
	out   chan<- batchOrErr
	free  <-chan *Batch
	fresh func() *Batch
}

// batch is an empty batch and the arena its text goes in.
func (s *sink) batch() (*Batch, *arena) {
	select {
	case b := <-s.free:
		b.reset()
		return b, b.ar
	default:
		b := s.fresh()
		return b, b.ar
	}
}

// send hands b to the Reader's caller, waiting for it to take the one
// before.
func (s *sink) send(b *Batch) error {
	select {
	case s.out <- batchOrErr{b: b}:
		return nil
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// Next returns the next batch, or io.EOF after the last.
func (r *Reader) Next() (*Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	x, ok := <-r.batches
	switch {
	case !ok && r.ctx.Err() != nil:
		r.err = r.ctx.Err() // a cancelled read is not a whole input
	case !ok:
		r.err = io.EOF
	case x.err != nil:
		r.err = x.err
	default:
		return x.b, nil
	}
	return nil, r.err
}

// Release gives b back to be filled again: the caller holds none of its
// values any more (its strings are overwritten). Batches not released are
// left to the garbage collector; releasing keeps the rows in memory to the
// few batches being read and loaded, and the heap from growing with
// batches already loaded.
func (r *Reader) Release(b *Batch) {
	select {
	case r.free <- b:
	default: // as many wait to be filled as can be at once
	}
}

// Close stops reading and waits for the reader to end. It keeps no batch:
// the released ones are garbage once the caller holds none.
func (r *Reader) Close() {
	r.cancel()
	for range r.batches {
	}
	<-r.done
	for len(r.free) > 0 {
		<-r.free
	}
}

// newBatch makes an empty batch for the input's columns.
func (in *Input) newBatch() *Batch {
	b := &Batch{Cols: make([]*Vector, len(in.Columns)), ar: &arena{}}
	for i, c := range in.Columns {
		b.Cols[i] = newVector(c.Type, BatchRows)
	}
	return b
}

// filePart is one of the halves Scan split a file in: its bytes, the lines
// before it, and the rows Scan counted in it.
type filePart struct {
	start, end int64
	lines      int
	rows       int64
}

// readHalves reads a file Scan split in two (fs.half) with both halves at
// once, read(part) sending each one's rows in batches of its own: the
// rows are the file's in another order, which no step depends on (every
// order in SQL is by content). Each half reads to its end or its error,
// and the first half's error is the one returned, as one pass would meet
// it first.
func readHalves(ctx context.Context, fs *fileState, read func(context.Context, filePart) error) error {
	parts := []filePart{{0, fs.half, 0, fs.halfRows}, {fs.half, fs.size, fs.halfLines, fs.rows - fs.halfRows}}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { errs[i] = read(ctx, p) })
	}
	wg.Wait()
	return cmp.Or(errs...)
}

// partRows checks a half held the rows Scan counted in it.
func partRows(path string, p filePart, rows int64) error {
	if rows != p.rows {
		return fmt.Errorf("%w: %s has %d rows from offset %d, not the %d it had", ErrChanged, path, rows, p.start, p.rows)
	}
	return nil
}
