package source

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Location is one input row: its file and line (1-based, counting the
// header), and the row as written.
type Location struct {
	File string
	Line int
	Row  string
}

func (l Location) String() string {
	return fmt.Sprintf("%s line %d: %s", l.File, l.Line, l.Row)
}

// LocateEmpty finds, in the input files, up to limit rows where any of cols
// is empty (CSV: an empty field; JSON Lines: missing or null), so an error
// about NULL values can name the file and line. It reads only as far as it
// must; formats it cannot locate in (Parquet) give no locations.
func LocateEmpty(paths []string, format string, cols []string, limit int) ([]Location, error) {
	var out []Location
	for _, p := range paths {
		if len(out) >= limit {
			break
		}
		var (
			found []Location
			err   error
		)
		switch format {
		case "csv":
			found, err = locateCSV(p, cols, limit-len(out))
		case "jsonl":
			found, err = locateJSONL(p, cols, limit-len(out))
		}
		if err != nil {
			return out, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// locateCSV reads the file with the delimiter its header gives, as the
// reader that staged it did.
func locateCSV(path string, cols []string, limit int) ([]Location, error) {
	delim, err := CSVDelimiter(path)
	if err != nil {
		return nil, err
	}
	found, _, err := locateCSVDelim(path, rune(delim), cols, limit)
	return found, err
}

func locateCSVDelim(path string, delim rune, cols []string, limit int) ([]Location, bool, error) {
	f, err := Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		return nil, false, nil
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = -1
		for j, h := range header {
			if h == c {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			return nil, false, nil
		}
	}
	var out []Location
	for len(out) < limit {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			continue // a malformed row: the reader's own error names it
		}
		for _, j := range idx {
			if j >= len(rec) || rec[j] == "" {
				line, _ := r.FieldPos(0)
				out = append(out, Location{File: path, Line: line, Row: strings.Join(rec, string(delim))})
				break
			}
		}
	}
	return out, true, nil
}

func locateJSONL(path string, cols []string, limit int) ([]Location, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	var out []Location
	for line := 1; sc.Scan() && len(out) < limit; line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(text), &obj) != nil {
			continue
		}
		for _, c := range cols {
			if v, ok := obj[c]; !ok || v == nil {
				out = append(out, Location{File: path, Line: line, Row: text})
				break
			}
		}
	}
	return out, sc.Err()
}
