package idem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/idemdata/idem/runner"
)

// Shown is the first rows of a target or of one partition (see Show).
type Shown = runner.Shown

// ErrNoTable marks a job whose target table does not exist yet.
var ErrNoTable = runner.ErrNoTable

// Show reads the first limit rows of j's target, or of one partition (a
// label of the job's grain) when partition is not "", ordered by the key
// and then every column, so the same rows show the same way on every
// engine. It opens the target read-only (OpenReadOnly): it writes nothing
// and creates no file.
func Show(ctx context.Context, j *Job, partition string, limit int, lockTimeout time.Duration) (*Shown, error) {
	db, err := OpenReadOnly(ctx, j.Target.URL, j.Dir, lockTimeout)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("table %s %w: no run has loaded it yet (%v)", j.Target.Table, ErrNoTable, err)
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return runner.Show(ctx, db, j, partition, limit)
}
