package source

import "fmt"

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
