package clickhouse

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/internal/scratch"
)

// The reader's rows reach embedded ClickHouse through spool files: each
// batch is written, as it comes, in RowBinary with the table's column
// types (every value in its type's binary form: nothing for ClickHouse to
// parse or guess), and an INSERT … SELECT reads each file with those
// types. A file holds spoolRows rows: ClickHouse inserts one while the
// next is read and written, so the reader and ClickHouse work at once.
// Memory holds a batch or two, whatever the input's size; each file is
// removed once inserted, the folder when the load ends, and one a killed
// run left behind by the next load (internal/scratch). chDB's C API takes
// rows only in a statement's text, which it splits at a newline: binary
// rows cannot travel there.

var _ engine.RowLoader = (*DB)(nil)

// spoolRows is how many rows a spool file holds: large enough that a
// MergeTree gets few parts (one per file and partition), small enough that
// most of the inserting overlaps the reading.
const spoolRows = 4 * input.BatchRows

// LoadPath says how the rows travel.
func (*DB) LoadPath() string {
	return fmt.Sprintf("RowBinary spool files of up to %d of the reader's typed rows, each read by INSERT … SELECT FROM file()", spoolRows)
}

// spoolPlaceholder stands for a spool file's path in recorded statements:
// plans do not depend on where it was.
const spoolPlaceholder = "<a spool file of the rows, RowBinary>"

// LoadRows appends the reader's rows to t, a spool file at a time, on q.
// A load that fails may have inserted some files' rows: t is the run's
// staging table or the table built beside the target, which the run drops.
func (d *DB) LoadRows(ctx context.Context, q engine.Querier, t engine.Table, cols []engine.Column, rows *input.Reader, rec func(string)) (int64, error) {
	dir, err := scratch.New("idem-chload-")
	if err != nil {
		return 0, fmt.Errorf("making the spool folder: %w", err)
	}
	defer os.RemoveAll(dir)
	if strings.ContainsAny(dir, "*?{}[]") { // file() would read the path as a pattern
		return 0, fmt.Errorf("the temporary folder %s has a character ClickHouse's file() reads as a pattern; set TMPDIR to another", filepath.Dir(dir))
	}
	if rec != nil {
		rec(insertFromFile(t, cols, spoolPlaceholder) + fmt.Sprintf(" -- for each %d rows", spoolRows))
	}
	s := &spooler{dir: dir, insert: func(path string) error {
		_, err := q.ExecContext(ctx, insertFromFile(t, cols, Dialect{}.String(path)))
		if err != nil {
			return fmt.Errorf("inserting the rows into %s: %w", Dialect{}.Table(t), err)
		}
		return nil
	}}
	n, err := s.run(ctx, cols, rows)
	if werr := s.wait(); err == nil {
		err = werr
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// insertFromFile is the INSERT reading a spool file (path, a literal)
// into t's cols, read with exactly their types: no value is converted.
// A first load's table is partitioned, and one insert may hold rows of
// any number of partitions.
func insertFromFile(t engine.Table, cols []engine.Column, path string) string {
	q := Dialect{}
	names := make([]string, len(cols))
	structure := make([]string, len(cols))
	for i, c := range cols {
		names[i] = q.Ident(c.Name)
		structure[i] = fmt.Sprintf("c%d %s", i+1, bareType(c.Type))
	}
	return "INSERT INTO " + q.Table(t) + " (" + strings.Join(names, ", ") + ") SELECT * FROM file(" + path +
		", 'RowBinary', " + q.String(strings.Join(structure, ", ")) + ") SETTINGS max_partitions_per_insert_block = 0"
}

// spooler writes the rows to spool files and has each inserted, one
// insert at a time, while the next file is written.
type spooler struct {
	dir     string
	insert  func(path string) error
	files   int
	pending chan error // the insert running, if any
	// The file being written (f nil: none), through w, and its rows.
	f    *os.File
	w    *bufio.Writer
	path string
	held int
}

// run writes every row, starting a file's insert as soon as it is full,
// and the last file's at the end; it returns how many rows it wrote.
func (s *spooler) run(ctx context.Context, cols []engine.Column, rows *input.Reader) (int64, error) {
	var (
		lc  []loadColumn
		buf []byte
		n   int64
	)
	defer func() {
		if s.f != nil {
			s.f.Close()
		}
	}()
	for {
		b, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if lc == nil {
			if lc, err = loadColumns(cols, b); err != nil {
				return n, err
			}
		}
		if buf, err = appendBatch(buf[:0], lc, b); err != nil {
			return n, err
		}
		if err := s.write(buf); err != nil {
			return n, err
		}
		n += int64(b.Len)
		if s.held += b.Len; s.held >= spoolRows {
			if err := s.flush(); err != nil {
				return n, err
			}
			s.held = 0
		}
	}
	if s.f != nil {
		return n, s.flush()
	}
	return n, nil
}

// write appends buf to the file being written, creating the next file
// when none is.
func (s *spooler) write(buf []byte) error {
	if s.f == nil {
		s.files++
		s.path = filepath.Join(s.dir, fmt.Sprintf("rows-%d.bin", s.files))
		f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("creating a spool file: %w", err)
		}
		s.f = f
		if s.w == nil {
			s.w = bufio.NewWriterSize(f, 1<<20)
		} else {
			s.w.Reset(f)
		}
	}
	if _, err := s.w.Write(buf); err != nil {
		return fmt.Errorf("writing a spool file: %w", err)
	}
	return nil
}

// flush closes the file being written and starts its insert, once the
// previous one is done.
func (s *spooler) flush() error {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	if err != nil {
		return fmt.Errorf("writing a spool file: %w", err)
	}
	if err := s.wait(); err != nil {
		return err
	}
	s.start(s.path)
	return nil
}

// start inserts the file at path, in the background.
func (s *spooler) start(path string) {
	done := make(chan error, 1)
	s.pending = done
	go func() {
		err := s.insert(path)
		os.Remove(path)
		done <- err
	}()
}

// wait waits for the insert running, if any, and returns its error.
func (s *spooler) wait() error {
	if s.pending == nil {
		return nil
	}
	err := <-s.pending
	s.pending = nil
	return err
}

// appendBatch appends a batch's rows in RowBinary.
func appendBatch(buf []byte, lc []loadColumn, b *input.Batch) ([]byte, error) {
	var err error
	for i := range b.Len {
		for j := range lc {
			if buf, err = lc[j].appendRowBinary(buf, b.Cols[j], i); err != nil {
				return buf, err
			}
		}
	}
	return buf, nil
}
