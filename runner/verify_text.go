package runner

import (
	"fmt"
	"io"
)

// WriteText writes the report as `idem verify` prints it: the verdict with
// both runs' figures, then what differs, in terms a user can act on.
func (r *VerifyReport) WriteText(w io.Writer) {
	r.writeVerdict(w)
	r.writeColumns(w)
	for _, row := range r.Rows {
		fmt.Fprintf(w, "  %s\n", row)
	}
	if r.Change != nil {
		r.Change.writeText(w)
	}
}

// writeVerdict writes the first line: the verdict, why, and the figures.
func (r *VerifyReport) writeVerdict(w io.Writer) {
	head := fmt.Sprintf("%s %s", r.Job, r.Partition)
	figs := fmt.Sprintf("run 1: %d rows, checksum %s; run 2: %d rows, checksum %s",
		r.First.RowCount, r.First.Checksum, r.Second.RowCount, r.Second.Checksum)
	if r.RerunWritten != nil {
		figs += fmt.Sprintf("; the same snapshot merged again changed %d rows", *r.RerunWritten)
	}
	if r.Verdict == VerdictPass {
		fmt.Fprintf(w, "%s: PASS: two runs gave the same table (%s)\n", head, figs)
	} else {
		fmt.Fprintf(w, "%s: FAIL: %s (%s)\n", head, r.Reason, figs)
	}
}

// writeColumns writes a line per differing column, and a hint when one
// differs in every row.
func (r *VerifyReport) writeColumns(w io.Writer) {
	every := false
	for _, c := range r.Columns {
		where := ""
		if c.Key != "" {
			where = " at " + c.Key + ":"
		}
		fmt.Fprintf(w, "  column %s differs in %d of %d rows; e.g.%s run 1 %s, run 2 %s\n", c.Column, c.Rows, c.Of, where, c.First, c.Second)
		every = every || (c.Of > 0 && c.Rows == c.Of)
	}
	if every {
		fmt.Fprintf(w, "  a column that changes on every run points at a clock (now(), current_timestamp) or a random value (random(), uuid()) in the transform\n")
	}
}

// writeText writes the change-one-row check's lines.
func (c *ChangeCheck) writeText(w io.Writer) {
	if c.Verdict == ChangeSkipped {
		fmt.Fprintf(w, "  change one row: not checked: %s\n", c.Note)
		return
	}
	what := fmt.Sprintf("%s line %d, %s %q -> %q", c.File, c.Line, c.Column, c.From, c.To)
	scope := "that row"
	if c.Key != "" {
		scope = "the rows of " + c.Key
	}
	if c.Verdict == VerdictPass {
		note := ""
		if c.Note != "" {
			note = " (" + c.Note + ")"
		}
		fmt.Fprintf(w, "  change one row (%s): only %s changed%s\n", what, scope, note)
		return
	}
	fmt.Fprintf(w, "  change one row (%s): more than %s changed:\n", what, scope)
	for _, s := range c.Removed {
		fmt.Fprintf(w, "    - %s\n", s)
	}
	for _, s := range c.Added {
		fmt.Fprintf(w, "    + %s\n", s)
	}
}
