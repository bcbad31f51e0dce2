package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

func newVerifyCmd(stdout io.Writer, logger func() *slog.Logger, red *job.Redactor) *cobra.Command {
	var (
		date        string
		asJSON      bool
		lockTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "verify JOB.yaml --date D",
		Short: "Run a job twice into a scratch table and check the two runs agree (exit 3 if not)",
		Long: `verify runs the job for one partition twice into a scratch copy of its target table
(same engine and database, a scratch ledger), compares the row count and checksum, and reports
PASS (exit 0) or FAIL (exit 3). For file sources it then changes one input row in a copy of the
input and checks that only that row's key changes. The target table and idem_runs are never
touched; the scratch tables are dropped afterwards.

Exit: 0 PASS; 3 FAIL: the job is not idempotent (a result, not an error: the report says why);
1 a run could not be made (bad input, a database error); 2 usage or job file error; 75 the
database (a DuckDB file) was held past --lock-timeout, or could not be reached; 130
interrupted: the scratch tables are dropped.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			j, err := loadDated(args[0], date, red)
			if err != nil {
				return err
			}
			rep, err := idem.Verify(cmd.Context(), j, idem.Options{Date: date, LockTimeout: lockTimeout, Logger: logger()})
			if err != nil {
				return &exitError{exitCode(err), err}
			}
			if asJSON {
				b, _ := json.Marshal(rep)
				fmt.Fprintf(stdout, "%s\n", b)
			} else {
				printVerify(stdout, rep)
			}
			if rep.Verdict != runner.VerdictPass {
				return &exitError{ExitVerify, errQuiet}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&date, "date", "", "the partition to verify: 2026-11-28 (day), 2026-11-28T13 (hour) or 2026-11 (month)")
	f.DurationVar(&lockTimeout, "lock-timeout", 10*time.Minute, "how long to wait for the database (DuckDB: the file)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object with the verdict and both runs' figures")
	return cmd
}

func printVerify(w io.Writer, r *runner.VerifyReport) { r.WriteText(w) }
