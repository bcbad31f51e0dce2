package input

import (
	"bufio"
	"context"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
)

// minHalves is the smallest JSON Lines file whose first pass is split in
// two halves at a line end, one per core; the halves' findings joined are
// what one pass over the file finds. A half that refuses anything sends
// the file back to one pass, which words the refusal as always.
var minHalves int64 = 8 << 20

// jsonlPart is one half of a file, as its own scan found it.
type jsonlPart struct {
	start, end int64
	in         *Input
	s          *jsonlScan
	lines      int // lines read: the next half starts after them
	err        error
}

// scanJSONLHalves scans a large file in two halves at once, joining their
// findings into in and s; ok false (and nothing changed) when the file is
// not split, or a half refused something.
func (in *Input) scanJSONLHalves(ctx context.Context, s *jsonlScan, path string, fs *fileState) (sum string, ok bool, err error) {
	if fs.size < minHalves || runtime.GOMAXPROCS(0) < 2 || strings.HasSuffix(strings.ToLower(path), ".gz") {
		return "", false, nil
	}
	mid, err := lineAfter(path, fs.size/2)
	if err != nil || mid >= fs.size {
		return "", false, err
	}
	hashed := hashFiles([]string{path})
	parts := []*jsonlPart{{start: 0, end: mid}, {start: mid, end: fs.size}}
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Go(func() { p.err = in.scanJSONLPart(ctx, path, p) })
	}
	wg.Wait()
	sums, err := hashed()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return "", false, err
	}
	if parts[0].err != nil || parts[1].err != nil || s.clashes(parts) {
		return "", false, nil
	}
	fs.half, fs.halfLines, fs.halfRows = mid, parts[0].lines, parts[0].in.Rows
	off := 0
	for _, p := range parts {
		in.joinJSONLPart(s, path, p, off)
		off += p.lines
		fs.rows += p.in.Rows
	}
	return sums[0], true, nil
}

// lineAfter is the offset just past the first line feed at or after at
// (the file's size when there is none).
func lineAfter(path string, at int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.NewSectionReader(f, at, math.MaxInt64-at), 64<<10)
	for off := at; ; {
		b, err := r.ReadSlice('\n')
		off += int64(len(b))
		if err == nil {
			return off, nil
		}
		if err != bufio.ErrBufferFull {
			return off, nil // the end of the file, or a fault the scan will meet
		}
	}
}

// scanJSONLPart scans the bytes of one half, as a file of its own.
func (in *Input) scanJSONLPart(ctx context.Context, path string, p *jsonlPart) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	p.in, p.s = &Input{spec: in.spec}, newJSONLScan()
	j := newJSONLReader(io.NewSectionReader(f, p.start, p.end-p.start))
	var fs fileState
	err = p.in.scanJSONLFile(ctx, p.s, path, &fs, j)
	p.lines = j.line
	return err
}

// clashes reports a key of a half that differs only in case from a key
// seen before it: one pass refuses it, with its words.
func (s *jsonlScan) clashes(parts []*jsonlPart) bool {
	seen := map[string]string{}
	for low, k := range s.keys.folded {
		seen[low] = k.name
	}
	for _, p := range parts {
		for _, c := range p.in.Columns {
			low := strings.ToLower(c.Name)
			if name, ok := seen[low]; ok && name != c.Name {
				return true
			}
			seen[low] = c.Name
		}
	}
	return false
}

// joinJSONLPart adds what half p found to in and s, its lines after off
// lines of the file, as one pass would have found it.
func (in *Input) joinJSONLPart(s *jsonlScan, path string, p *jsonlPart, off int) {
	known := len(in.Columns)
	given := make([]bool, known)
	for pc, c := range p.in.Columns {
		first := p.s.firstLine[pc] + off
		ci, ok := s.keys.exact[c.Name]
		if ok {
			given[ci] = true
			in.noteHeadNulls(ci, p.s.head, off, first) // lines before the key's first
		} else {
			s.keys.folded[strings.ToLower(c.Name)] = keyAt{name: c.Name, file: path, line: first}
			ci = in.addColumn(c.Name)
			s.keys.exact[c.Name] = ci
			s.guesses = append(s.guesses, &guess{})
			s.set = append(s.set, false)
			s.firstLine = append(s.firstLine, first)
		}
		s.guesses[ci].join(p.s.guesses[pc], off)
		for _, l := range c.NullAt {
			l.Line += off
			in.noteNullAt(ci, l)
		}
	}
	for ci := range known {
		if !given[ci] {
			in.noteHeadNulls(ci, p.s.head, off, math.MaxInt) // absent from every line
		}
	}
	in.Rows += p.in.Rows
}

// noteHeadNulls notes the lines of head before line before as NULLs of
// column ci.
func (in *Input) noteHeadNulls(ci int, head []Location, off, before int) {
	for _, l := range head {
		if l.Line += off; l.Line < before {
			in.noteNullAt(ci, l)
		}
	}
}

// join adds what o found, its lines after off lines of the same file, to
// what g found before it.
func (g *guess) join(o *guess, off int) {
	for f := range g.count {
		g.count[f] += o.count[f]
	}
	g.maxDigits = max(g.maxDigits, o.maxDigits)
	g.maxScale = max(g.maxScale, o.maxScale)
	g.maxIntPart = max(g.maxIntPart, o.maxIntPart)
	for _, x := range []struct {
		dst *spot
		src spot
	}{{&g.inexact, o.inexact}, {&g.huge, o.huge}, {&g.outOfRange, o.outOfRange}, {&g.text, o.text}} {
		if x.dst.line == 0 && x.src.line > 0 {
			*x.dst = x.src
			x.dst.line += off
		}
	}
	if !o.timeSeen {
		return
	}
	if !g.timeSeen || o.lo < g.lo {
		g.lo, g.minTime = o.lo, o.minTime
		g.minTime.line += off
	}
	if !g.timeSeen || o.hi > g.hi {
		g.hi, g.maxTime = o.hi, o.maxTime
		g.maxTime.line += off
	}
	g.timeSeen = true
}

// readJSONLPart reads one half's lines into batches it sends.
func (in *Input) readJSONLPart(ctx context.Context, fs *fileState, p filePart, out *sink) error {
	f, err := os.Open(fs.path)
	if err != nil {
		return readError(fs.path, err)
	}
	defer f.Close()
	r := in.newJSONLRead(out)
	j := newJSONLReader(io.NewSectionReader(f, p.start, p.end-p.start))
	j.line = p.lines
	rows, err := in.readJSONLFile(ctx, r, fs.path, j, out)
	if err != nil {
		return err
	}
	if err := partRows(fs.path, p, rows); err != nil {
		return err
	}
	if r.b.Len > 0 {
		return out.send(r.b)
	}
	return nil
}
