package runner

import "os"

// Progress steps, in run order.
const (
	StepStaging = "staging" // the input is being read into staging
	StepStaged  = "staged"  // the input is staged; the target is being written
)

// Progress is one step of a partition's run, for a progress display.
type Progress struct {
	Partition string
	Step      string
	// Files and Bytes are the input files and their size (0 for a query).
	Files int
	Bytes int64
	// Rows is the rows staged (from StepStaged on).
	Rows int64
}

// report tells opts.Progress about a step; a no-op without it.
func (r *run) report(step string) {
	if r.opts.Progress == nil {
		return
	}
	p := Progress{Partition: r.w.Label, Step: step, Files: len(r.files), Rows: r.res.RowsIn}
	for _, f := range r.files {
		if fi, err := os.Stat(f); err == nil {
			p.Bytes += fi.Size()
		}
	}
	r.opts.Progress(p)
}
