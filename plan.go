package idem

import (
	"context"

	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/lint"
	"github.com/idemdata/idem/runner"
)

// PartitionPlan is what a run of one partition would execute.
type PartitionPlan = runner.PartitionPlan

// Plan opens the job's target and plans opts.Date (and its lookback
// partitions): each partition's run executes every step it would, then
// rolls back where it would commit (see runner.Plan). The target is left as
// it was: a DuckDB file the plan had to create is removed again.
func Plan(ctx context.Context, j *Job, opts Options) ([]PartitionPlan, error) {
	// A job run refuses is planned as refused: the run would execute
	// nothing.
	if err := lint.Err(j); err != nil {
		return nil, err
	}
	db, err := openForRun(ctx, j, opts)
	if err != nil {
		return nil, err
	}
	plans, err := runner.Plan(ctx, db, j, opts)
	red := job.NewRedactor(j.Target.URL, j.Source.URL)
	err = red.Error(err)
	for i := range plans {
		plans[i].Error = red.String(plans[i].Error)
		plans[i].Result.Error = red.String(plans[i].Result.Error)
	}
	closeTarget(ctx, db)
	return plans, err
}
