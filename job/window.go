package job

import (
	"fmt"
	"time"
)

// Grain is the size of a partition.
type Grain string

// Grains.
const (
	GrainHour  Grain = "hour"
	GrainDay   Grain = "day"
	GrainMonth Grain = "month"
)

var grainLayouts = map[Grain]string{
	GrainHour:  "2006-01-02T15",
	GrainDay:   "2006-01-02",
	GrainMonth: "2006-01",
}

// Label names the partition starting at t (a wall-clock time in the job's
// zone): 2026-11-28, 2026-11-28T13, 2026-11.
func (g Grain) Label(t time.Time) string { return t.Format(grainLayouts[g]) }

func (g Grain) valid() bool { _, ok := grainLayouts[g]; return ok }

func (g Grain) add(t time.Time, n int) time.Time {
	switch g {
	case GrainHour:
		return t.Add(time.Duration(n) * time.Hour)
	case GrainMonth:
		return t.AddDate(0, n, 0)
	}
	return t.AddDate(0, 0, n)
}

// Window is one partition: its label and half-open interval [Start, End).
type Window struct {
	Label string
	Grain Grain
	// Start and End are wall-clock times in Location.
	Start, End time.Time
	// Zoned is true when the job names partition.timezone; the window is
	// then compared as instants.
	Zoned bool
}

// Location returns the zone partition boundaries are computed in.
func (j *Job) Location() *time.Location {
	if j.Partition.Timezone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(j.Partition.Timezone)
	if err != nil { // validated at parse time
		return time.UTC
	}
	return loc
}

// Window parses a --date value for this job's grain.
func (j *Job) Window(date string) (Window, error) {
	g := j.Partition.Grain
	loc := j.Location()
	start, err := time.ParseInLocation(grainLayouts[g], date, loc)
	if err != nil {
		for other, layout := range grainLayouts {
			if _, e := time.Parse(layout, date); e == nil && other != g {
				return Window{}, fmt.Errorf("--date %s is a %s; this job's partitions are %ss (like %s)", date, other, g, example(g))
			}
		}
		return Window{}, fmt.Errorf("--date %q is not a %s partition (like %s)", date, g, example(g))
	}
	return j.windowAt(start), nil
}

func (j *Job) windowAt(start time.Time) Window {
	g := j.Partition.Grain
	return Window{
		Label: start.Format(grainLayouts[g]),
		Grain: g,
		Start: start,
		End:   g.add(start, 1),
		Zoned: j.Partition.Timezone != "",
	}
}

// Windows returns the partitions one run of date covers: lookback earlier
// partitions first, then date itself.
func (j *Job) Windows(date string) ([]Window, error) {
	w, err := j.Window(date)
	if err != nil {
		return nil, err
	}
	ws := make([]Window, 0, j.Partition.Lookback+1)
	for i := j.Partition.Lookback; i > 0; i-- {
		ws = append(ws, j.windowAt(j.Partition.Grain.add(w.Start, -i)))
	}
	return append(ws, w), nil
}

// Closed reports whether the window is closed at asOf: its end plus
// closed_after has passed.
func (j *Job) Closed(w Window, asOf time.Time) bool {
	return !asOf.Before(j.ClosesAt(w))
}

// ClosesAt is when the window closes: its end plus closed_after.
func (j *Job) ClosesAt(w Window) time.Time {
	return w.End.Add(j.Partition.ClosedAfterOr(0))
}

// HeldBackByClosure reports whether runs wait for their partition to close.
// A merge's --date names the run rather than a slice of the table, so a
// merge waits only when the job gives closed_after.
func (j *Job) HeldBackByClosure() bool {
	return j.Strategy != StrategyMerge || j.Partition.ClosedAfter != nil
}

func example(g Grain) string {
	return time.Date(2026, 11, 28, 13, 0, 0, 0, time.UTC).Format(grainLayouts[g])
}
