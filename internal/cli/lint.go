package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/lint"
)

// lintCommand holds `idem lint`'s flags and what it writes to.
type lintCommand struct {
	stdout, stderr io.Writer
	red            *job.Redactor
	asJSON, target bool
	lockTimeout    time.Duration
}

func newLintCmd(stdout, stderr io.Writer, red *job.Redactor) *cobra.Command {
	c := &lintCommand{stdout: stdout, stderr: stderr, red: red}
	cmd := &cobra.Command{
		Use:   "lint JOB.yaml...",
		Short: "Find what would make a job's reruns differ: non-deterministic SQL, unwindowed sources, missing or generated keys",
		Long: `Lint checks job files without opening their targets (unless --target). Each finding is printed as
FILE:LINE:COL: severity: name: message (text) — do instead: …

Errors (nondeterministic, generated-key) make idem run and backfill refuse the job (exit 2)
unless the job file waives them by name under lint: {allow: [name]} (or nondeterministic:FUNC
for one function). Warnings (query-without-window, files-without-date, partition-without-key)
do not refuse.

With --target, lint also opens each job's target read-only and warns (missing-index) when
the table exists without the index a table idem creates has: on the partition column (a
partition job) or a unique one on the key (a merge job). Without it every run reads the whole
table (BENCHMARKS.md, scenario 3); the warning gives the statement that creates it.

Exit: 0 when no job has an error (warnings allowed); 2 when one has a lint error or cannot be
read.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			code := ExitOK
			for _, path := range args {
				code = c.lint(cmd.Context(), path, code)
			}
			if code != ExitOK {
				return &exitError{code, errQuiet}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&c.asJSON, "json", false, "print one JSON object per finding")
	cmd.Flags().BoolVar(&c.target, "target", false, "also open each target read-only and check its indexes")
	cmd.Flags().DurationVar(&c.lockTimeout, "lock-timeout", 10*time.Second, "how long to wait for a target another process holds")
	return cmd
}

// lint prints the findings for the job file at path, and with --target
// those on its table, and returns code, the exit so far, as they set it.
func (c *lintCommand) lint(ctx context.Context, path string, code int) int {
	// job.Load, not idem.Load: lint must not need the job's
	// target, nor refuse to show what it would refuse.
	j, err := job.Load(path)
	if err != nil {
		fmt.Fprintf(c.stderr, "idem: %v\n", err)
		return ExitUsage
	}
	addJobSecrets(c.red, j)
	for _, f := range lint.Check(j) {
		if f.Refuses() {
			code = ExitUsage
		}
		if c.asJSON {
			b, _ := json.Marshal(f)
			fmt.Fprintf(c.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintln(c.stdout, f)
	}
	if !c.target {
		return code
	}
	return max(code, c.lintTarget(ctx, path, j))
}

// lintTarget prints the target table's missing indexes and loosely
// collated key columns, and returns the exit code of reading them.
func (c *lintCommand) lintTarget(ctx context.Context, path string, j *job.Job) int {
	missing, err := idem.MissingIndexes(ctx, j, c.lockTimeout)
	if err != nil {
		fmt.Fprintf(c.stderr, "idem: %s: %v\n", path, err)
		return exitCode(err)
	}
	for _, m := range missing {
		printMissingIndex(c.stdout, path, m, c.asJSON)
	}
	loose, err := idem.LooseKeys(ctx, j, c.lockTimeout)
	if err != nil {
		fmt.Fprintf(c.stderr, "idem: %s: %v\n", path, err)
		return exitCode(err)
	}
	for _, k := range loose {
		printLooseKey(c.stdout, path, k, c.asJSON)
	}
	return ExitOK
}

// printMissingIndex prints a missing index as a warning finding.
func printMissingIndex(w io.Writer, path string, m idem.MissingIndex, asJSON bool) {
	what := "an index"
	if m.Unique {
		what = "a unique index"
	}
	msg := fmt.Sprintf("table %s has no index on (%s): %s", m.Table, strings.Join(m.Columns, ", "), m.Cost)
	instead := "create " + what + ": " + m.Create
	if asJSON {
		b, _ := json.Marshal(map[string]any{"file": path, "severity": lint.SeverityWarning, "name": "missing-index",
			"message": msg, "instead": instead, "index": m})
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	fmt.Fprintf(w, "%s: %s: missing-index: %s — do instead: %s\n", path, lint.SeverityWarning, msg, instead)
}

// printLooseKey prints a key column whose collation is not bytewise as a
// warning finding.
func printLooseKey(w io.Writer, path string, k idem.LooseKey, asJSON bool) {
	msg := fmt.Sprintf("key column %s of table %s has the collation %s, which ignores %s: keys idem keeps apart (it compares them byte for byte) are one key to the table, and a run that writes two of them fails on its unique index",
		k.Column, k.Table, k.Collation, k.Ignores)
	instead := "give the column a bytewise collation (keep its DEFAULT and COMMENT, if it has them): " + k.Alter
	if asJSON {
		b, _ := json.Marshal(map[string]any{"file": path, "severity": lint.SeverityWarning, "name": "key-collation",
			"message": msg, "instead": instead, "column": k})
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	fmt.Fprintf(w, "%s: %s: key-collation: %s — do instead: %s\n", path, lint.SeverityWarning, msg, instead)
}
