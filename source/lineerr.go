package source

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// LineError is a fault of one line of an input file, found by reading it:
// callers (and their error messages) get the file, the line and, where
// known, the column, and errors.As finds them through any wrapping.
type LineError struct {
	File   string
	Line   int    // 1-based
	Column string // "" when the fault is not one column's
	Err    error  // what is wrong, without the location
}

func (e *LineError) Error() string { return fmt.Sprintf("%s line %d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// readerJSONRE matches the report of DuckDB's JSON reader, which reads
// JSON Lines for every engine, about one line's value: the file, the line
// and what is wrong, before its advice about reader options.
var readerJSONRE = regexp.MustCompile(`(?m)JSON transform error in file "([^"]+)", in line ([0-9]+):\s*(.*?)\s*(?:;\s*Try increasing|$)`)

// duplicateKeyRE finds the key a JSON object names twice in that report.
var duplicateKeyRE = regexp.MustCompile(`has duplicate key "((?:[^"\\]|\\.)*)"`)

// JSONReadError turns the JSON reader's report about one line into a
// LineError, or returns nil for any other error. Its advice (a larger
// sample, ignore_errors) names options idem sets itself; what the user can
// do is say it instead: a value that does not fit the type its column has
// in the first lines needs the column's type declared under columns:.
func JSONReadError(err error) *LineError {
	m := readerJSONRE.FindStringSubmatch(err.Error())
	if m == nil {
		return nil
	}
	line, _ := strconv.Atoi(m[2])
	if k := duplicateKeyRE.FindStringSubmatch(m[3]); k != nil {
		return &LineError{File: m[1], Line: line, Err: fmt.Errorf("the object names key %q twice", k[1])}
	}
	msg := "a value does not fit the type its column has in the file's first lines (the type the reader gave it)"
	if what := strings.TrimSpace(m[3]); what != "" {
		msg += ": " + what
	}
	return &LineError{File: m[1], Line: line, Err: errors.New(msg + "; declare the column's type under columns:")}
}
