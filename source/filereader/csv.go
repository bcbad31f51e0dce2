package filereader

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	duckdbengine "github.com/idemdata/idem/engine/duckdb"
)

// CSVDialect is how an engine's CSV loader must parse the files for their
// bytes to go to it as they are. Each file has a header, which names its
// columns in its own order (Header), and an empty field, quoted or not, is
// NULL, as the reader reads it.
type CSVDialect struct {
	Delim string // one byte
	// Quote is `"`, or "" when the files have no quoting: a " is then a
	// plain character, and the loader needs a quote character that never
	// occurs in text.
	Quote string
	// Escape is "" when a quote inside a quoted field is doubled, otherwise
	// the one escape character.
	Escape string
}

// isoFormat matches the date and timestamp formats DuckDB sniffs for ISO
// 8601 text, which the engines' input functions read the same way.
var isoFormat = regexp.MustCompile(`^(%Y-%m-%d([ T]%H:%M:%S(\.%[fgn])?(%z)?)?)?$`)

// CSV decides whether the engine's CSV loader may parse the files itself,
// as they are: DuckDB sniffed a dialect a loader can express, no custom
// date formats, no skipped rows, every column's type read alike by the
// engine (Types.CSVText), and every file's header naming the columns DuckDB
// found. It returns nil when not (and for input that is not CSV); then the
// rows go by Rows.
func (in *Input) CSV(ctx context.Context) (*CSVDialect, error) {
	if in.in.Format != "csv" {
		return nil, nil
	}
	for _, c := range in.Columns {
		if !c.Unknown && !in.types.CSVText(c.Type) {
			return nil, nil
		}
	}
	s, ok := in.warm.sniffed(in.in.Paths[0], in.in.Delim)
	if !ok {
		var err error
		if s, err = duckdbengine.SniffCSV(ctx, in.rd.conn, in.in.Paths[0], in.in.Delim); err != nil {
			return nil, err
		}
	}
	if len(s.Delimiter) != 1 || s.SkipRows != 0 || !isoFormat.MatchString(s.DateFormat) || !isoFormat.MatchString(s.TimestampFormat) {
		return nil, nil
	}
	cd := &CSVDialect{Delim: s.Delimiter, Quote: s.Quote}
	switch s.Quote {
	case `"`:
	case "", "(empty)":
		cd.Quote = ""
	default:
		return nil, nil
	}
	switch s.Escape {
	case "", "(empty)", `"`:
	default:
		if len(s.Escape) != 1 {
			return nil, nil
		}
		cd.Escape = s.Escape
	}
	want := make([]string, len(in.Columns))
	for i, c := range in.Columns {
		want[i] = c.Name
	}
	sort.Strings(want)
	for _, p := range in.in.Paths {
		h, err := Header(p, s.Delimiter[0])
		if err != nil {
			return nil, err
		}
		slices.Sort(h)
		if !slices.Equal(h, want) {
			return nil, nil
		}
	}
	return cd, nil
}

// Header reads a CSV file's first record: its column names in file order,
// a byte order mark dropped. A header encoding/csv cannot read is none (nil,
// nil): the reader then reads the file, and says what is wrong with it.
func Header(path string, delim byte) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma = rune(delim)
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, nil // not for encoding/csv: let DuckDB read it
	}
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	}
	return rec, nil
}
