package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// backfillSummary is the last line of `idem backfill --json`.
type backfillSummary struct {
	Summary    bool     `json:"summary"`
	Job        string   `json:"job"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	Partitions int      `json:"partitions"`
	Loaded     int      `json:"loaded"`
	Skipped    int      `json:"skipped"`
	Failed     []string `json:"failed"`
	NotClosed  []string `json:"not_closed"`
	Locked     []string `json:"locked"`
	NotRun     []string `json:"not_run"`
	Rows       int64    `json:"rows"`
	Workers    int      `json:"workers"`
	DurationMS int64    `json:"duration_ms"`
	ExitCode   int      `json:"exit_code"`
}

// backfillCommand holds `idem backfill`'s flags and what it writes to.
type backfillCommand struct {
	stdout, stderr   io.Writer
	logger           func() *slog.Logger
	red              *job.Redactor
	from, to, asOf   string
	force, allowOpen bool
	asJSON           bool
	parallel         int
	lockTimeout      time.Duration
}

func newBackfillCmd(stdout, stderr io.Writer, logger func() *slog.Logger, red *job.Redactor) *cobra.Command {
	c := &backfillCommand{stdout: stdout, stderr: stderr, logger: logger, red: red}
	cmd := &cobra.Command{
		Use:   "backfill JOB.yaml --from D1 --to D2",
		Short: "Load every partition of a range, each as its own run",
		Long: `Load every partition from --from to --to (both included, at the job's grain), each as its
own run exactly as 'idem run --date' would do it: its own transaction, lock, ledger row and run
id, so a backfill followed by a daily run skips, and the other way round. Lookback does not
apply. Partitions already loaded from the same input are skipped, so rerunning a half-finished
backfill does only the rest. A failed partition does not stop the others.

The job is parsed once and the target opened once per worker, in this one process.
--parallel N runs up to N partitions at once, each on its own connection, on engines with
concurrent writers (PostgreSQL). DuckDB allows one writing process per file, so on DuckDB the
partitions run one after the other in this process, whatever --parallel says.

Exit: 0 when every partition loaded or skipped; 1 when any failed; 75 when none failed but some
were not closed or their lock was not obtained in time, or the target could not be reached (the
summary names them); 2 for a usage, job file or lint error; 130 interrupted (SIGINT or SIGTERM):
the partition in progress rolled back, rerun the same backfill.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd.Context(), args[0]) },
	}
	c.addFlags(cmd.Flags())
	return cmd
}

func (c *backfillCommand) addFlags(f *pflag.FlagSet) {
	f.StringVar(&c.from, "from", "", "the first partition to load (included): 2026-11-01, 2026-11-01T00 or 2026-11")
	f.StringVar(&c.to, "to", "", "the last partition to load (included)")
	f.IntVar(&c.parallel, "parallel", 1, "partitions run at once, one connection each, on engines with concurrent writers (not DuckDB: one writing process per file)")
	f.StringVar(&c.asOf, "as-of", "", asOfUsage)
	f.BoolVar(&c.force, "force", false, "load even if the ledger says this input is already loaded")
	f.BoolVar(&c.allowOpen, "allow-open", false, "load partitions that are not closed yet")
	f.DurationVar(&c.lockTimeout, "lock-timeout", 10*time.Minute, "how long to wait for another run of the same partition")
	f.BoolVar(&c.asJSON, "json", false, "print one JSON object per partition, then one summary object")
}

// run loads the job at path and backfills its range, printing each
// partition as it finishes and then the summary.
func (c *backfillCommand) run(ctx context.Context, path string) error {
	ref, err := asOfTime(c.asOf)
	if err != nil {
		return err
	}
	if c.from == "" || c.to == "" {
		return &exitError{ExitUsage, errors.New("--from and --to are required: they name the first and last partition, both included")}
	}
	if c.parallel < 1 {
		return &exitError{ExitUsage, fmt.Errorf("--parallel %d: give 1 or more", c.parallel)}
	}
	j, err := idem.Load(path)
	if err != nil {
		return &exitError{ExitUsage, err}
	}
	addJobSecrets(c.red, j)
	windows, err := j.Range(c.from, c.to)
	if err != nil {
		return &exitError{ExitUsage, err}
	}
	if c.parallel > 1 && !idem.ConcurrentWriters(j.Target.URL) {
		fmt.Fprintf(c.stderr, "idem: note: DuckDB allows one writing process per file; the %d partitions run one after the other in this process (--parallel %d has no effect)\n",
			len(windows), c.parallel)
	}
	var prog *progress
	if !c.asJSON && isTerminal(c.stderr) {
		// Not throttled: a partition's two updates (its rows, then
		// the count) must both be drawn, or a slow next partition
		// would leave the last one's count on screen the while.
		prog = newBackfillProgress(c.stderr, len(windows), 0)
	}
	began := time.Now()
	sum := backfillSummary{Summary: true, Job: j.Name, From: c.from, To: c.to, Partitions: len(windows)}
	out := newOutside(windows[0].Label, windows[len(windows)-1].Label, "the backfill's range")
	b, err := idem.Backfill(ctx, j, idem.BackfillOptions{
		Options: idem.Options{AsOf: ref, Force: c.force, AllowOpen: c.allowOpen, LockTimeout: c.lockTimeout,
			Faults: runner.Faults{CrashAt: os.Getenv(crashAtEnvVar), WaitAt: os.Getenv(waitAtEnvVar), WaitFor: os.Getenv(waitForEnvVar)}, Logger: c.logger()},
		From: c.from, To: c.to, Parallel: c.parallel,
		Each: c.printEach(j, out, &sum, prog),
	})
	prog.finish()
	out.print(c.stderr, j.Name)
	if b == nil { // the target could not be opened: nothing ran
		return c.notStarted(sum, windows, began, err)
	}
	return c.finish(sum, b, began, err)
}

// printEach returns the callback that counts each partition's result into
// sum and prints it as it finishes.
func (c *backfillCommand) printEach(j *job.Job, out *outside, sum *backfillSummary, prog *progress) func(runner.Result, error) {
	return func(r runner.Result, err error) {
		switch r.Action {
		case runner.ActionLoaded:
			sum.Loaded++
			sum.Rows += r.RowCount
		case runner.ActionSkipped:
			sum.Skipped++
		}
		prog.clear()
		out.add(r)
		printBackfillResult(c.stdout, c.stderr, j, r, c.asJSON)
		if err != nil {
			fmt.Fprintf(c.stderr, "idem: %v\n", err)
		}
		prog.partitionDone(r.RowCount)
	}
}

// notStarted is the exit of a backfill whose target could not be opened:
// with --json, a summary naming every partition as not run.
func (c *backfillCommand) notStarted(sum backfillSummary, windows []job.Window, began time.Time, err error) error {
	code := exitCode(err)
	if c.asJSON {
		for _, w := range windows {
			sum.NotRun = append(sum.NotRun, w.Label)
		}
		sum.ExitCode, sum.DurationMS = code, time.Since(began).Milliseconds()
		printBackfillSummary(c.stdout, sum, true)
	}
	return &exitError{code, err}
}

// finish prints the summary of a backfill that ran and returns its exit.
func (c *backfillCommand) finish(sum backfillSummary, b *idem.Backfilled, began time.Time, err error) error {
	sum.Failed, sum.NotClosed, sum.Locked, sum.NotRun, sum.Workers = b.Failed, b.NotClosed, b.Locked, b.NotRun, b.Workers
	sum.DurationMS = time.Since(began).Milliseconds()
	code := ExitOK
	switch {
	case err != nil:
		code = exitCode(err)
	case len(b.Failed) > 0:
		code = ExitFailed
	case len(b.NotClosed) > 0 || len(b.Locked) > 0:
		code = ExitTempFail
	}
	sum.ExitCode = code
	printBackfillSummary(c.stdout, sum, c.asJSON)
	if code == ExitOK {
		return nil
	}
	if err != nil {
		return &exitError{code, err}
	}
	return &exitError{code, errQuiet}
}

// printBackfillResult prints a partition's result as run does, but for
// the stderr note on out-of-window rows: the backfill gathers those
// (outside) into one note at its end.
func printBackfillResult(w, stderr io.Writer, j *job.Job, r runner.Result, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(r)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	r.OutOfWindow = nil // noted once, at the end
	printResult(w, stderr, j, r, false)
}

// outside gathers a backfill's input rows that belong to partitions
// outside its range (the backfill loads the others itself), for one note
// at its end instead of one per partition. Runs that read one input (one
// file for the whole range) each report its rows: an input is counted
// once, by its fingerprint.
type outside struct {
	first, last string
	what        string           // the range, as the note names it
	seen        map[string]bool  // input fingerprints counted
	rows        map[string]int64 // per partition outside the range
	unlisted    int64            // rows a run counted but did not list (further away, or no partition value)
}

func newOutside(first, last, what string) *outside {
	return &outside{first: first, last: last, what: what, seen: map[string]bool{}, rows: map[string]int64{}}
}

func (o *outside) add(r runner.Result) {
	if r.RowsOutOfWindow == 0 || o.seen[r.InputFingerprint] {
		return
	}
	o.seen[r.InputFingerprint] = true
	rest := r.RowsOutOfWindow
	for _, p := range r.OutOfWindow {
		rest -= p.Rows
		if p.Partition < o.first || p.Partition > o.last { // labels sort as their times
			o.rows[p.Partition] += p.Rows
		}
	}
	o.unlisted += rest
}

// maxListed is how many partitions the note names; it counts the rest.
const maxListed = 10

// print writes the note, if any row was outside the range.
func (o *outside) print(stderr io.Writer, jobName string) {
	parts := slices.Sorted(maps.Keys(o.rows))
	total := o.unlisted
	var listed []string
	for i, p := range parts {
		total += o.rows[p]
		if i < maxListed {
			listed = append(listed, fmt.Sprintf("%s (%d)", p, o.rows[p]))
		}
	}
	if total == 0 {
		return
	}
	if n := len(parts) - maxListed; n > 0 {
		listed = append(listed, fmt.Sprintf("%d more partitions", n))
	}
	if o.unlisted > 0 {
		listed = append(listed, fmt.Sprintf("%d rows in partitions further away (or with no partition value)", o.unlisted))
	}
	fmt.Fprintf(stderr, "idem: %s %s..%s: %d input rows belong to partitions outside %s and were not written: %s; run those partitions to load them\n",
		jobName, o.first, o.last, total, o.what, strings.Join(listed, ", "))
}

func printBackfillSummary(w io.Writer, s backfillSummary, asJSON bool) {
	if asJSON {
		for _, l := range []*[]string{&s.Failed, &s.NotClosed, &s.Locked, &s.NotRun} {
			if *l == nil {
				*l = []string{} // a list, never null, for jq
			}
		}
		b, _ := json.Marshal(s)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	fmt.Fprintf(w, "%s %s..%s: %d partitions: %d loaded (%d rows), %d skipped, %d failed, %d not closed, %d locked",
		s.Job, s.From, s.To, s.Partitions, s.Loaded, s.Rows, s.Skipped, len(s.Failed), len(s.NotClosed), len(s.Locked))
	if len(s.NotRun) > 0 {
		fmt.Fprintf(w, ", %d not run", len(s.NotRun))
	}
	fmt.Fprintf(w, " (%d ms)\n", s.DurationMS)
	for _, l := range []struct {
		what  string
		parts []string
		next  string
	}{
		{"failed", s.Failed, "fix the cause and rerun the same backfill: it loads only what is missing"},
		{"not closed", s.NotClosed, "rerun once they close, or pass --allow-open"},
		{"locked", s.Locked, "another run held them; rerun the backfill"},
		{"not run", s.NotRun, "the backfill stopped before them"},
	} {
		if len(l.parts) > 0 {
			fmt.Fprintf(w, "  %s: %s (%s)\n", l.what, strings.Join(l.parts, ", "), l.next)
		}
	}
}
