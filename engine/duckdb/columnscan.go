package duckdb

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"slices"

	"github.com/idemdata/idem/engine"
)

// fieldCheck is what a byte scan of a CSV column looks for: a value that
// Resolve's scan through DuckDB would have to see (see columnsMayHold).
type fieldCheck uint8

const (
	// checkDate: a value of a column sniffed DATE longer than a date (a
	// time of day), or with a colon (an offset).
	checkDate fieldCheck = 1 << iota
	// checkWhole: a value of an integer column with anything but digits,
	// signs and blanks (5.7, 1e5: the reader would round it).
	checkWhole
	// checkLeadingZero: a value of a number column starting 0 and a digit,
	// or + (02134, +5: the sniffer takes neither for a number).
	checkLeadingZero
)

// columnsMayHold reports, for each column in checks, whether the CSV files
// may hold a value its checks look for, by reading their bytes in Go:
// false only when none can. Resolve then spares the files' pass through
// DuckDB as text (about as long as staging them) for a column no value of
// which needs it.
//
// It reads each file's header for the columns' places and splits the
// lines on delim, a single byte, with '"' quoting (doubled inside a quoted
// value), as Resolve's reader does. A quoted value in a checked column may
// hold anything, and so may every column of a file it cannot follow: a
// compressed one, one it cannot read, one whose header lacks a column or
// names one twice. The result is then true for every column.
func columnsMayHold(paths []string, delim string, checks map[string]fieldCheck) map[string]bool {
	may := make(map[string]bool, len(checks))
	for c := range checks {
		may[c] = false
	}
	all := func() map[string]bool {
		for c := range checks {
			may[c] = true
		}
		return may
	}
	if len(delim) != 1 || delim[0] == '"' || delim[0] == '\n' || delim[0] == '\r' {
		return all()
	}
	var first []string // the first file's header, sorted
	for _, p := range paths {
		if compressed(p) {
			return all()
		}
		f, err := os.Open(p)
		if err != nil {
			return all()
		}
		header, err := scanColumns(f, delim[0], checks, may)
		f.Close()
		if err != nil {
			return all()
		}
		// Files naming other columns are DuckDB's to refuse, in its read.
		slices.Sort(header)
		if first == nil {
			first = header
		} else if !slices.Equal(header, first) {
			return all()
		}
	}
	return may
}

// errUnfollowed: scanColumns cannot tell where the checked columns are.
var errUnfollowed = errors.New("the file's columns cannot be followed")

// scanColumns reads one CSV file from r and sets may[c] for each checked
// column c a value of which may hold what checks[c] looks for. It returns
// the file's header.
func scanColumns(r io.Reader, delim byte, checks map[string]fieldCheck, may map[string]bool) ([]string, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	sc := &csvScanner{r: br, delim: delim}
	header, err := sc.record()
	if err != nil {
		return nil, errUnfollowed // no header: DuckDB says what is wrong
	}
	// at[i] is the checks of the file's field i, name[i] its column.
	at := make([]fieldCheck, len(header))
	name := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		if seen[h] {
			return nil, errUnfollowed
		}
		seen[h] = true
		at[i], name[i] = checks[h], h
	}
	for c := range checks {
		if !seen[c] {
			return nil, errUnfollowed
		}
	}
	// last is the place of the last column still to check: the values
	// after it on a line without quotes are not split.
	last := lastChecked(at)
	for last >= 0 {
		more, err := sc.line(last, func(i int, v []byte, quoted bool) {
			if i >= len(at) || at[i] == 0 {
				return
			}
			if quoted || fieldMayHold(v, at[i]) {
				may[name[i]], at[i] = true, 0
				last = lastChecked(at)
			}
		})
		if err != nil {
			return nil, err
		}
		if !more {
			return header, nil
		}
	}
	return header, nil // every column may: the rest cannot change that
}

// lastChecked is the greatest i with at[i] set, or -1.
func lastChecked(at []fieldCheck) int {
	for i := len(at) - 1; i >= 0; i-- {
		if at[i] != 0 {
			return i
		}
	}
	return -1
}

// lineEnd is a line without its "\n" or "\r\n".
func lineEnd(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// fieldMayHold reports whether an unquoted value v may hold what check
// looks for. Resolve's checks trim spaces (DuckDB's trim); a tab counts
// toward a date's length.
func fieldMayHold(v []byte, check fieldCheck) bool {
	if d := bytes.Trim(v, " "); check&checkDate != 0 && (len(d) > 10 || bytes.IndexByte(d, ':') >= 0) {
		return true
	}
	if check&checkWhole != 0 {
		for _, c := range v {
			if !isDigit(c) && c != '+' && c != '-' && c != ' ' && c != '\t' {
				return true
			}
		}
	}
	v = bytes.TrimLeft(v, " \t")
	return check&checkLeadingZero != 0 && len(v) > 0 && (v[0] == '+' || v[0] == '0' && len(v) > 1 && isDigit(v[1]))
}

// spareColumns drops from dated, whole and numeric (Resolve's lists of
// CSV columns to check through DuckDB) the columns columnsMayHold rules
// out.
func spareColumns(in engine.FileInput, dated, whole, numeric []engine.Column) ([]engine.Column, []engine.Column, []engine.Column) {
	checks := map[string]fieldCheck{}
	for _, l := range []struct {
		cols  []engine.Column
		check fieldCheck
	}{{dated, checkDate}, {whole, checkWhole}, {numeric, checkLeadingZero}} {
		for _, c := range l.cols {
			checks[c.Name] |= l.check
		}
	}
	if len(checks) == 0 {
		return dated, whole, numeric
	}
	may := columnsMayHold(in.Paths, in.Delim, checks)
	keep := func(cols []engine.Column) []engine.Column {
		return slices.DeleteFunc(cols, func(c engine.Column) bool { return !may[c.Name] })
	}
	return keep(dated), keep(whole), keep(numeric)
}

// csvScanner splits CSV lines into values without copying those that are
// not quoted. Written here rather than using encoding/csv, which copies
// every field: on the benchmark's 1M-row CSV encoding/csv took 200-237 ms,
// as long as the DuckDB pass it would spare; this takes about 60 ms.
type csvScanner struct {
	r     *bufio.Reader
	delim byte
	buf   []byte // a quoted value, unquoted
}

// record reads the next line's values as strings (for the header).
func (sc *csvScanner) record() ([]string, error) {
	var out []string
	more, err := sc.line(math.MaxInt, func(_ int, v []byte, _ bool) { out = append(out, string(v)) })
	if err != nil {
		return nil, err
	}
	if !more && len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}

// line reads one line (a quoted value may span several) and calls each
// with every value's index, bytes (valid until the next call) and whether
// it was quoted, up to the value at last at least. It returns false at
// the end of the input.
func (sc *csvScanner) line(last int, each func(i int, v []byte, quoted bool)) (bool, error) {
	raw, err := sc.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return false, errUnfollowed // a line over 1 MiB: let DuckDB read it
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	eof := err != nil
	if len(raw) == 0 && eof {
		return false, nil
	}
	if bytes.IndexByte(raw, '"') < 0 {
		// The usual line: no quote, so values end at each delimiter.
		raw = lineEnd(raw)
		if bytes.IndexByte(raw, '\r') >= 0 {
			return false, errUnfollowed // a line ending in \r alone: DuckDB's, not ours
		}
		for i := 0; i <= last; i++ {
			j := bytes.IndexByte(raw, sc.delim)
			if j < 0 {
				each(i, raw, false)
				break
			}
			each(i, raw[:j], false)
			raw = raw[j+1:]
		}
		return !eof, nil
	}
	return sc.quotedLine(raw, eof, each)
}

// quotedLine is line for a line holding a quote: value by value, reading
// on while a quoted value spans lines.
func (sc *csvScanner) quotedLine(raw []byte, eof bool, each func(int, []byte, bool)) (bool, error) {
	line := append([]byte(nil), raw...) // ReadSlice's bytes change with the next read
	for i, pos := 0, 0; ; i++ {
		if pos < len(line) && line[pos] == '"' {
			sc.buf = sc.buf[:0]
			k := pos + 1
			for {
				q := bytes.IndexByte(line[k:], '"')
				if q < 0 { // the value goes on past this line
					if eof {
						return false, errUnfollowed // an unterminated quote: DuckDB names it
					}
					sc.buf = append(sc.buf, line[k:]...)
					next, err := sc.r.ReadSlice('\n')
					if errors.Is(err, bufio.ErrBufferFull) {
						return false, errUnfollowed
					}
					if err != nil && !errors.Is(err, io.EOF) {
						return false, err
					}
					eof = err != nil
					if len(next) == 0 {
						return false, errUnfollowed
					}
					line = append(line[:0], next...)
					k = 0
					continue
				}
				sc.buf = append(sc.buf, line[k:k+q]...)
				k += q + 1
				if k < len(line) && line[k] == '"' { // a doubled quote
					sc.buf = append(sc.buf, '"')
					k++
					continue
				}
				break
			}
			// After the closing quote: the delimiter, the line's end, or
			// text DuckDB would refuse.
			rest := lineEnd(line[k:])
			switch {
			case len(rest) == 0:
				each(i, sc.buf, true)
				return !eof, nil
			case rest[0] == sc.delim:
				each(i, sc.buf, true)
				pos = k + 1
				continue
			default:
				return false, errUnfollowed
			}
		}
		end := bytes.IndexByte(line[pos:], sc.delim)
		if end < 0 {
			v := lineEnd(line[pos:])
			if bytes.IndexByte(v, '"') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
				return false, errUnfollowed // a quote inside a value, or a lone \r: DuckDB decides
			}
			each(i, v, false)
			return !eof, nil
		}
		v := line[pos : pos+end]
		if bytes.IndexByte(v, '"') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
			return false, errUnfollowed
		}
		each(i, v, false)
		pos += end + 1
	}
}
