package runner

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// Which failures leave a row in idem_failures: the run's own, not a job
// error, a lock wait, an interrupt or a connection that is gone.
func TestRecorded(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("reading in/x.csv line 3: bad"), true},
		{fmt.Errorf("deleting partition: %w", errors.New("disk full")), true},
		{&job.Error{File: "job.yaml"}, false},
		{fmt.Errorf("waiting: %w", engine.ErrLocked), false},
		{fmt.Errorf("stage: %w", engine.ErrInterrupted), false},
		{fmt.Errorf("inserting: %w", engine.ErrConnLost), false},
		{context.Canceled, false},
	} {
		if got := Recorded(c.err); got != c.want {
			t.Errorf("Recorded(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
