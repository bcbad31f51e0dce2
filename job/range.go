package job

import "fmt"

// maxRange bounds a range's partitions: a typo in a year should fail fast
// rather than plan a million runs.
const maxRange = 100_000

// Range returns the partitions from from to to, both included, oldest
// first, at the job's grain. Lookback does not apply: each partition of a
// range is its own run.
func (j *Job) Range(from, to string) ([]Window, error) {
	first, err := j.Window(from)
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	last, err := j.Window(to)
	if err != nil {
		return nil, fmt.Errorf("--to: %w", err)
	}
	if last.Start.Before(first.Start) {
		return nil, fmt.Errorf("--to %s is before --from %s", to, from)
	}
	var ws []Window
	for w := first; !w.Start.After(last.Start); w = j.windowAt(w.End) {
		if len(ws) == maxRange {
			return nil, fmt.Errorf("--from %s --to %s spans more than %d partitions", from, to, maxRange)
		}
		ws = append(ws, w)
	}
	return ws, nil
}
