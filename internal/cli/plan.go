package cli

import (
	"context"
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

// planCommand holds `idem plan`'s flags and what it writes to.
type planCommand struct {
	stdout           io.Writer
	logger           func() *slog.Logger
	red              *job.Redactor
	date, asOf       string
	force, allowOpen bool
	asJSON           bool
	lockTimeout      time.Duration
}

// newPlanCmd is `idem plan`: what `idem run` with the same flags would
// execute, and the code it would exit with; nothing is changed.
func newPlanCmd(stdout io.Writer, logger func() *slog.Logger, red *job.Redactor) *cobra.Command {
	c := &planCommand{stdout: stdout, logger: logger, red: red}
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
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd.Context(), args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&c.date, "date", "", "the partition to plan: 2026-11-28 (day), 2026-11-28T13 (hour) or 2026-11 (month)")
	f.StringVar(&c.asOf, "as-of", "", asOfUsage)
	f.BoolVar(&c.force, "force", false, "plan a forced run (one the ledger would otherwise skip)")
	f.BoolVar(&c.allowOpen, "allow-open", false, "plan a run of a partition that is not closed yet")
	f.DurationVar(&c.lockTimeout, "lock-timeout", 10*time.Minute, "how long to wait for a run in progress on the same partition")
	f.BoolVar(&c.asJSON, "json", false, "print one JSON object per partition, with its steps")
	return cmd
}

// run plans the run of the job at path that --date names and prints each
// partition's plan.
func (c *planCommand) run(ctx context.Context, path string) error {
	ref, err := asOfTime(c.asOf)
	if err != nil {
		return err
	}
	j, err := loadDated(path, c.date, c.red)
	if err != nil {
		return err
	}
	plans, err := idem.Plan(ctx, j, idem.Options{
		Date: c.date, AsOf: ref, Force: c.force, AllowOpen: c.allowOpen,
		LockTimeout: c.lockTimeout, Logger: c.logger(),
	})
	c.print(plans)
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
}

// print prints each partition's plan, as text or as one JSON object each.
func (c *planCommand) print(plans []idem.PartitionPlan) {
	if !c.asJSON && len(plans) > 1 {
		fmt.Fprint(c.stdout, "-- lookback: a run commits each partition before the next; this plan rolled each back, so each is planned on the target as it is now\n\n")
	}
	for _, p := range plans {
		if c.asJSON {
			b, _ := json.Marshal(p)
			fmt.Fprintf(c.stdout, "%s\n", b)
			continue
		}
		fmt.Fprint(c.stdout, p.Text())
	}
}
