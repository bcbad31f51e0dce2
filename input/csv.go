package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// CSV is read by one set of rules (RFC 4180's, strictly):
//
//   - The first line is the header; a byte order mark before it is dropped.
//     The delimiter is the one of , ; tab | that the header holds most
//     often outside quotes (a comma when it holds none).
//   - A record ends at a line feed outside quotes; a carriage return right
//     before it is dropped (CRLF and LF may mix). A carriage return anywhere
//     else outside quotes is refused. A line with nothing on it is not a
//     record and is skipped.
//   - A field is quoted when its first byte is a double quote; it then runs
//     to the next quote not doubled, and a doubled quote inside it is one
//     quote. The closing quote must end the field. A quote in a field that
//     does not start with one is refused (a space before the opening quote
//     included): the field's meaning would depend on the reader.
//   - Every record has as many fields as the header.
//
// What a field's text means is decided by its column (see Parse).

// maxRecord bounds one record: a file whose quotes never close must not
// take all memory.
const maxRecord = 64 << 20

// field is one value as read: CSV text, or a JSON Lines value.
type field struct {
	b      []byte
	quoted bool      // CSV: written in quotes (an empty quoted field is empty text)
	json   jsonValue // JSON Lines: what the value is; 0 for CSV
}

// csvReader splits a CSV file into records.
type csvReader struct {
	r       io.Reader
	buf     []byte
	pos     int // start of unread data
	end     int // end of data
	eof     bool
	readErr error
	delim   byte
	line    int // the line of the byte at pos (1-based)
	recLine int // the line the last record started on
	fields  []field
}

func newCSVReader(r io.Reader, delim byte) *csvReader {
	return &csvReader{r: r, buf: make([]byte, 1<<20), delim: delim, line: 1}
}

// fill reads more data, keeping buf[from:end] and moving it to the front.
// It returns how far the kept bytes moved.
func (c *csvReader) fill(from int) (int, error) {
	if c.eof {
		return 0, nil
	}
	n := copy(c.buf, c.buf[from:c.end])
	c.pos -= from
	c.end = n
	if c.end == len(c.buf) {
		if len(c.buf) >= maxRecord {
			return from, fmt.Errorf("a record is longer than %d MiB (a quoted field that never closes?)", maxRecord>>20)
		}
		nb := make([]byte, 2*len(c.buf))
		copy(nb, c.buf[:c.end])
		c.buf = nb
	}
	for c.end < len(c.buf) {
		m, err := c.r.Read(c.buf[c.end:])
		c.end += m
		if err == io.EOF {
			c.eof = true
			break
		}
		if err != nil {
			c.readErr = err
			return from, err
		}
	}
	return from, nil
}

// skipBOM drops a UTF-8 byte order mark at the start of the file.
func (c *csvReader) skipBOM() error {
	if _, err := c.fill(c.pos); err != nil {
		return err
	}
	if bytes.HasPrefix(c.buf[c.pos:c.end], []byte("\ufeff")) {
		c.pos += 3
	}
	return nil
}

// errCSV is a fault of the file's structure at a line.
type errCSV struct {
	line int
	msg  string
}

func (e *errCSV) Error() string { return e.msg }

// next returns the next record's fields, valid until the following call,
// or io.EOF.
func (c *csvReader) next() ([]field, error) {
	for {
		if c.pos >= c.end {
			if c.eof {
				return nil, io.EOF
			}
			if _, err := c.fill(c.pos); err != nil {
				return nil, err
			}
			continue
		}
		// The record's end: a line feed outside quotes.
		end, nl, err := c.recordEnd()
		if err != nil {
			return nil, err
		}
		rec := c.buf[c.pos:end]
		c.recLine = c.line
		c.pos = end
		if nl {
			c.pos++
		}
		lines := 1
		if len(rec) > 0 && rec[len(rec)-1] == '\r' {
			rec = rec[:len(rec)-1]
		}
		if len(rec) == 0 {
			c.line++
			continue // a blank line is no record
		}
		fs, inner, err := c.split(rec)
		c.line += lines + inner
		return fs, err
	}
}

// recordEnd finds the end of the record starting at pos (the index of its
// line feed, or of the end of data at the end of the file), reading more
// data as needed. A quote opens a quoted field only at the field's start;
// one elsewhere is left for split to refuse.
func (c *csvReader) recordEnd() (end int, nl bool, err error) {
	// Most records hold no quote: their end is the next line feed.
	if i := bytes.IndexByte(c.buf[c.pos:c.end], '\n'); i >= 0 && bytes.IndexByte(c.buf[c.pos:c.pos+i], '"') < 0 {
		return c.pos + i, true, nil
	}
	scan := c.pos
	fieldStart, inQuote := true, false
	for {
		for scan < c.end {
			b := c.buf[scan]
			switch {
			case inQuote:
				q := bytes.IndexByte(c.buf[scan:c.end], '"')
				if q < 0 {
					scan = c.end
					continue
				}
				scan += q + 1
				if scan < c.end && c.buf[scan] == '"' {
					scan++
					continue
				}
				if scan == c.end && !c.eof {
					scan-- // the next byte decides whether the quote is doubled
					goto more
				}
				inQuote = false
				continue
			case b == '\n':
				return scan, true, nil
			case b == c.delim:
				fieldStart = true
			case b == '"' && fieldStart:
				inQuote = true
				fieldStart = false
			default:
				fieldStart = false
			}
			scan++
		}
	more:
		// The record goes on past the data read so far.
		if c.eof {
			if inQuote {
				return 0, false, &errCSV{line: c.line, msg: "a quoted field opened on this line is never closed (or a quote inside it is not doubled)"}
			}
			return c.end, false, nil
		}
		shift, err := c.fill(c.pos)
		if err != nil {
			if inQuote {
				return 0, false, &errCSV{line: c.line, msg: "a quoted field opened on this line is never closed (or a quote inside it is not doubled): " + err.Error()}
			}
			return 0, false, err
		}
		scan -= shift
	}
}

// split cuts one record (without its line end) into fields, unquoting
// quoted ones in place. inner counts the line feeds inside quoted fields.
func (c *csvReader) split(rec []byte) ([]field, int, error) {
	fs := c.fields[:0]
	inner := 0
	i := 0
	for {
		if i < len(rec) && rec[i] == '"' {
			start := i
			var w int
			var err error
			if w, i, inner, err = c.unquote(rec, i, inner); err != nil {
				return nil, inner, err
			}
			fs = append(fs, field{b: rec[start:w], quoted: true})
			if i == len(rec) {
				break
			}
			if rec[i] != c.delim {
				return nil, inner, &errCSV{line: c.line + inner, msg: fmt.Sprintf("field %d has text after its closing quote", len(fs))}
			}
			i++
			if i == len(rec) {
				fs = append(fs, field{b: rec[i:i]})
				break
			}
			continue
		}
		j := bytes.IndexByte(rec[i:], c.delim)
		end := len(rec)
		if j >= 0 {
			end = i + j
		}
		v := rec[i:end]
		if bytes.IndexByte(v, '"') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
			return nil, inner, c.unquotedError(v, len(fs)+1, inner)
		}
		fs = append(fs, field{b: v})
		if j < 0 {
			break
		}
		i = end + 1
		if i == len(rec) {
			fs = append(fs, field{b: rec[i:i]})
			break
		}
	}
	c.fields = fs
	return fs, inner, nil
}

// unquote unquotes, in place, the quoted field whose opening quote is at
// rec[i]. It returns w, the field's content being rec[i:w]; the index past
// its closing quote; and inner plus the line feeds inside it.
func (c *csvReader) unquote(rec []byte, i, inner int) (int, int, int, error) {
	w := i
	i++
	for {
		q := bytes.IndexByte(rec[i:], '"')
		if q < 0 { // recordEnd saw it closed
			return 0, 0, inner, &errCSV{line: c.line, msg: "a quoted field is never closed"}
		}
		inner += bytes.Count(rec[i:i+q], []byte{'\n'})
		w += copy(rec[w:], rec[i:i+q])
		i += q + 1
		if i < len(rec) && rec[i] == '"' {
			rec[w] = '"'
			w++
			i++
			continue
		}
		return w, i, inner, nil
	}
}

// unquotedError says why field n, unquoted, is refused: it holds a quote
// or a carriage return.
func (c *csvReader) unquotedError(v []byte, n, inner int) error {
	if k := bytes.IndexByte(v, '"'); k >= 0 {
		msg := fmt.Sprintf("field %d holds a quote but does not start with one: quote the whole field and double the quotes inside it", n)
		if k > 0 && len(bytes.TrimLeft(v[:k], " \t")) == 0 {
			msg = fmt.Sprintf("field %d has a space before its opening quote: the quote must be the field's first character", n)
		}
		return &errCSV{line: c.line + inner, msg: msg}
	}
	return &errCSV{line: c.line + inner, msg: fmt.Sprintf("field %d holds a carriage return that does not end a line (quote the field if it belongs to the value)", n)}
}

// csvDelimiters are the delimiters a header may use.
const csvDelimiters = ",;\t|"

// headerDelimiter returns the delimiter a header line uses: the candidate
// found most often outside quotes, a comma on a tie or when none occurs
// (a one-column file). The header decides, not a sample of rows: a guess
// from rows can read a ragged file as one column.
func headerDelimiter(line []byte) byte {
	var counts [256]int
	inQuote := false
	for _, b := range line {
		if b == '"' {
			inQuote = !inQuote
			continue
		}
		if !inQuote {
			counts[b]++
		}
	}
	best := byte(',')
	for i := 0; i < len(csvDelimiters); i++ {
		if d := csvDelimiters[i]; counts[d] > counts[best] {
			best = d
		}
	}
	return best
}

var errNoHeader = errors.New("the header line names no column")
