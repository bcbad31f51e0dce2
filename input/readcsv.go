package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
)

// openCSV opens a CSV file and reads its header: the delimiter it uses
// and its names, checked.
func openCSV(path string) (*hashedFile, *csvReader, []string, error) {
	return openCSVHashed(path, nil)
}

// openCSVHashed is openCSV with the file's stored bytes written to hash.
func openCSVHashed(path string, hash io.Writer) (*hashedFile, *csvReader, []string, error) {
	f, _, err := openHashed(path, hash)
	if err != nil {
		return nil, nil, nil, err
	}
	c := newCSVReader(f, ',')
	if err := c.skipBOM(); err != nil {
		f.Close()
		return nil, nil, nil, readError(path, err)
	}
	c.delim = headerDelimiter(firstLine(c.buf[c.pos:c.end]))
	rec, err := c.next()
	if errors.Is(err, io.EOF) {
		f.Close()
		if c.line > 1 {
			return nil, nil, nil, &Error{File: path, Msg: "has no header line: it holds only blank lines"}
		}
		if c.pos > 0 { // a byte order mark and nothing else
			return nil, nil, nil, &Error{File: path, Line: 1, Msg: "the header line names no column"}
		}
		return nil, nil, nil, &Error{File: path, Msg: "is empty (0 bytes): not even a header line (a header-only file is an empty delivery)"}
	}
	if err != nil {
		f.Close()
		return nil, nil, nil, csvError(path, c, err)
	}
	names := make([]string, len(rec))
	for i, fl := range rec {
		names[i] = strings.TrimSpace(string(fl.b))
	}
	if c.recLine != 1 {
		f.Close()
		return nil, nil, nil, &Error{File: path, Line: 1, Msg: "the header line names no column"}
	}
	if bad := headerProblem(path, names, c.delim); bad != nil {
		f.Close()
		return nil, nil, nil, bad
	}
	return f, c, names, nil
}

// headerProblem refuses a header a reader would have to invent names for,
// or that names a column twice.
func headerProblem(path string, names []string, delim byte) error {
	if len(names) == 1 && names[0] == "" {
		return &Error{File: path, Line: 1, Msg: "the header line names no column"}
	}
	if len(names) <= 2 && strings.HasPrefix(strings.ToLower(names[0]), "sep=") && (len(names) == 1 || names[1] == "") {
		return &Error{File: path, Line: 1, Msg: fmt.Sprintf("%q is a spreadsheet's delimiter line, not a header: idem reads the column names from the first line; remove that line", strings.Join(names, string(delim)))}
	}
	seen := map[string]int{}
	for i, n := range names {
		if n == "" {
			return &Error{File: path, Line: 1, Msg: fmt.Sprintf("field %d of the header is empty: every column needs a name", i+1)}
		}
		if err := checkName(path, 1, n); err != nil {
			return err
		}
		low := strings.ToLower(n)
		if j, twice := seen[low]; twice {
			return &Error{File: path, Line: 1, Msg: fmt.Sprintf("the header names column %q twice (fields %d and %d; names are compared without case)", n, j+1, i+1)}
		}
		seen[low] = i
	}
	return nil
}

// firstLine is b up to its first line feed outside quotes.
func firstLine(b []byte) []byte {
	inQuote := false
	for i, c := range b {
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\n' && !inQuote:
			return b[:i]
		}
	}
	return b
}

// csvError locates a fault the CSV reader met.
func csvError(path string, c *csvReader, err error) error {
	var ce *errCSV
	if errors.As(err, &ce) {
		return &Error{File: path, Line: ce.line, Msg: ce.msg}
	}
	return readError(path, err)
}

// readError names a file that could not be read to its end.
func readError(path string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		return &Error{File: path, Msg: fmt.Sprintf("has gzip data that is cut short or damaged (%v): no row of a file that does not end whole is loaded", err), Err: err}
	}
	return &Error{File: path, Msg: "cannot be read: " + err.Error(), Err: err}
}

// scanCSV is Scan for CSV files: every file's header must name the same
// columns (in any order).
func (in *Input) scanCSV(ctx context.Context) error {
	var guesses []*guess
	var firstFile string
	var sums []string
	for fi, path := range in.spec.Paths {
		fs, err := stat(path)
		if err != nil {
			return err
		}
		h := sha256.New()
		f, c, names, err := openCSVHashed(path, h)
		if err != nil {
			return err
		}
		if fi == 0 {
			firstFile = path
			for _, n := range names {
				in.addColumn(n)
				guesses = append(guesses, &guess{})
			}
		}
		cols, err := in.mapHeader(path, firstFile, names)
		if err != nil {
			f.Close()
			return err
		}
		fs.delim, fs.cols = c.delim, cols
		sum, ok, err := in.scanCSVHalves(ctx, path, c.delim, guesses, &fs)
		if err != nil || ok {
			f.Close()
			if err != nil {
				return err
			}
			sums = append(sums, sum)
			in.files = append(in.files, fs)
			continue
		}
		err = in.scanRecords(ctx, path, c, cols, guesses, &fs)
		if err == nil {
			err = f.finish()
		}
		f.Close()
		if err != nil {
			return readError(path, err)
		}
		sums = append(sums, hex.EncodeToString(h.Sum(nil)))
		in.files = append(in.files, fs)
	}
	in.Fingerprint = combine(sums)
	return in.decide(guesses)
}

// mapHeader gives each of a file's fields its input column, refusing a
// file that names other columns than the first.
func (in *Input) mapHeader(path, first string, names []string) ([]int, error) {
	cols := make([]int, len(names))
	var extra []string
	for i, n := range names {
		j, ok := in.column(n)
		if !ok {
			extra = append(extra, n)
		}
		cols[i] = j
	}
	var lacks []string
	for _, c := range in.Columns {
		found := false
		for _, n := range names {
			if strings.EqualFold(n, c.Name) {
				found = true
			}
		}
		if !found {
			lacks = append(lacks, c.Name)
		}
	}
	if len(extra)+len(lacks) > 0 {
		return nil, &Error{File: path, Line: 1, Msg: fmt.Sprintf(
			"its header names other columns than %s's (more: %s; fewer: %s): every file must name the same columns, in any order",
			baseName(first), listOrNone(extra), listOrNone(lacks))}
	}
	return cols, nil
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(strings.Fields(strings.Join(names, " ")), ", ")
}

// scanRecords reads a CSV file's records: their shape, each value against
// its column's type (given), or into its column's guess.
func (in *Input) scanRecords(ctx context.Context, path string, c *csvReader, cols []int, guesses []*guess, fs *fileState) error {
	lim := in.spec.Limits
	for n := 0; ; n++ {
		if n&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := c.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return csvError(path, c, err)
		}
		if len(rec) != len(cols) {
			return &Error{File: path, Line: c.recLine, Msg: fmt.Sprintf("expected %d fields, as the header has, found %d", len(cols), len(rec))}
		}
		fs.rows++
		in.Rows++
		for i, f := range rec {
			ci := cols[i]
			col := &in.Columns[ci]
			if col.Fixed {
				if err := check(f, col.Type, lim); err != nil {
					return at(err, path, c.recLine, col.Name, f.b)
				}
			} else if guesses[ci].add(f, path, c.recLine) == fText {
				if err := checkText(f.b); err != nil {
					return at(err, path, c.recLine, col.Name, f.b)
				}
			}
			if len(f.b) == 0 && len(col.NullAt) < 3 && in.locating(ci) {
				col.NullAt = append(col.NullAt, Location{File: path, Line: c.recLine, Row: joinFields(rec, c.delim)})
			}
		}
	}
}

// joinFields is a record as text, for a message.
func joinFields(rec []field, delim byte) string {
	var b bytes.Buffer
	for i, f := range rec {
		if i > 0 {
			b.WriteByte(delim)
		}
		b.Write(f.b)
	}
	return b.String()
}

// readCSV is Read for CSV files.
func (in *Input) readCSV(ctx context.Context, out *sink) error {
	b, ar := out.batch()
	for i := range in.files {
		fs := &in.files[i]
		if err := fs.unchanged(); err != nil {
			return err
		}
		if fs.half > 0 && runtime.GOMAXPROCS(0) >= 2 {
			err := readHalves(ctx, fs, func(ctx context.Context, p filePart) error {
				return in.readCSVPart(ctx, fs, p, out)
			})
			if err != nil {
				return err
			}
			continue
		}
		f, c, _, err := openCSV(fs.path)
		if err != nil {
			return err
		}
		rows := int64(0)
		for {
			if b, ar, err = in.readRecord(fs, c, b, ar, out); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				f.Close()
				return err
			}
			rows++
		}
		f.Close()
		if rows != fs.rows {
			return fmt.Errorf("%w: %s has %d rows, not the %d it had", ErrChanged, fs.path, rows, fs.rows)
		}
	}
	if b.Len > 0 {
		return out.send(b)
	}
	return nil
}

// readRecord puts c's next record into b, sending b when it is full (and
// going on in a new batch); io.EOF after the last record.
func (in *Input) readRecord(fs *fileState, c *csvReader, b *Batch, ar *arena, out *sink) (*Batch, *arena, error) {
	rec, err := c.next()
	if errors.Is(err, io.EOF) {
		return b, ar, err
	}
	if err != nil {
		return b, ar, csvError(fs.path, c, err)
	}
	if len(rec) != len(fs.cols) {
		return b, ar, fmt.Errorf("%w: %s line %d", ErrChanged, fs.path, c.recLine)
	}
	for i, fl := range rec {
		ci := fs.cols[i]
		if err := put(b.Cols[ci], fl, ar, in.spec.Limits); err != nil {
			return b, ar, at(err, fs.path, c.recLine, in.Columns[ci].Name, fl.b)
		}
	}
	b.Len++
	if b.Len == BatchRows {
		if err := out.send(b); err != nil {
			return b, ar, err
		}
		b, ar = out.batch()
	}
	return b, ar, nil
}
