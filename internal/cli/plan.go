package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// newPlanCmd is `idem plan`: what `idem run` with the same flags would
// execute, and the code it would exit with; nothing is changed.
func newPlanCmd(stdout io.Writer, logger func() *slog.Logger, red *job.Redactor) *cobra.Command {
	var (
		date, asOf       string
		force, allowOpen bool
		asJSON           bool
		lockTimeout      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "plan JOB.yaml --date D",
		Short: "Print every SQL statement a run would execute, in order; change nothing",
		Long: `plan runs every step a run would, on the target as it is now, and rolls back
where the run would commit: it prints the statements in order, with the
transaction, the lock, the partition's interval and each bulk load, then what
the run would report. Nothing is changed: no table, schema or ledger row is
created, and no failure is recorded.

Exit: the code run would give: 0 it would load or skip; 1 it would fail (the error is printed,
nothing is recorded); 2 usage, job file or lint error: nothing is planned; 75 not closed, locked,
or the target could not be reached; 130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := asOfTime(asOf)
			if err != nil {
				return err
			}
			if date == "" {
				return &exitError{ExitUsage, errors.New("--date is required: the scheduler names the partition; idem never guesses it from the clock")}
			}
			j, err := idem.Load(args[0])
			if err != nil {
				return &exitError{ExitUsage, err}
			}
			red.Add(job.Secrets(j.Target.URL)...)
			plans, err := idem.Plan(cmd.Context(), j, idem.Options{
				Date: date, AsOf: ref, Force: force, AllowOpen: allowOpen,
				LockTimeout: lockTimeout, Logger: logger(),
			})
			if !asJSON && len(plans) > 1 {
				fmt.Fprint(stdout, "-- lookback: a run commits each partition before the next; this plan rolled each back, so each is planned on the target as it is now\n\n")
			}
			for _, p := range plans {
				if asJSON {
					b, _ := json.Marshal(p)
					fmt.Fprintf(stdout, "%s\n", b)
					continue
				}
				fmt.Fprint(stdout, p.Text())
			}
			if err != nil {
				// Each partition's plan rolled back, so a job error found
				// in a lookback partition is still exit 2: nothing changed.
				return &exitError{exitCode(err), err}
			}
			for _, p := range plans {
				if p.Action == runner.ActionNotClosed {
					return &exitError{ExitTempFail, errQuiet}
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&date, "date", "", "the partition to plan: 2026-11-28 (day), 2026-11-28T13 (hour) or 2026-11 (month)")
	f.StringVar(&asOf, "as-of", "", asOfUsage)
	f.BoolVar(&force, "force", false, "plan a forced run (one the ledger would otherwise skip)")
	f.BoolVar(&allowOpen, "allow-open", false, "plan a run of a partition that is not closed yet")
	f.DurationVar(&lockTimeout, "lock-timeout", 10*time.Minute, "how long to wait for a run in progress on the same partition")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per partition, with its steps")
	return cmd
}
