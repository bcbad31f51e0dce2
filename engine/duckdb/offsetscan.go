package duckdb

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// mayHoldOffset reports whether any of the CSV files may hold a value that
// zonedRE matches, by reading their bytes in Go: false only when none can.
// It lets a load skip Resolve's scan of every value through DuckDB (a
// second parse of the whole input: about as long as staging it) in the
// usual case, a file without offsets.
//
// It looks for a superset of zonedRE's matches in the raw bytes: a match
// ends a value, and no character of it is a quote or an escape, so it
// appears in the file as it is in the value. A compressed file, or one it
// cannot read, may hold anything.
func mayHoldOffset(paths []string) bool {
	for _, p := range paths {
		if compressed(p) {
			return true
		}
		if may, err := fileMayHoldOffset(p); may || err != nil {
			return true
		}
	}
	return false
}

func fileMayHoldOffset(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return true, err
	}
	defer f.Close()
	return readerMayHoldOffset(f, 1<<20)
}

// readerMayHoldOffset is fileMayHoldOffset on r, read in blocks of size.
func readerMayHoldOffset(f io.Reader, size int) (bool, error) {
	r := bufio.NewReaderSize(f, size)
	if magic, _ := r.Peek(4); bytes.HasPrefix(magic, []byte{0x1f, 0x8b}) || bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		return true, nil
	}
	// A block ending before a match at its end is decided is carried over
	// from that match's colon.
	var carry []byte
	buf := make([]byte, size)
	for {
		n, err := io.ReadFull(r, buf)
		block := append(carry, buf[:n]...)
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return true, err
		}
		may, rest := scanOffsets(block, eof)
		if may {
			return true, nil
		}
		if eof {
			return false, nil
		}
		carry = append(carry[:0:0], block[rest:]...)
		if len(carry) > 1<<20 { // an endless run of digits or spaces: give up
			return true, nil
		}
	}
}

// scanOffsets looks in b for ':' two digits, an optional fraction ('.'
// digits), optional white space, then 'z', a sign and a digit, "utc",
// "gmt", or letters and a '/'. (zonedRE is case-blind; a byte above 0x7f
// counts as a letter, since Unicode folds some, like U+212A KELVIN SIGN,
// to ASCII ones.) It returns true at a match; else the index from which
// the bytes must be scanned again with more input (len(b) when none), or
// at the end of the input, false.
func scanOffsets(b []byte, final bool) (bool, int) {
	// undecided is what to return when b ends before a match at start is
	// decided: more input may complete it.
	undecided := func(start int) (bool, int) {
		if final {
			return false, len(b)
		}
		return false, start
	}
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], ':')
		if j < 0 {
			return false, len(b)
		}
		start := i + j
		k := start + 1
		if k+2 > len(b) {
			return undecided(start)
		}
		if !isDigit(b[k]) || !isDigit(b[k+1]) {
			i = start + 1
			continue
		}
		k += 2
		if k < len(b) && b[k] == '.' {
			k++
			for k < len(b) && isDigit(b[k]) {
				k++
			}
		}
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k >= len(b) {
			return undecided(start)
		}
		switch m := zoneStart(b[k:]); {
		case m > 0:
			return true, 0
		case m < 0 && !final:
			return false, start
		}
		i = start + 1
	}
}

// zoneStart reports 1 when b starts as a zone zonedRE accepts might, 0
// when it cannot, -1 when b ends before that is known.
func zoneStart(b []byte) int {
	c := lower(b[0])
	switch {
	case c == 'z':
		return 1
	case c == '+' || c == '-':
		if len(b) < 2 {
			return -1
		}
		if isDigit(b[1]) {
			return 1
		}
		return 0
	case !isLetter(b[0]):
		return 0
	}
	for _, word := range []string{"utc", "gmt"} {
		if hasPrefixFold(b, word) {
			return 1
		}
	}
	// Letters, then a '/': a zone name.
	k := 0
	for k < len(b) && isLetter(b[k]) {
		k++
	}
	switch {
	case k == len(b):
		return -1
	case b[k] == '/':
		return 1
	}
	return 0
}

func hasPrefixFold(b []byte, word string) bool {
	if len(b) < len(word) {
		return false
	}
	for i := range len(word) {
		if lower(b[i]) != word[i] {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' || c >= 0x80 }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c | 0x20
	}
	return c
}

// mayHoldLeadingZero reports whether any of the CSV files may hold a field
// that starts with a zero and a digit (02134) or a plus sign and a digit
// (+5), by reading their bytes in Go: false only when none can. DuckDB's
// sniffer takes neither for a number, so a column holding one in its
// sample is text; Resolve looks for one past the sample only when this
// finds one somewhere. A field starts after a delimiter any sniffed file
// may have (delim, or when it is "" any of , ; | tab), a line end, or a
// quote. A compressed file, or one it cannot read, may hold anything.
func mayHoldLeadingZero(paths []string, delim string) bool {
	starts := [256]bool{'\n': true, '\r': true, '"': true}
	if delim == "" {
		delim = ",;|\t"
	}
	for i := range len(delim) {
		starts[delim[i]] = true
	}
	for _, p := range paths {
		if compressed(p) {
			return true
		}
		if may, err := fileMayHoldLeadingZero(p, &starts); may || err != nil {
			return true
		}
	}
	return false
}

func fileMayHoldLeadingZero(path string, starts *[256]bool) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return true, err
	}
	defer f.Close()
	return readerMayHoldLeadingZero(f, starts, 1<<20)
}

// readerMayHoldLeadingZero is fileMayHoldLeadingZero on r, read in blocks
// of size; the last two bytes of a block are read again with the next.
func readerMayHoldLeadingZero(r io.Reader, starts *[256]bool, size int) (bool, error) {
	buf := make([]byte, size+2)
	prev := []byte{'\n'} // the first field starts the file
	for {
		copy(buf, prev)
		n, err := io.ReadFull(r, buf[len(prev):len(prev)+size])
		block := buf[:len(prev)+n]
		if magic := block[len(prev):]; len(prev) == 1 && (bytes.HasPrefix(magic, []byte{0x1f, 0x8b}) || bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd})) {
			return true, nil
		}
		for i := 1; i+1 < len(block); i++ {
			if c := block[i]; (c == '0' || c == '+') && isDigit(block[i+1]) && starts[block[i-1]] {
				return true, nil
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		if err != nil {
			return true, err
		}
		prev = append(prev[:0:0], block[len(block)-2:]...)
	}
}

// mayHoldHugeExponent reports whether any of the files may hold a number
// beyond a DOUBLE's range: an exponent of three digits or more (e308,
// E+400), by reading their bytes in Go; false only when none can. A
// compressed file, or one it cannot read, may hold anything.
func mayHoldHugeExponent(paths []string) bool {
	for _, p := range paths {
		if compressed(p) {
			return true
		}
		f, err := os.Open(p)
		if err != nil {
			return true
		}
		may, err := readerMayHoldHugeExponent(f, 1<<20)
		f.Close()
		if may || err != nil {
			return true
		}
	}
	return false
}

// readerMayHoldHugeExponent is mayHoldHugeExponent on r, read in blocks of
// size; the last four bytes of a block are read again with the next.
func readerMayHoldHugeExponent(r io.Reader, size int) (bool, error) {
	const keep = 4 // "e+12" is decided by the byte after it
	buf := make([]byte, size+keep)
	var prev []byte
	for {
		copy(buf, prev)
		n, err := io.ReadFull(r, buf[len(prev):len(prev)+size])
		block := buf[:len(prev)+n]
		if len(prev) == 0 && (bytes.HasPrefix(block, []byte{0x1f, 0x8b}) || bytes.HasPrefix(block, []byte{0x28, 0xb5, 0x2f, 0xfd})) {
			return true, nil
		}
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return true, err
		}
		for i := 0; i < len(block); i++ {
			if c := block[i]; c != 'e' && c != 'E' || i == 0 || !isDigit(block[i-1]) && block[i-1] != '.' {
				continue
			}
			k := i + 1
			if k < len(block) && (block[k] == '+' || block[k] == '-') {
				k++
			}
			digits := 0
			for k < len(block) && isDigit(block[k]) {
				k++
				digits++
			}
			if digits >= 3 || digits > 0 && k == len(block) && !eof {
				return true, nil // three digits, or digits the next block may continue
			}
		}
		if eof {
			return false, nil
		}
		prev = append(prev[:0:0], block[max(0, len(block)-keep):]...)
	}
}

// compressed reports a file whose name says it is compressed: its bytes
// say nothing of its text, so a byte scan must assume anything.
func compressed(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz", ".gzip", ".zst", ".zstd":
		return true
	}
	return false
}
