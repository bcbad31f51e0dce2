package source

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Open opens an input file for reading its text: a .gz file is
// decompressed, as the readers that stage it decompress it.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is not gzip-compressed, as its name says: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// CSVHeader returns a CSV file's column names, as its first line gives them
// (a byte order mark dropped), read with delim.
func CSVHeader(path string, delim byte) ([]string, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseHeader(f, delim)
}

func parseHeader(r io.Reader, delim byte) ([]string, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.Comma = rune(delim)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	rec, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	}
	return rec, nil
}

// CheckJSONL returns the first line of a JSON Lines file that is not a JSON
// object, with file and line, or nil.
func CheckJSONL(path string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<30)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(text, &obj); err != nil {
			return &LineError{File: path, Line: line, Err: fmt.Errorf("not a JSON object (%v): %s", err, abbreviate(string(text)))}
		}
	}
	return sc.Err()
}

// parquetMagic starts and ends every Parquet file.
var parquetMagic = []byte("PAR1")

// CheckParquet returns why a file is not a whole Parquet file (no magic
// number at its start or end: another format, or a truncated copy), or nil.
func CheckParquet(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	n := int64(len(parquetMagic))
	head, tail := make([]byte, n), make([]byte, n)
	if st.Size() < 2*n+4 {
		return fmt.Errorf("%s is not a Parquet file: it has %d bytes, fewer than any Parquet file", path, st.Size())
	}
	if _, err := f.ReadAt(head, 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail, st.Size()-n); err != nil {
		return err
	}
	switch {
	case !bytes.Equal(head, parquetMagic):
		return fmt.Errorf("%s is not a Parquet file: it does not start with PAR1", path)
	case !bytes.Equal(tail, parquetMagic):
		return fmt.Errorf("%s is not a whole Parquet file: it does not end with PAR1 (truncated?)", path)
	}
	return nil
}

// Kind is what a column's values must parse as, for CheckValues.
type Kind int

// Kinds of values CheckValues checks; others it leaves to the database.
const (
	KindOther Kind = iota
	KindInt16
	KindInt32
	KindInt64
	KindDate
	KindTimestamp
)

// KindOfType classifies a SQL type as DuckDB or PostgreSQL spells it.
func KindOfType(sqlType string) Kind {
	t := strings.ToUpper(strings.TrimSpace(sqlType))
	// ClickHouse: Nullable(…) and LowCardinality(…) wrap the type.
	for _, w := range []string{"NULLABLE(", "LOWCARDINALITY("} {
		if strings.HasPrefix(t, w) && strings.HasSuffix(t, ")") {
			return KindOfType(t[len(w) : len(t)-1])
		}
	}
	if strings.HasPrefix(t, "DATETIME64(") || strings.HasPrefix(t, "DATETIME(") {
		return KindTimestamp
	}
	switch t {
	case "SMALLINT", "INT2", "INT16":
		return KindInt16
	case "INTEGER", "INT", "INT4", "INT32":
		return KindInt32
	case "BIGINT", "INT8", "INT64":
		return KindInt64
	case "DATE", "DATE32":
		return KindDate
	case "TIMESTAMP", "TIMESTAMPTZ", "DATETIME", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP WITHOUT TIME ZONE", "DATETIME64":
		return KindTimestamp
	}
	return KindOther
}

// timeLayouts are the ISO forms both engines read for dates and times.
var timeLayouts = []string{
	"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05Z07", "2006-01-02T15:04:05Z07",
	"2006-01-02 15:04:05.999999999Z07", "2006-01-02T15:04:05.999999999Z07", "2006-01-02 15:04:05 MST",
}

// CheckValue reports why text is not a value of kind, or nil. It accepts
// what the engines accept for the kinds it knows: integers in range, ISO
// dates and times (optionally with an offset).
func CheckValue(text string, k Kind) error {
	s := strings.TrimSpace(text)
	switch k {
	case KindInt16, KindInt32, KindInt64:
		bits := map[Kind]int{KindInt16: 16, KindInt32: 32, KindInt64: 64}[k]
		if _, err := strconv.ParseInt(s, 10, bits); err != nil {
			if errors.Is(err, strconv.ErrRange) {
				lo, hi := int64(-1)<<(bits-1), int64(math.MaxInt64)>>(64-bits)
				return fmt.Errorf("out of range for a %d-bit integer (%d to %d)", bits, lo, hi)
			}
			return errors.New("not an integer")
		}
	case KindDate, KindTimestamp:
		for _, l := range timeLayouts {
			if k == KindDate && len(l) > len("2006-01-02") {
				break
			}
			if _, err := time.Parse(l, s); err == nil {
				return nil
			}
		}
		if k == KindDate {
			return errors.New("not a date (like 2026-11-28)")
		}
		return errors.New("not a date or timestamp (like 2026-11-28 13:45:00)")
	}
	return nil
}

// CheckValues reads a CSV file and returns the first value of a column in
// kinds that is not of its kind, naming file, line, column and value, or
// nil. An empty field is NULL, which every kind takes.
func CheckValues(path string, delim byte, kinds map[string]Kind) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma = rune(delim)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		return nil
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	idx := map[int]Kind{}
	for i, h := range header {
		if k, ok := kinds[h]; ok && k != KindOther {
			idx[i] = k
		}
	}
	if len(idx) == 0 {
		return nil
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // a structural fault: CheckCSV names it
		}
		for i, k := range idx {
			if i >= len(rec) || rec[i] == "" {
				continue
			}
			if verr := CheckValue(rec[i], k); verr != nil {
				line, _ := r.FieldPos(i)
				return &LineError{File: path, Line: line, Column: header[i], Err: fmt.Errorf("column %q: %q is %w", header[i], abbreviate(rec[i]), verr)}
			}
		}
	}
}

// CheckColumn reads a CSV file's column col and returns the first value
// that is not of kind k (named as CheckValues names it) and how many
// values are: a column of dates with one bad value is bad data, a column
// with no date at all is the wrong column.
func CheckColumn(path string, delim byte, col string, k Kind) (bad error, good int, err error) {
	f, err := Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma = rune(delim)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return nil, 0, nil
	}
	idx := -1
	for i, h := range header {
		if strings.TrimPrefix(h, "\ufeff") == col {
			idx = i
		}
	}
	if idx < 0 {
		return nil, 0, nil
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return bad, good, nil
		}
		if err != nil {
			return bad, good, nil // a structural fault: CheckCSV names it
		}
		if idx >= len(rec) || rec[idx] == "" {
			continue
		}
		verr := CheckValue(rec[idx], k)
		switch {
		case verr == nil:
			good++
		case bad == nil:
			line, _ := r.FieldPos(idx)
			bad = &LineError{File: path, Line: line, Column: col, Err: fmt.Errorf("column %q: %q is %w", col, abbreviate(rec[idx]), verr)}
		}
	}
}

// checkUTF8 names the first field of rec that is not UTF-8.
func checkUTF8(path string, line int, header, rec []string) error {
	for i, v := range rec {
		if utf8.ValidString(v) {
			continue
		}
		name, col := fmt.Sprintf("field %d", i+1), ""
		if i < len(header) && utf8.ValidString(header[i]) {
			name, col = fmt.Sprintf("column %q", header[i]), header[i]
		}
		bad := v
		for j := 0; j < len(v); {
			r, n := utf8.DecodeRuneInString(v[j:])
			if r == utf8.RuneError && n <= 1 {
				bad = fmt.Sprintf("byte 0x%02x at offset %d", v[j], j)
				break
			}
			j += n
		}
		return &LineError{File: path, Line: line, Column: col, Err: fmt.Errorf("%s is not valid UTF-8 (%s); re-encode the file as UTF-8", name, bad)}
	}
	return nil
}

// abbreviate shortens a value for a message.
func abbreviate(s string) string {
	const limit = 60
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}

// FilesContain reports whether any of the files (decompressed, as the
// readers read them) holds needle: a scan of the bytes, for a loader that
// must not meet some text.
func FilesContain(paths []string, needle []byte) (bool, error) {
	buf := make([]byte, 1<<20)
	for _, p := range paths {
		found, err := fileContains(p, needle, buf)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

func fileContains(path string, needle, buf []byte) (bool, error) {
	return scanFile(path, buf, len(needle)-1, func(b []byte) bool { return bytes.Contains(b, needle) })
}

// FileHoldsEmptyField reports whether a CSV file (its bytes as they are,
// header included) may hold an empty field, quoted or not: two delimiters
// in a row, a delimiter at the start or end of a line or of the file, an
// empty line, or two quotes in a row (an empty quoted field, or a quote
// doubled inside one: either way, the scan says may). A loader that turns
// empty fields into NULL one by one can skip that where this says none.
func FileHoldsEmptyField(path string, delim, quote byte) (bool, error) {
	var first, last []byte // the file's first and last bytes
	found, err := scanFile(path, make([]byte, 1<<20), 1, func(b []byte) bool {
		if len(b) == 0 {
			return false
		}
		if first == nil {
			first = []byte{b[0]}
		}
		last = []byte{b[len(b)-1]}
		return adjacentPair(b, delim, quote)
	})
	if err != nil || found || first == nil {
		return found || first == nil, err
	}
	return first[0] == delim || last[0] == delim, nil
}

// adjacentPair reports whether b holds two bytes in a row that are each a
// delimiter or a newline, or two quotes in a row (quote 0: none). It reads
// eight bytes at a time: a byte-by-byte loop took 90 ms over a 58 MB file,
// as long as the load's other checks together.
func adjacentPair(b []byte, delim, quote byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// zeros has the high bit of each zero byte of v, and no other bit.
	zeros := func(v uint64) uint64 {
		return ^(((v &^ highs) + ^uint64(highs)) | v | ^uint64(highs))
	}
	d, nl, q := uint64(delim)*ones, uint64('\n')*ones, uint64(quote)*ones
	var carrySep, carryQuote uint64 // the last word's last byte was one
	i := 0
	for ; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		sep := zeros(v^d) | zeros(v^nl)
		if sep&(sep<<8|carrySep) != 0 {
			return true
		}
		carrySep = sep >> 56
		if quote != 0 {
			qs := zeros(v ^ q)
			if qs&(qs<<8|carryQuote) != 0 {
				return true
			}
			carryQuote = qs >> 56
		}
	}
	isSep := func(c byte) bool { return c == delim || c == '\n' }
	for ; i < len(b); i++ {
		if i > 0 && ((isSep(b[i]) && isSep(b[i-1])) || (quote != 0 && b[i] == quote && b[i-1] == quote)) {
			return true
		}
	}
	return false
}

// FilesHoldSubMicroseconds reports whether any of the files holds a time
// of day with more than six digits of a second (":SS." and seven digits or
// more), which readers of the input do not all treat alike: PostgreSQL
// rounds them, DuckDB, MySQL and ClickHouse drop them.
func FilesHoldSubMicroseconds(paths []string) (bool, error) {
	buf := make([]byte, 1<<20)
	for _, p := range paths {
		found, err := scanFile(p, buf, 16, subMicro)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// subMicro finds ":SS.ddddddd" in b.
func subMicro(b []byte) bool {
	for i := 3; i < len(b); i++ {
		// Jump to the next '.' (IndexByte is vectorized: a fourth of the
		// time of looking at every byte on the benchmark's CSV).
		k := bytes.IndexByte(b[i:], '.')
		if k < 0 {
			return false
		}
		i += k
		if b[i-3] != ':' || !isDigit(b[i-2]) || !isDigit(b[i-1]) {
			continue
		}
		n := 0
		for j := i + 1; j < len(b) && isDigit(b[j]); j++ {
			n++
		}
		if n > 6 {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanFile runs found over the file's text (decompressed) in chunks,
// each starting with the last overlap bytes of the one before, so a match
// shorter than overlap across two reads is seen whole.
func scanFile(path string, buf []byte, overlap int, found func([]byte) bool) (bool, error) {
	f, err := Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	keep := 0
	for {
		n, err := f.Read(buf[keep:])
		if found(buf[:keep+n]) {
			return true, nil
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		end := keep + n
		keep = min(overlap, end)
		copy(buf, buf[end-keep:end])
	}
}
