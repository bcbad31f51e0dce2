// Package cli is the idem command line: flags, human and JSON output, and
// exit codes. Errors are printed here, once.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// Exit codes (SPEC.md): runner's, which its tests check.
const (
	ExitOK          = runner.ExitOK
	ExitFailed      = runner.ExitFailed
	ExitUsage       = runner.ExitUsage
	ExitVerify      = runner.ExitVerify
	ExitTempFail    = runner.ExitTempFail
	ExitInterrupted = runner.ExitInterrupted
	crashAtEnvVar   = "IDEM_CRASH_AT"
	waitAtEnvVar    = "IDEM_WAIT_AT"  // tests: stop at a step until a signal
	waitForEnvVar   = "IDEM_WAIT_FOR" // tests: with IDEM_WAIT_AT, go on once this file exists
)

// secretEnv are the variables whose whole value is a secret: the
// database's password, and the object stores' keys and tokens (their
// standard credential chains read them).
var secretEnv = []string{"PGPASSWORD", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_CLIENT_SECRET"}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Run runs the idem command line and returns the process exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Everything idem prints passes one redactor. It knows the passwords
	// of every URL on the command line and in the environment (a job's
	// ${VAR}) from the start, and the job's target once it is loaded.
	red := job.NewRedactor(args...)
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.Contains(v, "://") || slices.Contains(secretEnv, k) {
			red.Add(job.Secrets(v)...)
			if slices.Contains(secretEnv, k) {
				red.Add(v)
			}
		}
	}
	stdout, stderr = red.Writer(stdout), red.Writer(stderr)
	root := newRoot(stdout, stderr, red)
	root.SetFlagErrorFunc(suggestFlag)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err != errQuiet {
			fmt.Fprintf(stderr, "idem: %v\n", ee.err)
		}
		return ee.code
	}
	// Anything cobra itself rejects (unknown command or flag) is usage.
	fmt.Fprintf(stderr, "idem: %v\nRun 'idem --help' for usage.\n", err)
	return ExitUsage
}

// Command is the command tree as Run builds it (with cobra's completion
// command), writing nowhere: for generating the reference from it.
func Command() *cobra.Command {
	root := newRoot(io.Discard, io.Discard, job.NewRedactor())
	root.InitDefaultCompletionCmd()
	return root
}

// suggestFlag adds "did you mean --date?" to an unknown flag's error.
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var known []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { known = append(known, f.Name) })
	if s := job.Closest(name, known); s != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, s)
	}
	return err
}

// envFlags are the flags an environment variable may give (IDEM_ and the
// flag's name in capitals, - as _): settings a deployment sets once. Not
// the flags that name what to act on (--date, --from, --to, --where,
// --exclude, lint's --target) nor --force and --history: a variable left
// in a shell would then load a partition nobody named on the command line,
// or silently turn every skip into a reload.
var envFlags = []string{"as-of", "lock-timeout", "allow-open", "parallel", "json", "limit", "verbose"}

// EnvVar is the environment variable that gives flag, or "" for a flag
// none gives.
func EnvVar(flag string) string {
	if !slices.Contains(envFlags, flag) {
		return ""
	}
	return "IDEM_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// applyEnv sets each flag the command line did not give from its
// environment variable: flag > environment > (job file >) default. An
// empty variable counts as unset.
func applyEnv(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		name := EnvVar(f.Name)
		if name == "" || f.Changed || err != nil {
			return
		}
		if v := os.Getenv(name); v != "" {
			if serr := f.Value.Set(v); serr != nil {
				err = &exitError{ExitUsage, fmt.Errorf("environment variable %s=%q (for --%s): %v", name, v, f.Name, serr)}
			}
		}
	})
	return err
}

// errQuiet marks an exit whose reason was already printed.
var errQuiet = errors.New("")

func newRoot(stdout, stderr io.Writer, red *job.Redactor) *cobra.Command {
	root := &cobra.Command{
		Use:   "idem",
		Short: "Run data load jobs that are idempotent by construction",
		Long: `idem runs data load jobs that leave the target table the same whether they run once or three times.

Exit codes (each command's help says which it uses):
  0    success: loaded or skipped, verify passed, status complete, lint clean
  1    the run failed; the target is unchanged
  2    usage, job file or lint error; nothing was touched
  3    verify found the job not idempotent; status found partitions missing, failed or open
  75   try again later: not closed yet, locked, the target unreachable, or the source lost
  130  interrupted (SIGINT or SIGTERM); rolled back

The settings among the flags (--as-of, --lock-timeout, --allow-open, --parallel, --json,
--limit, --verbose) can also be given as environment variables, IDEM_ and the flag's name:
IDEM_LOCK_TIMEOUT=30m, IDEM_AS_OF=2026-11-30. A flag on the command line wins. Every flag and
variable: docs/reference.md.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       runner.Version,
	}
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return applyEnv(cmd) }
	var verbose bool
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "log each step (and the SQL it runs) on stderr")
	logger := func() *slog.Logger {
		level := slog.LevelWarn
		if verbose {
			level = slog.LevelDebug
		}
		return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	}
	root.AddCommand(newRunCmd(stdout, stderr, logger, red), newChecksumCmd(stdout),
		newBackfillCmd(stdout, stderr, logger, red), newStatusCmd(stdout, stderr, red))
	root.AddCommand(newLintCmd(stdout, stderr, red))
	root.AddCommand(newVerifyCmd(stdout, logger, red))
	root.AddCommand(newPlanCmd(stdout, logger, red))
	root.AddCommand(newShowCmd(stdout, red))
	return root
}

// runCommand holds `idem run`'s flags and what it writes to.
type runCommand struct {
	stdout, stderr   io.Writer
	logger           func() *slog.Logger
	red              *job.Redactor
	date, asOf       string
	force, allowOpen bool
	asJSON           bool
	lockTimeout      time.Duration
}

func newRunCmd(stdout, stderr io.Writer, logger func() *slog.Logger, red *job.Redactor) *cobra.Command {
	c := &runCommand{stdout: stdout, stderr: stderr, logger: logger, red: red}
	cmd := &cobra.Command{
		Use:   "run JOB.yaml --date D",
		Short: "Load one partition (and its lookback partitions)",
		Long: `Load the partition --date names (and, with partition.lookback, the partitions before it),
each in one transaction with its ledger row. A partition already loaded from the same input,
and still holding what that run wrote, is skipped; --force loads it anyway. A merge job's
--date names the run and fills the templates.

Exit: 0 loaded or skipped; 1 the run failed and the target is unchanged (recorded in
idem_failures; a retry is safe); 2 usage, job file or lint error: nothing was touched;
75 try again later: the partition is not closed yet, its lock was not obtained within
--lock-timeout, or the target could not be reached; 130 interrupted (SIGINT or SIGTERM):
rolled back, run it again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd.Context(), args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&c.date, "date", "", "the partition to load: 2026-11-28 (day), 2026-11-28T13 (hour) or 2026-11 (month)")
	f.StringVar(&c.asOf, "as-of", "", asOfUsage)
	f.BoolVar(&c.force, "force", false, "load even if the ledger says this input is already loaded")
	f.BoolVar(&c.allowOpen, "allow-open", false, "load a partition that is not closed yet")
	f.DurationVar(&c.lockTimeout, "lock-timeout", 10*time.Minute, "how long to wait for another run of the same partition")
	f.BoolVar(&c.asJSON, "json", false, "print one JSON object per partition")
	return cmd
}

// run loads the job at path, runs the partition --date names and prints
// each partition's result.
func (c *runCommand) run(ctx context.Context, path string) error {
	// The reference time is read once, here, and only decides
	// whether a partition is closed.
	ref, err := asOfTime(c.asOf)
	if err != nil {
		return err
	}
	j, err := loadDated(path, c.date, c.red)
	if err != nil {
		return err
	}
	var prog *progress
	if !c.asJSON && isTerminal(c.stderr) {
		prog = newRunProgress(c.stderr, progressThrottle)
	}
	results, err := idem.Run(ctx, j, idem.Options{
		Date: c.date, AsOf: ref, Force: c.force, AllowOpen: c.allowOpen,
		LockTimeout: c.lockTimeout, Faults: runner.Faults{CrashAt: os.Getenv(crashAtEnvVar), WaitAt: os.Getenv(waitAtEnvVar), WaitFor: os.Getenv(waitForEnvVar)}, Logger: c.logger(),
		Progress: prog.stepFunc(),
	})
	prog.finish()
	printResults(c.stdout, c.stderr, j, results, c.asJSON)
	return runExit(results, err)
}

// printResults prints a run's partitions. With lookback (several, oldest
// first) the rows of other partitions get one note for the whole run,
// leaving out those of the partitions it loaded itself.
func printResults(w, stderr io.Writer, j *job.Job, results []runner.Result, asJSON bool) {
	if len(results) < 2 {
		for _, r := range results {
			printResult(w, stderr, j, r, asJSON)
		}
		return
	}
	out := newOutside(results[0].Partition, results[len(results)-1].Partition, "the partitions this run loaded")
	for _, r := range results {
		out.add(r)
		printBackfillResult(w, stderr, j, r, asJSON)
	}
	out.print(stderr, j.Name)
}

// runExit is the exit of a run that returned results and err.
func runExit(results []runner.Result, err error) error {
	if err != nil {
		code := exitCode(err)
		for _, r := range results {
			// A job error found in a later partition (a lookback
			// partition's file lacks a column) comes after earlier
			// partitions committed: exit 2 would say nothing changed.
			if code == ExitUsage && r.Action == runner.ActionLoaded {
				code = ExitFailed
			}
		}
		return &exitError{code, err}
	}
	for _, r := range results {
		if r.Action == runner.ActionNotClosed {
			return &exitError{ExitTempFail, errQuiet}
		}
	}
	return nil
}

func exitCode(err error) int {
	if errors.Is(err, idem.ErrTarget) {
		return ExitUsage
	}
	return runner.ExitCode(err)
}

func printResult(w, stderr io.Writer, j *job.Job, r runner.Result, asJSON bool) {
	if len(r.OutOfWindow) > 0 {
		printOutOfWindow(stderr, r)
	}
	if asJSON {
		b, _ := json.Marshal(r)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	head := fmt.Sprintf("%s %s", r.Job, r.Partition)
	switch r.Action {
	case runner.ActionLoaded:
		if j.Strategy == job.StrategyMerge {
			fmt.Fprintf(w, "%s: merged: %d rows in, %d deduped; %d inserted, %d updated, %d deleted, %d deletes of absent keys remembered, %s; wrote %d rows, checksum %s (run %s, %d ms)\n",
				head, r.RowsIn, r.RowsDeduped, r.Inserted, r.Updated, r.Deleted, r.DeletedAbsent, r.NotWritten(), r.RowCount, r.Checksum, short(r.RunID), r.DurationMS)
			return
		}
		verb := "loaded"
		if r.Reloaded != "" {
			verb = "reloaded (" + r.Reloaded + ")"
		}
		fmt.Fprintf(w, "%s: %s: %d rows in, %d deduped, %d out of window; %d inserted, %d deleted; partition now %d rows, checksum %s (run %s, %d ms)\n",
			head, verb, r.RowsIn, r.RowsDeduped, r.RowsOutOfWindow, r.Inserted, r.Deleted, r.RowCount, r.Checksum, short(r.RunID), r.DurationMS)
	case runner.ActionSkipped:
		what := "partition"
		if j.Strategy == job.StrategyMerge {
			what = "it wrote"
		}
		fmt.Fprintf(w, "%s: skipped: already loaded from this input by run %s; %s %d rows, checksum %s (--force reloads)\n",
			head, short(r.RunID), what, r.RowCount, r.Checksum)
	case runner.ActionNotClosed:
		fmt.Fprintf(w, "%s: not closed yet: it closes at %s (its end plus closed_after %s); nothing loaded, try then or pass --allow-open\n",
			head, r.ClosesAt, job.FormatDuration(j.Partition.ClosedAfterOr(0)))
	case runner.ActionFailed:
		if strings.Contains(r.Error, engine.ErrConnLost.Error()) {
			// Lost during COMMIT, the server may have committed it.
			fmt.Fprintf(w, "%s: failed: the connection was lost; the target holds the last run the server committed\n", head)
			return
		}
		if strings.Contains(r.Error, runner.ErrUnrecorded.Error()) {
			fmt.Fprintf(w, "%s: failed after its rows were put in place: the target holds them, the ledger does not record the run; run it again\n", head)
			return
		}
		fmt.Fprintf(w, "%s: failed; the target is unchanged\n", head)
	}
}

// printOutOfWindow says which partitions the rows a run did not write
// belong to, so a late row is not lost.
func printOutOfWindow(stderr io.Writer, r runner.Result) {
	parts := make([]string, len(r.OutOfWindow))
	var listed int64
	for i, p := range r.OutOfWindow {
		parts[i] = fmt.Sprintf("%s (%d)", p.Partition, p.Rows)
		listed += p.Rows
	}
	if rest := r.RowsOutOfWindow - listed; rest > 0 { // the list keeps the nearest partitions
		parts = append(parts, fmt.Sprintf("%d more rows in partitions further away (or with no partition value)", rest))
	}
	fmt.Fprintf(stderr, "idem: %s %s: %d input rows belong to other partitions and were not written: %s; run those partitions to load them\n",
		r.Job, r.Partition, r.RowsOutOfWindow, strings.Join(parts, ", "))
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// checksumCommand holds `idem checksum`'s flags and where it prints.
type checksumCommand struct {
	stdout  io.Writer
	where   string
	exclude []string
	asJSON  bool
}

func newChecksumCmd(stdout io.Writer) *cobra.Command {
	c := &checksumCommand{stdout: stdout}
	cmd := &cobra.Command{
		Use:   "checksum URL TABLE",
		Short: "Print a table's row count and order-independent checksum (read-only)",
		Long: `Print the row count and checksum of TABLE at URL, or of its rows where --where holds,
leaving out the --exclude columns (a loaded_at column, say). The checksum is the sum modulo
2^64 of a 64-bit hash of each row: it ignores row order and counts duplicates. Each engine
hashes with its own functions, so one table gives one checksum per engine: compare checksums
taken on one engine. The target is opened read-only; nothing is written or created.

Exit: 0 printed; 1 the checksum could not be taken (a database error); 2 usage: a bad URL,
--where or --exclude, or a table or column that does not exist; 75 the target could not be
reached, or a DuckDB file another process holds was not released within a minute.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd.Context(), args[0], args[1]) },
	}
	cmd.Flags().StringVar(&c.where, "where", "", "one SQL condition selecting the rows to checksum (runs read-only)")
	cmd.Flags().StringSliceVar(&c.exclude, "exclude", nil, "columns to leave out (e.g. loaded_at metadata), comma-separated")
	cmd.Flags().BoolVar(&c.asJSON, "json", false, "print a JSON object")
	return cmd
}

// run prints the row count and checksum of table at url.
func (c *checksumCommand) run(ctx context.Context, url, table string) error {
	t, err := c.check(url, table)
	if err != nil {
		return err
	}
	dir, _ := os.Getwd()
	db, err := idem.OpenReadOnly(ctx, url, dir, time.Minute)
	if err != nil {
		return &exitError{exitCode(err), err}
	}
	defer db.Close()
	n, sum, err := runner.TableChecksum(ctx, db, engine.Table(t), c.where, c.exclude)
	if err != nil {
		code := ExitFailed
		if errors.Is(err, runner.ErrNotFound) {
			code = ExitUsage
		}
		return &exitError{code, fmt.Errorf("checksum of %s: %w", table, err)}
	}
	if c.asJSON {
		b, _ := json.Marshal(map[string]any{"table": table, "row_count": n, "checksum": sum})
		fmt.Fprintf(c.stdout, "%s\n", b)
		return nil
	}
	fmt.Fprintf(c.stdout, "%s: %d rows, checksum %s\n", table, n, sum)
	return nil
}

// check reads TABLE and checks --where and --exclude before anything is
// opened.
func (c *checksumCommand) check(url, table string) (job.TableName, error) {
	t, err := job.ParseTable(table)
	if err != nil {
		return t, &exitError{ExitUsage, fmt.Errorf("TABLE: %w", err)}
	}
	// --where is checked by the target engine's lexical rules; the
	// read-only connection is what keeps it from writing.
	if c.where != "" {
		if err := engine.CheckExpression(c.where, engine.LexiconFor(url).Rules); err != nil {
			return t, &exitError{ExitUsage, fmt.Errorf("--where %w", err)}
		}
	}
	for _, col := range c.exclude {
		if strings.TrimSpace(col) == "" {
			return t, &exitError{ExitUsage, errors.New("--exclude: empty column name")}
		}
	}
	return t, nil
}

// asOfTime is --as-of, or now: the reference time, read once, decides only
// whether a partition is closed.
// loadDated loads the job at path for a command that runs the partition
// --date names, and adds its target's secrets to the redactor.
func loadDated(path, date string, red *job.Redactor) (*job.Job, error) {
	if date == "" {
		return nil, &exitError{ExitUsage, errors.New("--date is required: the scheduler names the partition; idem never guesses it from the clock")}
	}
	j, err := idem.Load(path)
	if err != nil {
		return nil, &exitError{ExitUsage, err}
	}
	addJobSecrets(red, j)
	return j, nil
}

// addJobSecrets makes the redactor hide the job's secrets: its target's
// password, and what its source.files URLs carry (a signed URL's
// signature, a SAS token).
func addJobSecrets(red *job.Redactor, j *job.Job) {
	red.Add(job.Secrets(j.Target.URL)...)
	red.Add(job.Secrets(j.Source.URL)...)
	for _, f := range j.Source.Files {
		red.Add(job.Secrets(f)...)
	}
}

func asOfTime(asOf string) (time.Time, error) {
	if asOf == "" {
		return time.Now(), nil
	}
	if t, err := time.Parse(time.RFC3339, asOf); err == nil {
		return t, nil
	}
	// A plain date is its midnight in UTC, as partitions are (a zone of
	// the host would make the same command mean another instant elsewhere).
	if t, err := time.ParseInLocation(time.DateOnly, asOf, time.UTC); err == nil {
		return t, nil
	}
	return time.Time{}, &exitError{ExitUsage, fmt.Errorf("--as-of %q is neither an RFC 3339 time (like 2026-11-29T06:00:00Z) nor a date (like 2026-11-30, its midnight UTC)", asOf)}
}

// asOfUsage is the --as-of flag's help.
const asOfUsage = "reference time for deciding whether a partition is closed: RFC 3339 (2026-11-29T06:00:00Z) or a date (2026-11-30: its midnight UTC); default now"
