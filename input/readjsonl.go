package input

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonKeys maps a JSON Lines input's keys to its columns.
type jsonKeys struct {
	exact  map[string]int
	folded map[string]keyAt // lower case: the first spelling, where
}

type keyAt struct {
	name string
	file string
	line int
}

// scanJSONL is Scan for JSON Lines files.
func (in *Input) scanJSONL(ctx context.Context) error {
	keys := jsonKeys{exact: map[string]int{}, folded: map[string]keyAt{}}
	var guesses []*guess
	lim := in.spec.Limits
	var set []bool
	var sums []string
	for _, path := range in.spec.Paths {
		fs, err := stat(path)
		if err != nil {
			return err
		}
		h := sha256.New()
		f, _, err := openHashed(path, h)
		if err != nil {
			return err
		}
		j := newJSONLReader(f)
		err = func() error {
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
				clear(set)
				j.p.out = j.p.out[:0]
				err = j.p.object(line, func(key []byte, v field) error {
					ci, ok := keys.exact[string(key)]
					if !ok {
						name := string(key)
						low := strings.ToLower(name)
						if prev, clash := keys.folded[low]; clash {
							return &Error{File: path, Line: j.line, Msg: fmt.Sprintf(
								"key %q differs only in case from key %q (%s line %d): engines that fold names would load both into one column; spell each key one way",
								name, prev.name, baseName(prev.file), prev.line)}
						}
						if err := checkName(path, j.line, name); err != nil {
							return err
						}
						keys.folded[low] = keyAt{name: name, file: path, line: j.line}
						ci = in.addColumn(name)
						keys.exact[name] = ci
						guesses = append(guesses, &guess{})
						set = append(set, false)
					}
					set[ci] = true
					col := &in.Columns[ci]
					if col.Fixed {
						if err := check(v, col.Type, lim); err != nil {
							return at(err, path, j.line, col.Name, v.b)
						}
					} else {
						guesses[ci].add(v, path, j.line)
					}
					if v.json == jsonNull {
						in.noteNull(ci, path, j.line, line)
					}
					return nil
				})
				if err != nil {
					return jsonError(path, j.line, err)
				}
				for ci, ok := range set {
					if !ok {
						in.noteNull(ci, path, j.line, line)
					}
				}
			}
		}()
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
	return in.decide(guesses)
}

// noteNull remembers where a located column is NULL.
func (in *Input) noteNull(ci int, path string, line int, row []byte) {
	col := &in.Columns[ci]
	if len(col.NullAt) < 3 && in.locating(ci) {
		col.NullAt = append(col.NullAt, Location{File: path, Line: line, Row: strings.TrimSpace(string(row))})
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

// readJSONL is Read for JSON Lines files.
func (in *Input) readJSONL(ctx context.Context, send func(*Batch) error) error {
	exact := map[string]int{}
	for i, c := range in.Columns {
		exact[c.Name] = i
	}
	lim := in.spec.Limits
	b := in.newBatch()
	ar := &arena{}
	set := make([]bool, len(in.Columns))
	for _, fs := range in.files {
		if err := fs.unchanged(); err != nil {
			return err
		}
		f, err := Open(fs.path)
		if err != nil {
			return err
		}
		j := newJSONLReader(f)
		rows := int64(0)
		err = func() error {
			for {
				line, err := j.nextLine()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return jsonError(fs.path, j.line, err)
				}
				clear(set)
				j.p.out = j.p.out[:0]
				err = j.p.object(line, func(key []byte, v field) error {
					ci, ok := exact[string(key)]
					if !ok {
						return fmt.Errorf("%w: %s line %d has key %q", ErrChanged, fs.path, j.line, key)
					}
					set[ci] = true
					if err := put(b.Cols[ci], v, ar, lim); err != nil {
						return at(err, fs.path, j.line, in.Columns[ci].Name, v.b)
					}
					return nil
				})
				if err != nil {
					return jsonError(fs.path, j.line, err)
				}
				for ci, ok := range set {
					if !ok {
						b.Cols[ci].appendNull()
					}
				}
				rows++
				b.Len++
				if b.Len == BatchRows {
					if err := send(b); err != nil {
						return err
					}
					b, ar = in.newBatch(), &arena{}
				}
			}
		}()
		f.Close()
		if err != nil {
			return err
		}
		if rows != fs.rows {
			return fmt.Errorf("%w: %s has %d rows, not the %d it had", ErrChanged, fs.path, rows, fs.rows)
		}
	}
	if b.Len > 0 {
		return send(b)
	}
	return nil
}
