package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/job"
)

// showCell is the widest a value is printed in the table (--json prints it
// whole).
const showCell = 40

// showCommand holds `idem show`'s flags and where it prints.
type showCommand struct {
	stdout      io.Writer
	red         *job.Redactor
	date        string
	limit       int
	asJSON      bool
	lockTimeout time.Duration
}

func newShowCmd(stdout io.Writer, red *job.Redactor) *cobra.Command {
	c := &showCommand{stdout: stdout, red: red}
	cmd := &cobra.Command{
		Use:   "show JOB.yaml [--date D]",
		Short: "Print the first rows of a job's target table, or of one partition (read-only)",
		Long: `Print the first rows of the job's target table, or with --date of that partition, so what a run
loaded can be seen without a database client. Rows are ordered by the job's key, then by every
column (text compared byte for byte, NULL last), so the same rows print the same way on every
engine and whatever order they were written in. The target is opened read-only, as by
'idem checksum': show writes nothing and creates no file.

The table is aligned text, values cut at 40 characters and NULL shown as NULL, under a line
giving the rows shown of how many; --json prints one JSON object per row instead, in column
order, with every value whole: numbers and booleans as JSON numbers and booleans, NULL as
null, anything else as the engine prints it, as a string. A merge job's --date names a run,
not rows of the table, so it is refused: show the whole table.

Exit: 0 when the rows were read; 1 when they could not be (no table yet: no run has loaded
it); 2 for a usage or job file error; 75 when a DuckDB file was held past --lock-timeout, or
the target could not be reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd.Context(), args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&c.date, "date", "", "show only this partition: 2026-11-28 (day), 2026-11-28T13 (hour) or 2026-11 (month)")
	f.IntVar(&c.limit, "limit", 20, "the most rows to print")
	f.BoolVar(&c.asJSON, "json", false, "print one JSON object per row")
	f.DurationVar(&c.lockTimeout, "lock-timeout", time.Minute, "how long to wait for a DuckDB or chDB file another process holds")
	return cmd
}

// run prints the first rows of the target table of the job at path, or of
// the partition --date names.
func (c *showCommand) run(ctx context.Context, path string) error {
	if c.limit < 1 {
		return &exitError{ExitUsage, fmt.Errorf("--limit %d: give 1 or more", c.limit)}
	}
	j, err := idem.Load(path)
	if err != nil {
		return &exitError{ExitUsage, err}
	}
	addJobSecrets(c.red, j)
	if c.date != "" {
		if j.Strategy != job.StrategyPartition {
			return &exitError{ExitUsage, fmt.Errorf("--date: job %s merges into one table, and its --date names a run, not rows of the table; leave --date out to show the table", j.Name)}
		}
		if _, err := j.Window(c.date); err != nil {
			return &exitError{ExitUsage, err}
		}
	}
	s, err := idem.Show(ctx, j, c.date, c.limit, c.lockTimeout)
	if err != nil {
		code := exitCode(err)
		if errors.Is(err, idem.ErrNoTable) {
			code = ExitFailed
		}
		return &exitError{code, err}
	}
	if c.asJSON {
		printShownJSON(c.stdout, s)
	} else {
		printShown(c.stdout, s)
	}
	return nil
}

func printShown(w io.Writer, s *idem.Shown) {
	what := s.Table
	if s.Partition != "" {
		what += " partition " + s.Partition
	}
	fmt.Fprintf(w, "%s: %d of %d rows, ordered by %s\n", what, len(s.Rows), s.Total, strings.Join(s.OrderedBy, ", "))
	if len(s.Rows) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	names := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		names[i] = c.Name
	}
	fmt.Fprintln(tw, strings.Join(names, "\t"))
	for _, r := range s.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = cell(v)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// cell is a value as the table prints it: on one line (control characters
// escaped, so a value cannot break the alignment), at most showCell
// characters.
func cell(v *string) string {
	if v == nil {
		return "NULL"
	}
	var b strings.Builder
	n := 0
	for _, r := range *v {
		if n == showCell {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

// printShownJSON prints one object per row, its keys in column order.
func printShownJSON(w io.Writer, s *idem.Shown) {
	for _, r := range s.Rows {
		var b strings.Builder
		b.WriteByte('{')
		for i, v := range r {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(s.Columns[i].Name)
			b.Write(k)
			b.WriteByte(':')
			b.Write(jsonValue(v, s.Kinds[i]))
		}
		b.WriteString("}\n")
		io.WriteString(w, b.String())
	}
}

// jsonValue is a value printed by the engine as JSON: a number or a
// boolean as one when the engine's text is one, JSON as itself, anything
// else as a string.
func jsonValue(v *string, k input.Kind) []byte {
	if v == nil {
		return []byte("null")
	}
	switch k {
	case input.Int, input.Decimal, input.Float:
		if isJSONNumber(*v) {
			return []byte(*v)
		}
	case input.Bool:
		if *v == "true" || *v == "false" {
			return []byte(*v)
		}
	case input.JSON:
		if json.Valid([]byte(*v)) {
			return []byte(*v)
		}
	}
	b, _ := json.Marshal(*v)
	return b
}

// isJSONNumber reports whether s is a number as JSON writes one (no
// leading "+", "Infinity" or "NaN").
func isJSONNumber(s string) bool {
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	return json.Valid([]byte(s))
}
