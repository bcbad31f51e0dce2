package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
)

// ExitStatus is `idem status`'s exit when some partition of the range is
// missing, failed or loaded while open: a scheduler's check task fails on it.
const ExitStatus = 3

// statusSummary is the last line of `idem status --json`.
type statusSummary struct {
	Summary    bool     `json:"summary"`
	Job        string   `json:"job"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	Partitions int      `json:"partitions"`
	Missing    []string `json:"missing"`
	Failed     []string `json:"failed"`
	Open       []string `json:"open"`
	// Table is a merge job's target now (absent for a partition job).
	Table    *idem.TableState `json:"table,omitempty"`
	ExitCode int              `json:"exit_code"`
}

// statusCommand holds `idem status`'s flags and where it prints.
type statusCommand struct {
	stdout      io.Writer
	red         *job.Redactor
	from, to    string
	asJSON      bool
	history     bool
	lockTimeout time.Duration
}

func newStatusCmd(stdout, stderr io.Writer, red *job.Redactor) *cobra.Command {
	c := &statusCommand{stdout: stdout, red: red}
	cmd := &cobra.Command{
		Use:   "status JOB.yaml [--from D1 --to D2]",
		Short: "Show what the ledger holds for each partition: loaded, missing, failed or open",
		Long: `Show, from the target's ledger, one line per partition: its state, the last committed
run (rows, checksum, run id, whether it was loaded while open, when it finished) and its last
failed attempt (recorded in idem_failures) with whether a later run fixed it. The range is
--from..--to (both included), or else every partition between the first and the last the
ledger knows, so the gaps (partitions never loaded) show.

States: loaded; open (loaded while open and not confirmed since it closed: run it again once
it is closed); failed (the latest attempt failed; the partition keeps what the last committed
run wrote, if any); missing (never loaded). A partition loaded from input objects (s3://,
https://) lists them under it: each object's URL, identity (ETag), size and the hash of the
bytes its last run read ("objects" in --json).

With --history, every committed run of each partition instead (from idem_runs, in the order
they committed): its run id, input fingerprint, counts, row count and checksum, whether the
partition was closed, and when it started and finished; the last run of a partition is the
one its rows come from. --json prints one object per run.

A merge job's runs are listed as they are (its runs write the whole table, so no partition
is missing between them; a run's rows are the rows it wrote), then the table's row count now,
and whether it differs from what the job's last run left (dropped, emptied or edited outside
idem).

Exit: 0 when every partition of the range is loaded and closed (and a merge job's table holds
what its last run left); 3 when some are missing, failed or open, a merge job's table changed,
or nothing is recorded; 2 for a usage or job file error; 75 when a DuckDB
file was held past --lock-timeout, or the target could not be reached. With --history: 0, or
2 or 75 as above. status writes nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd.Context(), args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&c.from, "from", "", "the first partition to report (included)")
	f.StringVar(&c.to, "to", "", "the last partition to report (included)")
	f.BoolVar(&c.asJSON, "json", false, "print one JSON object per partition, then one summary object (--history: one per run)")
	f.BoolVar(&c.history, "history", false, "list every committed run of each partition, not only the last")
	f.DurationVar(&c.lockTimeout, "lock-timeout", time.Minute, "how long to wait for a DuckDB file another process holds")
	return cmd
}

// run prints the ledger's state of each partition of the job at path, or
// with --history every committed run.
func (c *statusCommand) run(ctx context.Context, path string) error {
	if (c.from == "") != (c.to == "") {
		return &exitError{ExitUsage, fmt.Errorf("give both --from and --to, or neither")}
	}
	j, err := idem.Load(path)
	if err != nil {
		return &exitError{ExitUsage, err}
	}
	addJobSecrets(c.red, j)
	if c.history {
		h, err := idem.ReadHistory(ctx, j, c.from, c.to, c.lockTimeout)
		if err != nil {
			return &exitError{exitCode(err), err}
		}
		printHistory(c.stdout, h, c.asJSON)
		return nil
	}
	s, err := idem.ReadStatus(ctx, j, c.from, c.to, c.lockTimeout)
	if err != nil {
		return &exitError{exitCode(err), err}
	}
	code := ExitOK
	if !s.OK() {
		code = ExitStatus
	}
	printStatus(c.stdout, s, code, c.asJSON)
	if code != ExitOK {
		return &exitError{code, errQuiet}
	}
	return nil
}

func printStatus(w io.Writer, s *idem.Status, code int, asJSON bool) {
	if asJSON {
		for _, p := range s.Partitions {
			b, _ := json.Marshal(p)
			fmt.Fprintf(w, "%s\n", b)
		}
		sum := statusSummary{Summary: true, Job: s.Job, From: s.From, To: s.To, Partitions: len(s.Partitions),
			Missing: orEmpty(s.Missing), Failed: orEmpty(s.Failed), Open: orEmpty(s.Open), Table: s.Table, ExitCode: code}
		b, _ := json.Marshal(sum)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	if len(s.Partitions) == 0 {
		fmt.Fprintf(w, "%s: no runs recorded\n", s.Job)
		printTable(w, s.Table)
		return
	}
	rows := "rows" // a partition's rows; a merge run's are the rows it wrote
	if s.Table != nil {
		rows = "rows written"
	}
	for _, p := range s.Partitions {
		line := fmt.Sprintf("%s  %-7s", p.Partition, p.State)
		if p.RunID != "" {
			open := "closed"
			if p.LoadedOpen {
				open = "loaded while open"
			}
			line += fmt.Sprintf("  %d %s  checksum %s  run %s  %s  finished %s", p.RowCount, rows, p.Checksum, short(p.RunID), open, p.FinishedAt)
		}
		if f := p.LastFailure; f != nil {
			what := "last failure"
			if f.Fixed {
				what = "fixed failure"
			}
			run := "before its run id was known"
			if f.RunID != "" {
				run = "run " + short(f.RunID)
			}
			line += fmt.Sprintf("  %s %s (%s): %s", what, f.FailedAt, run, oneLine(f.Error))
		}
		for _, o := range p.Objects {
			line += fmt.Sprintf("\n    %s  identity %s  %d bytes  sha256 %s", o.URL, o.Identity, o.Size, short(o.SHA256))
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	printSummary(w, s)
}

// printSummary prints status's last lines: the counts of each state, a
// merge job's table, and the partitions that need something done.
func printSummary(w io.Writer, s *idem.Status) {
	if s.Table != nil {
		fmt.Fprintf(w, "%s %s..%s: %d merge runs, %d loaded, %d failed, %d open\n", s.Job, s.From, s.To,
			len(s.Partitions), len(s.Partitions)-len(s.Failed)-len(s.Open), len(s.Failed), len(s.Open))
	} else {
		fmt.Fprintf(w, "%s %s..%s: %d partitions, %d loaded, %d missing, %d failed, %d open\n", s.Job, s.From, s.To,
			len(s.Partitions), len(s.Partitions)-len(s.Missing)-len(s.Failed)-len(s.Open), len(s.Missing), len(s.Failed), len(s.Open))
	}
	printTable(w, s.Table)
	for _, l := range []struct {
		what  string
		parts []string
		next  string
	}{
		{"missing", s.Missing, "idem backfill loads them"},
		{"failed", s.Failed, "fix the cause and run them again"},
		{"open", s.Open, "loaded while open: run them again once closed to confirm"},
	} {
		if len(l.parts) > 0 {
			fmt.Fprintf(w, "  %s: %s (%s)\n", l.what, strings.Join(l.parts, ", "), l.next)
		}
	}
}

// printTable prints a merge job's table now, and how it differs from what
// the last run left.
func printTable(w io.Writer, t *idem.TableState) {
	switch {
	case t == nil:
	case !t.Exists:
		fmt.Fprintf(w, "  table %s: does not exist\n", t.Name)
	default:
		fmt.Fprintf(w, "  table %s: %d rows\n", t.Name, t.Rows)
	}
	if t != nil && t.Changed != "" {
		fmt.Fprintf(w, "  changed: %s, outside idem (rebuild: drop it, then idem backfill --force over its inputs)\n", t.Changed)
	}
}

func printHistory(w io.Writer, h *idem.History, asJSON bool) {
	if asJSON {
		for _, r := range h.Runs {
			b, _ := json.Marshal(r)
			fmt.Fprintf(w, "%s\n", b)
		}
		return
	}
	if len(h.Runs) == 0 {
		fmt.Fprintf(w, "%s: no runs recorded\n", h.Job)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "partition\tseq\trun\tinput\trows in\tdeduped\tout of window\tinserted\tupdated\tdeleted\trow count\tchecksum\tclosed\tstarted\tfinished")
	for _, r := range h.Runs {
		part := r.Partition
		if r.Latest {
			part += " *"
		}
		closed := "yes"
		if !r.PartitionClosed {
			closed = "no"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", part, r.Seq, short(r.RunID), short(r.InputFingerprint),
			r.RowsIn, r.RowsDeduped, r.RowsOutOfWindow, r.Inserted, r.Updated, r.Deleted, r.RowCount, r.Checksum, closed, r.StartedAt, r.FinishedAt)
	}
	tw.Flush()
	fmt.Fprintf(w, "%s: %d runs (* the run each partition's rows come from)\n", h.Job, len(h.Runs))
}

func orEmpty(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// oneLine keeps a multi-line error on its partition's line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
