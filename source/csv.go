package source

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// csvDelimiterCandidates are the delimiters CSVDelimiter chooses among.
const csvDelimiterCandidates = ",;\t|"

// CSVDelimiter reads a CSV file's header line and returns the delimiter it
// uses: the candidate (comma, semicolon, tab, pipe) found most often outside
// quotes, a comma on a tie or when none occurs (a one-column file). The
// header decides, not a sample of data rows: a reader that guesses from the
// rows can take a ragged file for a one-column file with another delimiter.
func CSVDelimiter(path string) (byte, error) {
	f, err := Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	counts := map[byte]int{}
	inQuote := false
	for {
		b, err := r.ReadByte()
		if err != nil {
			break
		}
		if b == '"' {
			inQuote = !inQuote
			continue
		}
		if !inQuote && (b == '\n' || b == '\r') {
			break
		}
		if !inQuote {
			counts[b]++
		}
	}
	best := byte(',')
	for i := 0; i < len(csvDelimiterCandidates); i++ {
		c := csvDelimiterCandidates[i]
		if counts[c] > counts[best] {
			best = c
		}
	}
	return best, nil
}

// CheckCSV reads a CSV file strictly (the header's field count on every
// row, quotes closed, text UTF-8) and returns its first structural fault with file and
// line, or nil. Used to explain a read that failed: a database's reader
// reports these less plainly, or guesses past them.
func CheckCSV(path string, delim byte) error {
	if st, err := os.Stat(path); err == nil && st.Size() == 0 {
		return fmt.Errorf("%s is empty (0 bytes): not even a header line", path)
	}
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma = rune(delim)
	r.ReuseRecord = true
	var want int
	var header []string
	for n := 0; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) && n == 0 {
			return fmt.Errorf("%s has no header line: it holds only blank lines", path)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			switch {
			case errors.Is(pe.Err, csv.ErrFieldCount):
				return &LineError{File: path, Line: pe.StartLine, Err: fmt.Errorf("expected %d fields, as the header has, found %d", want, len(rec))}
			case errors.Is(pe.Err, csv.ErrQuote):
				return &LineError{File: path, Line: pe.StartLine, Err: errors.New("a quoted field opened on this line is never closed (or a quote inside it is not doubled)")}
			case errors.Is(pe.Err, csv.ErrBareQuote):
				continue // a reader may accept a quote inside an unquoted field
			}
			return &LineError{File: path, Line: pe.StartLine, Err: pe.Err}
		}
		if err != nil {
			return err
		}
		if n == 0 {
			if strings.TrimSpace(strings.TrimPrefix(strings.Join(rec, ""), "\ufeff")) == "" {
				return &LineError{File: path, Line: 1, Err: errors.New("the header line names no column")}
			}
			if sepLine(rec) {
				return &LineError{File: path, Line: 1, Err: fmt.Errorf("%q is a spreadsheet's delimiter line, not a header: idem reads the column names from the first line; remove that line", strings.Join(rec, string(delim)))}
			}
			want = len(rec)
			header = append([]string(nil), rec...)
		}
		line, _ := r.FieldPos(0)
		if err := checkUTF8(path, line, header, rec); err != nil {
			return err
		}
	}
}

// sepLine reports a first line like Excel's "sep=;", which names the
// delimiter of the lines after it (read with any delimiter: "sep=;" is two
// fields when ';' is it).
func sepLine(rec []string) bool {
	if len(rec) == 0 || len(rec) > 2 || len(rec) == 2 && rec[1] != "" {
		return false
	}
	f := strings.ToLower(strings.TrimPrefix(rec[0], "\ufeff"))
	return strings.HasPrefix(f, "sep=") && len(f) <= len("sep=")+1
}
