package input

import (
	"errors"
	"fmt"
)

// Error is bad input: a fault of one input file, located as closely as it
// is known. The target must keep its contents (exit 1).
type Error struct {
	File   string
	Line   int    // 1-based; 0 when the fault is the file's as a whole
	Unit   string // what Line counts: "line" (CSV, JSON Lines) or "row" (Parquet); "" is line
	Column string // "" when the fault is not one column's
	Value  string // the value as written, when the fault is one value's
	Msg    string // what is wrong, without the location
	Err    error  // the underlying error (a read that failed), if any
}

func (e *Error) Error() string {
	if e.Line == 0 && e.Column == "" {
		return e.File + " " + e.Msg
	}
	s := e.File
	if e.Line > 0 {
		unit := e.Unit
		if unit == "" {
			unit = "line"
		}
		s += fmt.Sprintf(" %s %d", unit, e.Line)
	}
	s += ": "
	if e.Column != "" {
		s += fmt.Sprintf("column %q: ", e.Column)
	}
	if e.Value != "" {
		s += fmt.Sprintf("%q ", abbreviate(e.Value))
	}
	return s + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// NameError is a column name that cannot be used alike on every engine:
// too long for one of them, or empty. It is a fault of the job's input
// that no rerun fixes (exit 2).
type NameError struct {
	File string
	Line int
	Msg  string
}

func (e *NameError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// reason is why one value is refused, before its location is known.
type reason struct{ msg string }

func (r *reason) Error() string { return r.msg }

func reasonf(format string, args ...any) error { return &reason{msg: fmt.Sprintf(format, args...)} }

// at locates a refused value.
func at(err error, file string, line int, col string, value []byte) error {
	var r *reason
	if errors.As(err, &r) {
		return &Error{File: file, Line: line, Column: col, Value: string(value), Msg: r.msg}
	}
	return err
}
