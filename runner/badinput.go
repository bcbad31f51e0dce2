package runner

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/source"
)

// headerProblems checks, before anything is read into the database, that
// the CSV files' headers hold every column the job names (partition.column,
// key, latest_by, columns:), so a typo is a job-file error with its path
// and line, reported with the job's other problems. A file whose structure
// is broken (a prose file's "header") is bad input instead: exit 1, named
// by file and line, and so is a header with an empty or repeated name
// (headers).
func (r *run) headerProblems() ([]job.Problem, error) {
	j := r.job
	if !j.Source.HasFiles() || j.Source.Format != "csv" {
		return nil, nil
	}
	globs := make([]string, len(j.Source.Files))
	for i, f := range j.Source.Files {
		globs[i] = job.RenderPath(f, r.w)
	}
	files, err := source.Files(j.Dir, globs)
	if err != nil || len(files) == 0 {
		return nil, nil // the run reports it where it reads the files
	}
	have, bad := headers(files)
	if bad != nil {
		return nil, bad
	}
	if have == nil {
		return nil, nil // a header it cannot read: the run names it where it reads the file
	}
	ps := r.missingColumns(have)
	if len(ps) == 0 {
		return nil, nil
	}
	for _, f := range files {
		if delim, err := source.CSVDelimiter(f); err == nil {
			if bad := source.CheckCSV(f, delim); bad != nil {
				return nil, located(bad, nil)
			}
		}
	}
	return ps, nil
}

// headers returns the columns the files' headers name (a name padded with
// spaces counts as the name), nil when a header cannot be read, and as
// bad input, named by file and line, a header a reader would invent names
// for: a first line naming no column (only blank lines, or a byte order
// mark), an empty name (column2), or a name given twice (n_1; names are
// compared without case, as DuckDB compares them); and a file naming other
// columns than the first. It reads each file's first line.
func headers(files []string) (have []string, bad error) {
	var first []string // the first readable file's names, lower case
	var firstFile string
	readable := true
	for _, f := range files {
		delim, err := source.CSVDelimiter(f)
		if err != nil {
			readable = false
			continue
		}
		h, err := source.CSVHeader(f, delim)
		if err != nil {
			readable = false
			continue // CheckCSV names it where the run reads the file
		}
		names, bad := headerNames(f, delim, h)
		if bad != nil {
			return nil, bad
		}
		if first == nil {
			first, firstFile = names, f
			for _, c := range h {
				have = append(have, strings.TrimSpace(c))
			}
			continue
		}
		if extra, lacks := setDiff(names, first), setDiff(first, names); len(extra)+len(lacks) > 0 {
			return nil, located(&source.LineError{File: f, Line: 1, Err: fmt.Errorf(
				"its header names other columns than %s's (more: %s; fewer: %s): every file must name the same columns, in any order",
				filepath.Base(firstFile), listOrNone(extra), listOrNone(lacks))}, nil)
		}
	}
	if !readable {
		return nil, nil
	}
	return have, nil
}

// headerNames returns the names of file f's header h, lower case and
// sorted, or why the header is bad input (see headers).
func headerNames(f string, delim byte, h []string) ([]string, error) {
	if len(h) == 0 || slices.ContainsFunc(h, func(c string) bool { return strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")) == "" }) {
		// A line of blanks, or a spreadsheet's "sep=;", is named by
		// CheckCSV, which stops there; any other line reads on.
		if bad := source.CheckCSV(f, delim); bad != nil {
			var le *source.LineError
			if !errors.As(bad, &le) || le.Line == 1 {
				return nil, located(bad, nil)
			}
		}
	}
	seen := map[string]int{}
	for i, c := range h {
		name := strings.ToLower(strings.TrimSpace(c))
		at := func(format string, args ...any) ([]string, error) {
			return nil, located(&source.LineError{File: f, Line: 1, Err: fmt.Errorf(format, args...)}, nil)
		}
		if name == "" {
			return at("field %d of the header is empty: every column needs a name", i+1)
		}
		if j, twice := seen[name]; twice {
			return at("the header names column %q twice (fields %d and %d; names are compared without case)", strings.TrimSpace(c), j+1, i+1)
		}
		seen[name] = i
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// setDiff returns the names of a (sorted) that b (sorted) lacks.
func setDiff(a, b []string) []string {
	var out []string
	for _, n := range a {
		if _, found := slices.BinarySearch(b, n); !found {
			out = append(out, n)
		}
	}
	return out
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// missingColumns are the job's columns that are not in have, each with a
// suggestion and the line under columns: where it is named.
func (r *run) missingColumns(have []string) []job.Problem {
	var ps []job.Problem
	for _, rc := range r.job.RequiredColumns() {
		if slices.Contains(have, rc[1]) {
			continue
		}
		msg := fmt.Sprintf("column %q is not in the source (its columns: %s)", rc[1], strings.Join(have, ", "))
		if s := job.Closest(rc[1], have); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		p := job.Problem{Path: rc[0], Msg: msg}
		if c, ok := strings.CutPrefix(rc[0], "columns."); ok {
			p.Line = r.job.Pos.Columns[c]
		}
		ps = append(ps, p)
	}
	return ps
}

// explainFiles finds, in input files a reader failed on, what is wrong
// with them, by file and line: a CSV's structure, encoding or a value its
// column's type cannot take; a line of JSON Lines that is not JSON; a file
// that is not Parquet. nil when it finds nothing.
func (r *run) explainFiles(files []string) error {
	for _, f := range files {
		var bad error
		switch r.job.Source.Format {
		case "csv":
			delim, err := source.CSVDelimiter(f)
			if err != nil {
				return err
			}
			if bad = source.CheckCSV(f, delim); bad == nil {
				bad = source.CheckValues(f, delim, r.valueKinds())
			}
		case "jsonl":
			bad = source.CheckJSONL(f)
		case "parquet":
			bad = source.CheckParquet(f)
		}
		if bad != nil {
			return bad
		}
	}
	return nil
}

// valueKinds is what each column's values must parse as: the target's
// column type where the table exists (an INSERT casts to it), else the type
// the job declares.
func (r *run) valueKinds() map[string]source.Kind {
	kinds := map[string]source.Kind{}
	for c, t := range r.job.Columns {
		kinds[c] = source.KindOfType(t)
	}
	for _, c := range r.targetCols {
		if k := source.KindOfType(c.Type); k != source.KindOther {
			kinds[c.Name] = k
		}
	}
	return kinds
}

// explainInsert turns a failed INSERT from input files into bad input
// naming the file, line, column and value the target's column cannot take,
// when one is found; else it returns err.
func (r *run) explainInsert(err error) error {
	if len(r.files) == 0 || r.job.Source.Format != "csv" || (r.ctx != nil && r.ctx.Err() != nil) {
		return err
	}
	if bad := r.explainFiles(r.files); bad != nil {
		return located(bad, err)
	}
	return err
}

// badTimeValue explains a partition column the reader typed as text that
// holds dates or timestamps but also a value that is not one: that value,
// by file and line, as bad input. nil when no value is a date (the job
// names the wrong column) or every value is (the job must give its type).
func (r *run) badTimeValue(col string) error {
	if len(r.files) == 0 || r.job.Source.Format != "csv" {
		return nil
	}
	var first error
	dates := 0
	for _, f := range r.files {
		delim, err := source.CSVDelimiter(f)
		if err != nil {
			return nil
		}
		bad, good, err := source.CheckColumn(f, delim, col, source.KindTimestamp)
		if err != nil {
			return nil
		}
		dates += good
		if first == nil {
			first = bad
		}
	}
	if first == nil || dates == 0 {
		return nil
	}
	e := located(first, nil)
	e.Msg += "; the partition column's other values are dates or timestamps"
	return e
}

// condense shortens a reader's error for a message: DuckDB's repeats the
// offending line (which may be megabytes long), its options and the query.
func condense(err error) string {
	var keep []string
	for _, l := range strings.Split(err.Error(), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(l, "  ") || strings.HasPrefix(t, "Original Line:") ||
			strings.HasPrefix(t, "LINE ") || strings.HasPrefix(t, "^") {
			continue
		}
		if len(t) > 300 {
			t = t[:300] + "…"
		}
		keep = append(keep, t)
	}
	if len(keep) == 0 {
		return err.Error()
	}
	return strings.Join(keep, "; ")
}
