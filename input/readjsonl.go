package input

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
)

// jsonKeys maps a JSON Lines input's keys to its columns.
type jsonKeys struct {
	exact  map[string]int
	folded map[string]keyAt // lower case: the first spelling, where
	order  keyOrder
}

// keyOrder is the columns of the previous line's keys, by position: lines
// mostly give the same keys in the same order.
type keyOrder []int

// find returns the column of the key at position pos of a line, looking
// first where the previous line had it (a column's Name is its key).
func (o *keyOrder) find(cols []Column, exact map[string]int, pos int, key []byte) (int, bool) {
	if pos < len(*o) {
		if ci := (*o)[pos]; cols[ci].Name == string(key) {
			return ci, true
		}
	}
	ci, ok := exact[string(key)]
	if ok {
		o.set(pos, ci)
	}
	return ci, ok
}

func (o *keyOrder) set(pos, ci int) {
	if pos < len(*o) {
		(*o)[pos] = ci
	} else {
		*o = append(*o, ci)
	}
}

type keyAt struct {
	name string
	file string
	line int
}

// jsonlScan is what scanJSONL learns across an input's files.
type jsonlScan struct {
	keys    jsonKeys
	guesses []*guess
	set     []bool // per column: whether the current line gave it
	// For joining the halves of a file (scanJSONLHalves): the line each
	// column was first given on, and the first lines read (up to 3, when
	// NULLs are located).
	firstLine []int
	head      []Location
}

func newJSONLScan() *jsonlScan {
	return &jsonlScan{keys: jsonKeys{exact: map[string]int{}, folded: map[string]keyAt{}}}
}

// scanJSONL is Scan for JSON Lines files.
func (in *Input) scanJSONL(ctx context.Context) error {
	s := newJSONLScan()
	var sums []string
	for _, path := range in.spec.Paths {
		fs, err := stat(path)
		if err != nil {
			return err
		}
		sum, ok, err := in.scanJSONLHalves(ctx, s, path, &fs)
		if err != nil {
			return err
		}
		if ok {
			sums = append(sums, sum)
			in.files = append(in.files, fs)
			continue
		}
		h := sha256.New()
		f, _, err := openHashed(path, h)
		if err != nil {
			return err
		}
		err = in.scanJSONLFile(ctx, s, path, &fs, newJSONLReader(f))
		if err == nil {
			if err = f.finish(); err != nil {
				err = readError(path, err)
			}
		}
		f.Close()
		if err != nil {
			return err
		}
		sums = append(sums, hex.EncodeToString(h.Sum(nil)))
		in.files = append(in.files, fs)
	}
	in.Fingerprint = combine(sums)
	return in.decide(s.guesses)
}

// scanJSONLFile scans every line of one file, counting its rows in fs.
func (in *Input) scanJSONLFile(ctx context.Context, s *jsonlScan, path string, fs *fileState, j *jsonlReader) error {
	lim := in.spec.Limits
	for n := 0; ; n++ {
		if n&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := j.nextLine()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return jsonError(path, j.line, err)
		}
		fs.rows++
		in.Rows++
		if len(s.head) < 3 && len(in.spec.Locate) > 0 {
			s.head = append(s.head, Location{File: path, Line: j.line, Row: strings.TrimSpace(string(line))})
		}
		clear(s.set)
		j.p.out = j.p.out[:0]
		err = j.p.object(line, func(key []byte, v field) error {
			return in.scanJSONLValue(s, lim, path, j.line, line, j.p.keyAt(), key, v)
		})
		if err != nil {
			return jsonError(path, j.line, err)
		}
		for ci, ok := range s.set {
			if !ok {
				in.noteNull(ci, path, j.line, line)
			}
		}
	}
}

// scanJSONLValue checks, or adds to its column's guess, the value of key
// on line n.
func (in *Input) scanJSONLValue(s *jsonlScan, lim *Limits, path string, n int, line []byte, pos int, key []byte, v field) error {
	ci, ok := s.keys.order.find(in.Columns, s.keys.exact, pos, key)
	if !ok {
		var err error
		if ci, err = in.addJSONLKey(s, path, n, key); err != nil {
			return err
		}
		s.keys.order.set(pos, ci)
	}
	s.set[ci] = true
	col := &in.Columns[ci]
	if col.Fixed {
		if err := check(v, col.Type, lim); err != nil {
			return at(err, path, n, col.Name, v.b)
		}
	} else {
		s.guesses[ci].add(v, path, n)
	}
	if v.json == jsonNull {
		in.noteNull(ci, path, n, line)
	}
	return nil
}

// addJSONLKey adds a column for a key first seen on line n, refusing one
// that differs only in case from a key seen before.
func (in *Input) addJSONLKey(s *jsonlScan, path string, n int, key []byte) (int, error) {
	name := string(key)
	low := strings.ToLower(name)
	if prev, clash := s.keys.folded[low]; clash {
		return 0, &Error{File: path, Line: n, Msg: fmt.Sprintf(
			"key %q differs only in case from key %q (%s line %d): engines that fold names would load both into one column; spell each key one way",
			name, prev.name, baseName(prev.file), prev.line)}
	}
	if err := checkName(path, n, name); err != nil {
		return 0, err
	}
	s.keys.folded[low] = keyAt{name: name, file: path, line: n}
	ci := in.addColumn(name)
	s.keys.exact[name] = ci
	s.guesses = append(s.guesses, &guess{})
	s.set = append(s.set, false)
	s.firstLine = append(s.firstLine, n)
	return ci, nil
}

// noteNull remembers where a located column is NULL.
func (in *Input) noteNull(ci int, path string, line int, row []byte) {
	col := &in.Columns[ci]
	if len(col.NullAt) < 3 && in.locating(ci) {
		col.NullAt = append(col.NullAt, Location{File: path, Line: line, Row: strings.TrimSpace(string(row))})
	}
}

// noteNullAt remembers a location where a located column is NULL.
func (in *Input) noteNullAt(ci int, l Location) {
	if col := &in.Columns[ci]; len(col.NullAt) < 3 && in.locating(ci) {
		col.NullAt = append(col.NullAt, l)
	}
}

// jsonError locates a fault of a JSON Lines line.
func jsonError(path string, line int, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var ne *NameError
	if errors.As(err, &ne) {
		return err
	}
	var je *errJSON
	if errors.As(err, &je) {
		return &Error{File: path, Line: line, Msg: je.msg}
	}
	return readError(path, err)
}

// jsonlRead is readJSONL's state across an input's files.
type jsonlRead struct {
	exact map[string]int // a key's column
	order keyOrder
	set   []bool // per column: whether the current line gave it
	b     *Batch
	ar    *arena
}

// readJSONL is Read for JSON Lines files.
func (in *Input) readJSONL(ctx context.Context, out *sink) error {
	r := in.newJSONLRead(out)
	for i := range in.files {
		fs := &in.files[i]
		if err := fs.unchanged(); err != nil {
			return err
		}
		if fs.half > 0 && runtime.GOMAXPROCS(0) >= 2 {
			err := readHalves(ctx, fs, func(ctx context.Context, p filePart) error {
				return in.readJSONLPart(ctx, fs, p, out)
			})
			if err != nil {
				return err
			}
			continue
		}
		f, err := Open(fs.path)
		if err != nil {
			return err
		}
		rows, err := in.readJSONLFile(ctx, r, fs.path, newJSONLReader(f), out)
		f.Close()
		if err != nil {
			return err
		}
		if rows != fs.rows {
			return fmt.Errorf("%w: %s has %d rows, not the %d it had", ErrChanged, fs.path, rows, fs.rows)
		}
	}
	if r.b.Len > 0 {
		return out.send(r.b)
	}
	return nil
}

// newJSONLRead is a reading's state, its first batch empty.
func (in *Input) newJSONLRead(out *sink) *jsonlRead {
	r := &jsonlRead{exact: map[string]int{}, set: make([]bool, len(in.Columns))}
	r.b, r.ar = out.batch()
	for i, c := range in.Columns {
		r.exact[c.Name] = i
	}
	return r
}

// readJSONLFile reads every line of one file into r's batches, sending
// each full one; it returns the file's rows.
func (in *Input) readJSONLFile(ctx context.Context, r *jsonlRead, path string, j *jsonlReader, out *sink) (int64, error) {
	rows := int64(0)
	for {
		if rows&0xffff == 0 && ctx.Err() != nil {
			return rows, ctx.Err()
		}
		line, err := j.nextLine()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, jsonError(path, j.line, err)
		}
		if err := in.readJSONLLine(r, path, j, line); err != nil {
			return rows, err
		}
		rows++
		r.b.Len++
		if r.b.Len == BatchRows {
			if err := out.send(r.b); err != nil {
				return rows, err
			}
			r.b, r.ar = out.batch()
		}
	}
}

// readJSONLLine appends one line's values to r's batch, NULL for a key
// the line lacks.
func (in *Input) readJSONLLine(r *jsonlRead, path string, j *jsonlReader, line []byte) error {
	lim := in.spec.Limits
	b, ar := r.b, r.ar
	clear(r.set)
	j.p.out = j.p.out[:0]
	err := j.p.object(line, func(key []byte, v field) error {
		ci, ok := r.order.find(in.Columns, r.exact, j.p.keyAt(), key)
		if !ok {
			return fmt.Errorf("%w: %s line %d has key %q", ErrChanged, path, j.line, key)
		}
		r.set[ci] = true
		if err := put(b.Cols[ci], v, ar, lim); err != nil {
			return at(err, path, j.line, in.Columns[ci].Name, v.b)
		}
		return nil
	})
	if err != nil {
		return jsonError(path, j.line, err)
	}
	for ci, ok := range r.set {
		if !ok {
			b.Cols[ci].appendNull()
		}
	}
	return nil
}
