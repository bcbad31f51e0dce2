package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/lint"
)

func newLintCmd(stdout, stderr io.Writer, red *job.Redactor) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lint JOB.yaml...",
		Short: "Find what would make a job's reruns differ: non-deterministic SQL, unwindowed sources, missing or generated keys",
		Long: `Lint checks job files without opening their targets. Each finding is printed as
FILE:LINE:COL: severity: name: message (text) — do instead: …

Errors (nondeterministic, generated-key) make idem run and backfill refuse the job (exit 2)
unless the job file waives them by name under lint: {allow: [name]} (or nondeterministic:FUNC
for one function). Warnings (query-without-window, files-without-date, partition-without-key)
do not refuse.

Exit: 0 when no job has an error (warnings allowed); 2 when one has a lint error or cannot be
read.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			code := ExitOK
			for _, path := range args {
				// job.Load, not idem.Load: lint must not need the job's
				// target, nor refuse to show what it would refuse.
				j, err := job.Load(path)
				if err != nil {
					fmt.Fprintf(stderr, "idem: %v\n", err)
					code = ExitUsage
					continue
				}
				red.Add(job.Secrets(j.Target.URL)...)
				for _, f := range lint.Check(j) {
					if f.Refuses() {
						code = ExitUsage
					}
					if asJSON {
						b, _ := json.Marshal(f)
						fmt.Fprintf(stdout, "%s\n", b)
						continue
					}
					fmt.Fprintln(stdout, f)
				}
			}
			if code != ExitOK {
				return &exitError{code, errQuiet}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per finding")
	return cmd
}
