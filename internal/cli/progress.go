package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/idemdata/idem/runner"
)

// isTerminal reports whether w is a terminal: progress is drawn only
// there, never into a file, a pipe or a scheduler's log. Writers that wrap
// another (the password redactor every output passes) are looked through.
func isTerminal(w io.Writer) bool {
	for {
		switch v := w.(type) {
		case *os.File:
			return term.IsTerminal(int(v.Fd()))
		case interface{ Unwrap() io.Writer }:
			w = v.Unwrap()
		default:
			return false
		}
	}
}

// progress is a progress display on stderr; a nil *progress draws nothing,
// so callers need not check.
type progress struct {
	bar  *progressbar.ProgressBar
	rows int64
}

// newBackfillProgress counts partitions done of total, with the rows
// loaded, the rate and the time left.
// progressThrottle bounds how often the display is redrawn.
const progressThrottle = 100 * time.Millisecond

func newBackfillProgress(w io.Writer, total int, throttle time.Duration) *progress {
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("backfill"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("partitions"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionClearOnFinish(),
	)}
}

// newRunProgress is a spinner for one run: the step, the input's size and,
// once staged, its rows. (The bytes are the input's size: the database
// reads the files itself and reports nothing while it does.)
func newRunProgress(w io.Writer, throttle time.Duration) *progress {
	return &progress{bar: progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("starting"),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) partitionDone(rows int64) {
	if p == nil {
		return
	}
	p.rows += rows
	p.bar.Describe(fmt.Sprintf("backfill: %d rows", p.rows))
	_ = p.bar.Add(1) // draws the new description too
}

// step shows a run's step.
func (p *progress) step(s runner.Progress) {
	if p == nil {
		return
	}
	switch s.Step {
	case runner.StepStaging:
		if s.Files > 0 {
			p.bar.Describe(fmt.Sprintf("%s: reading %d files, %s", s.Partition, s.Files, humanBytes(s.Bytes)))
		} else {
			p.bar.Describe(fmt.Sprintf("%s: running the source query", s.Partition))
		}
	case runner.StepStaged:
		p.bar.Describe(fmt.Sprintf("%s: %d rows staged (%s read); writing", s.Partition, s.Rows, humanBytes(s.Bytes)))
	}
	_ = p.bar.Add(1)
}

// clear removes the bar before a line is printed under it.
func (p *progress) clear() {
	if p != nil {
		_ = p.bar.Clear()
	}
}

func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// stepFunc is step as a runner.Options.Progress, nil for no display.
func (p *progress) stepFunc() func(runner.Progress) {
	if p == nil {
		return nil
	}
	return p.step
}
