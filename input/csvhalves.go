package input

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
)

// csvPart is one half of a CSV file, as its own scan found it.
type csvPart struct {
	start, end int64
	in         *Input
	guesses    []*guess
	lines      int // lines read: the next half starts after them
	err        error
}

// scanCSVHalves scans a large file's records in two halves at once (split
// at a record's end), joining their findings into in and guesses; ok
// false (and nothing changed) when the file is not split, or a half
// refused something: one pass then reads it and words the refusal.
func (in *Input) scanCSVHalves(ctx context.Context, path string, delim byte, guesses []*guess, fs *fileState) (sum string, ok bool, err error) {
	if fs.size < minHalves || runtime.GOMAXPROCS(0) < 2 || strings.HasSuffix(strings.ToLower(path), ".gz") {
		return "", false, nil
	}
	mid, err := recordAfter(path, fs.size/2)
	if err != nil || mid >= fs.size {
		return "", false, err
	}
	hashed := hashFiles([]string{path})
	parts := []*csvPart{{start: 0, end: mid}, {start: mid, end: fs.size}}
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Go(func() { p.err = in.scanCSVPart(ctx, path, delim, fs.cols, p) })
	}
	wg.Wait()
	sums, err := hashed()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil || parts[0].err != nil || parts[1].err != nil {
		return "", false, err
	}
	fs.half, fs.halfLines, fs.halfRows = mid, parts[0].lines, parts[0].in.Rows
	off := 0
	for _, p := range parts {
		for ci := range in.Columns {
			guesses[ci].join(p.guesses[ci], off)
			for _, l := range p.in.Columns[ci].NullAt {
				l.Line += off
				in.noteNullAt(ci, l)
			}
		}
		off += p.lines
		in.Rows += p.in.Rows
		fs.rows += p.in.Rows
	}
	return sums[0], true, nil
}

// recordAfter is the offset just past the first line feed outside quotes
// at or after at (the file's size when there is none). Outside quotes
// the file has read an even number of them: a field is quoted whole, its
// quotes doubled, and a quote anywhere else is refused (by the half
// before, which then sends the file back to one pass).
func recordAfter(path string, at int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	quotes, off := 0, int64(0)
	for off < at {
		b, err := r.Peek(int(min(at-off, 1<<20)))
		quotes += bytes.Count(b, []byte{'"'})
		off += int64(len(b))
		r.Discard(len(b))
		if err != nil {
			return off, nil
		}
	}
	for {
		c, err := r.ReadByte()
		if err != nil {
			return off, nil // the end of the file, or a fault the scan will meet
		}
		off++
		switch {
		case c == '"':
			quotes++
		case c == '\n' && quotes%2 == 0:
			return off, nil
		}
	}
}

// scanCSVPart scans the records of one half: the first holds the header,
// read again, the second starts at a record.
func (in *Input) scanCSVPart(ctx context.Context, path string, delim byte, cols []int, p *csvPart) error {
	p.in = &Input{spec: in.spec, Columns: make([]Column, len(in.Columns))}
	for i, c := range in.Columns {
		p.in.Columns[i] = Column{Name: c.Name, Type: c.Type, Fixed: c.Fixed}
		p.guesses = append(p.guesses, &guess{})
	}
	f, c, err := openCSVPart(path, p.start, p.end, delim, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var fs fileState
	err = p.in.scanRecords(ctx, path, c, cols, p.guesses, &fs)
	p.lines = c.line - 1
	return err
}

// openCSVPart opens the records of path from start to end; the first part
// (start 0) skips the header. Lines are numbered from lines+1, the lines
// before the part.
func openCSVPart(path string, start, end int64, delim byte, lines int) (*os.File, *csvReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	c := newCSVReader(io.NewSectionReader(f, start, end-start), delim)
	c.line += lines
	if start == 0 {
		if err := c.skipBOM(); err != nil {
			f.Close()
			return nil, nil, err
		}
		if _, err := c.next(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return f, c, nil
}

// readCSVPart reads one half's records into batches it sends.
func (in *Input) readCSVPart(ctx context.Context, fs *fileState, p filePart, out *sink) error {
	f, c, err := openCSVPart(fs.path, p.start, p.end, fs.delim, p.lines)
	if err != nil {
		return readError(fs.path, err)
	}
	defer f.Close()
	b, ar := out.batch()
	rows := int64(0)
	for {
		if rows&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var err error
		if b, ar, err = in.readRecord(fs, c, b, ar, out); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
		rows++
	}
	if err := partRows(fs.path, p, rows); err != nil {
		return err
	}
	if b.Len > 0 {
		return out.send(b)
	}
	return nil
}
