package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
)

// headerProblems checks, before anything is read into the database, that
// the CSV files' headers hold every column the job names (partition.column,
// key, latest_by, columns:), so a typo is a job-file error with its path
// and line, reported with the job's other problems. A header the reader
// refuses (an empty or repeated name, a file naming other columns than
// the first) is bad input instead, by file and line.
func (r *run) headerProblems(ctx context.Context) ([]job.Problem, error) {
	j := r.job
	if !j.Source.HasFiles() || j.Source.Format != "csv" {
		return nil, nil
	}
	files, err := input.List(j.Dir, renderGlobs(j, r.w))
	if err != nil || len(files) == 0 {
		return nil, nil // the run reports it where it reads the files
	}
	have, err := input.Headers(files)
	if err != nil {
		return nil, r.readError(err)
	}
	ps := r.missingColumns(have)
	if len(ps) > 0 {
		// A file that is no CSV at all (prose) has a "header" naming
		// none of the job's columns: its first bad line says more.
		if _, err := input.Scan(ctx, input.Spec{Paths: files, Format: "csv"}); err != nil {
			return nil, r.readError(err)
		}
	}
	return ps, nil
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
