package job

import (
	"strconv"
	"testing"
	"time"
	_ "time/tzdata" // zone tests must not depend on the host's zoneinfo

	"github.com/stretchr/testify/require"
)

// windowJob returns a valid partition job with the given grain, lookback,
// closed_after and time zone.
func windowJob(t *testing.T, grain Grain, lookback int, closedAfter, tz string) *Job {
	t.Helper()
	src := header + partitionTail + "  grain: " + string(grain) + "\n"
	if lookback != 0 {
		src += "  lookback: " + strconv.Itoa(lookback) + "\n"
	}
	if closedAfter != "" {
		src += "  closed_after: " + closedAfter + "\n"
	}
	if tz != "" {
		src += "  timezone: " + tz + "\n"
	}
	return mustParse(t, src, noEnv)
}

func utc(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }

func TestWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		grain      Grain
		date       string
		label      string
		start, end time.Time
	}{
		{"day", GrainDay, "2026-11-28", "2026-11-28", utc(2026, 11, 28, 0), utc(2026, 11, 29, 0)},
		{"day end of month", GrainDay, "2026-11-30", "2026-11-30", utc(2026, 11, 30, 0), utc(2026, 12, 1, 0)},
		{"day end of year", GrainDay, "2026-12-31", "2026-12-31", utc(2026, 12, 31, 0), utc(2027, 1, 1, 0)},
		{"day leap", GrainDay, "2028-02-28", "2028-02-28", utc(2028, 2, 28, 0), utc(2028, 2, 29, 0)},
		{"day leap day", GrainDay, "2028-02-29", "2028-02-29", utc(2028, 2, 29, 0), utc(2028, 3, 1, 0)},
		{"hour", GrainHour, "2026-11-28T13", "2026-11-28T13", utc(2026, 11, 28, 13), utc(2026, 11, 28, 14)},
		{"hour midnight", GrainHour, "2026-11-28T00", "2026-11-28T00", utc(2026, 11, 28, 0), utc(2026, 11, 28, 1)},
		{"hour end of day", GrainHour, "2026-11-28T23", "2026-11-28T23", utc(2026, 11, 28, 23), utc(2026, 11, 29, 0)},
		{"hour end of year", GrainHour, "2026-12-31T23", "2026-12-31T23", utc(2026, 12, 31, 23), utc(2027, 1, 1, 0)},
		{"month", GrainMonth, "2026-11", "2026-11", utc(2026, 11, 1, 0), utc(2026, 12, 1, 0)},
		{"month february", GrainMonth, "2026-02", "2026-02", utc(2026, 2, 1, 0), utc(2026, 3, 1, 0)},
		{"month end across year boundary", GrainMonth, "2026-12", "2026-12", utc(2026, 12, 1, 0), utc(2027, 1, 1, 0)},
		{"month january", GrainMonth, "2027-01", "2027-01", utc(2027, 1, 1, 0), utc(2027, 2, 1, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := windowJob(t, tc.grain, 0, "", "")
			w, err := j.Window(tc.date)
			require.NoError(t, err)
			require.Equal(t, tc.label, w.Label)
			require.Equal(t, tc.grain, w.Grain)
			require.True(t, tc.start.Equal(w.Start), "start %s, want %s", w.Start, tc.start)
			require.True(t, tc.end.Equal(w.End), "end %s, want %s", w.End, tc.end)
			require.Equal(t, time.UTC, w.Start.Location())
			require.Equal(t, time.UTC, w.End.Location())
			require.False(t, w.Zoned)
			require.Equal(t, tc.grain.add(w.Start, 1), w.End, "end = start + 1 grain")
		})
	}
}

func TestWindowDefaultGrainIsDay(t *testing.T) {
	t.Parallel()
	j := mustParse(t, header+partitionTail, noEnv)
	w, err := j.Window("2026-11-28")
	require.NoError(t, err)
	require.Equal(t, GrainDay, w.Grain)
	require.Equal(t, "2026-11-28", w.Label)
	require.Equal(t, 24*time.Hour, w.End.Sub(w.Start))
}

func TestWindowErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		grain Grain
		date  string
		want  string
	}{
		// A date at a finer grain than the job's is an error.
		{"hour for day job", GrainDay, "2026-11-28T13", "--date 2026-11-28T13 is a hour; this job's partitions are days (like 2026-11-28)"},
		{"day for month job", GrainMonth, "2026-11-28", "--date 2026-11-28 is a day; this job's partitions are months (like 2026-11)"},
		{"hour for month job", GrainMonth, "2026-11-28T13", "--date 2026-11-28T13 is a hour; this job's partitions are months (like 2026-11)"},
		// A coarser one does not name a partition either.
		{"day for hour job", GrainHour, "2026-11-28", "--date 2026-11-28 is a day; this job's partitions are hours (like 2026-11-28T13)"},
		{"month for day job", GrainDay, "2026-11", "--date 2026-11 is a month; this job's partitions are days (like 2026-11-28)"},
		// Not a partition at all.
		{"empty", GrainDay, "", `--date "" is not a day partition (like 2026-11-28)`},
		{"word", GrainDay, "yesterday", `--date "yesterday" is not a day partition (like 2026-11-28)`},
		{"no such day", GrainDay, "2026-02-30", `--date "2026-02-30" is not a day partition (like 2026-11-28)`},
		{"no leap day", GrainDay, "2026-02-29", `--date "2026-02-29" is not a day partition (like 2026-11-28)`},
		{"no such month", GrainMonth, "2026-13", `--date "2026-13" is not a month partition (like 2026-11)`},
		{"no such hour", GrainHour, "2026-11-28T24", `--date "2026-11-28T24" is not a hour partition (like 2026-11-28T13)`},
		{"not zero-padded", GrainDay, "2026-1-2", `--date "2026-1-2" is not a day partition (like 2026-11-28)`},
		{"minutes", GrainHour, "2026-11-28T13:00", `--date "2026-11-28T13:00" is not a hour partition (like 2026-11-28T13)`},
		{"rfc3339", GrainDay, "2026-11-28T00:00:00Z", `--date "2026-11-28T00:00:00Z" is not a day partition (like 2026-11-28)`},
		{"space", GrainDay, " 2026-11-28", `--date " 2026-11-28" is not a day partition (like 2026-11-28)`},
		{"slashes", GrainDay, "2026/11/28", `--date "2026/11/28" is not a day partition (like 2026-11-28)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := windowJob(t, tc.grain, 0, "", "")
			w, err := j.Window(tc.date)
			require.EqualError(t, err, tc.want)
			require.Zero(t, w)

			ws, err := j.Windows(tc.date)
			require.EqualError(t, err, tc.want)
			require.Nil(t, ws)
		})
	}
}

func TestWindows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		grain    Grain
		lookback int
		date     string
		labels   []string
	}{
		{"no lookback", GrainDay, 0, "2026-11-28", []string{"2026-11-28"}},
		{"day lookback", GrainDay, 2, "2026-11-28", []string{"2026-11-26", "2026-11-27", "2026-11-28"}},
		{"day lookback across month", GrainDay, 3, "2026-03-01", []string{"2026-02-26", "2026-02-27", "2026-02-28", "2026-03-01"}},
		{"day lookback across year", GrainDay, 1, "2027-01-01", []string{"2026-12-31", "2027-01-01"}},
		{"hour lookback across midnight", GrainHour, 2, "2026-11-28T01", []string{"2026-11-27T23", "2026-11-28T00", "2026-11-28T01"}},
		{"month lookback across year", GrainMonth, 2, "2027-01", []string{"2026-11", "2026-12", "2027-01"}},
		{"month lookback twelve", GrainMonth, 12, "2026-12", []string{
			"2025-12", "2026-01", "2026-02", "2026-03", "2026-04", "2026-05",
			"2026-06", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11", "2026-12",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := windowJob(t, tc.grain, tc.lookback, "", "")
			ws, err := j.Windows(tc.date)
			require.NoError(t, err)
			labels := make([]string, len(ws))
			for i, w := range ws {
				labels[i] = w.Label
				require.Equal(t, tc.grain, w.Grain)
				// Each window is exactly what Window gives for its label.
				single, err := j.Window(w.Label)
				require.NoError(t, err)
				require.Equal(t, single, w)
				// Earlier partitions first, and contiguous.
				if i > 0 {
					require.Equal(t, ws[i-1].End, w.Start)
				}
			}
			require.Equal(t, tc.labels, labels)
			last := ws[len(ws)-1]
			w, err := j.Window(tc.date)
			require.NoError(t, err)
			require.Equal(t, w, last, "the run's own partition comes last")
		})
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		closedAfter string
		asOf        time.Time
		want        bool
	}{
		{"during the partition", "", utc(2026, 11, 28, 12), false},
		{"before the partition", "", utc(2026, 11, 1, 0), false},
		{"a nanosecond before its end", "", utc(2026, 11, 29, 0).Add(-time.Nanosecond), false},
		{"at its end", "", utc(2026, 11, 29, 0), true},
		{"after its end", "", utc(2026, 12, 1, 0), true},
		{"at its end, closed_after 2h", "2h", utc(2026, 11, 29, 0), false},
		{"an hour after, closed_after 2h", "2h", utc(2026, 11, 29, 1), false},
		{"just before closed_after", "2h", utc(2026, 11, 29, 2).Add(-time.Second), false},
		{"exactly closed_after", "2h", utc(2026, 11, 29, 2), true},
		{"after closed_after", "2h", utc(2026, 11, 29, 3), true},
		{"closed_after in days", "2d", utc(2026, 11, 30, 23), false},
		{"closed_after in days passed", "2d", utc(2026, 12, 1, 0), true},
		{"as-of in another zone, same instant", "2h", time.Date(2026, 11, 29, 3, 0, 0, 0, time.FixedZone("CET", 3600)), true},
		{"as-of in another zone, earlier instant", "2h", time.Date(2026, 11, 29, 2, 59, 0, 0, time.FixedZone("CET", 3600)), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := windowJob(t, GrainDay, 0, tc.closedAfter, "")
			w, err := j.Window("2026-11-28")
			require.NoError(t, err)
			require.Equal(t, tc.want, j.Closed(w, tc.asOf))
		})
	}
}

func TestLocation(t *testing.T) {
	t.Parallel()
	j := windowJob(t, GrainDay, 0, "", "")
	require.Equal(t, time.UTC, j.Location())

	j = windowJob(t, GrainDay, 0, "", "Europe/Berlin")
	require.Equal(t, "Europe/Berlin", j.Location().String())

	// Validation rejects an unknown zone; a Job built by hand falls back to UTC.
	bad := &Job{Partition: Partition{Grain: GrainDay, Timezone: "Nowhere/Special"}}
	require.Equal(t, time.UTC, bad.Location())
}

func TestWindowTimezone(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)

	tests := []struct {
		name              string
		grain             Grain
		date              string
		startUTC, endUTC  time.Time
		wallStart, length time.Duration
	}{
		// Winter: UTC+1.
		{name: "day in winter", grain: GrainDay, date: "2026-11-28",
			startUTC: utc(2026, 11, 27, 23), endUTC: utc(2026, 11, 28, 23), length: 24 * time.Hour},
		// Summer: UTC+2.
		{name: "day in summer", grain: GrainDay, date: "2026-07-01",
			startUTC: utc(2026, 6, 30, 22), endUTC: utc(2026, 7, 1, 22), length: 24 * time.Hour},
		// The days clocks change are 23 and 25 hours long.
		{name: "spring forward day", grain: GrainDay, date: "2026-03-29",
			startUTC: utc(2026, 3, 28, 23), endUTC: utc(2026, 3, 29, 22), length: 23 * time.Hour},
		{name: "fall back day", grain: GrainDay, date: "2026-10-25",
			startUTC: utc(2026, 10, 24, 22), endUTC: utc(2026, 10, 25, 23), length: 25 * time.Hour},
		{name: "month across year", grain: GrainMonth, date: "2026-12",
			startUTC: utc(2026, 11, 30, 23), endUTC: utc(2026, 12, 31, 23), length: 31 * 24 * time.Hour},
		{name: "month with spring forward", grain: GrainMonth, date: "2026-03",
			startUTC: utc(2026, 2, 28, 23), endUTC: utc(2026, 3, 31, 22), length: 31*24*time.Hour - time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := windowJob(t, tc.grain, 0, "", "Europe/Berlin")
			w, err := j.Window(tc.date)
			require.NoError(t, err)
			require.True(t, w.Zoned)
			require.Equal(t, tc.date, w.Label)
			require.Equal(t, berlin.String(), w.Start.Location().String(), "the window is in the job's zone")
			require.True(t, tc.startUTC.Equal(w.Start), "start %s (%s), want %s", w.Start, w.Start.UTC(), tc.startUTC)
			require.True(t, tc.endUTC.Equal(w.End), "end %s (%s), want %s", w.End, w.End.UTC(), tc.endUTC)
			require.Equal(t, tc.length, w.End.Sub(w.Start))
			// Wall-clock start in the zone is the partition's own boundary.
			h, m, s := w.Start.Clock()
			require.Equal(t, tc.wallStart, time.Duration(h)*time.Hour+time.Duration(m)*time.Minute+time.Duration(s)*time.Second)
		})
	}
}

func TestWindowsTimezoneLookback(t *testing.T) {
	t.Parallel()
	j := windowJob(t, GrainDay, 2, "", "Europe/Berlin")
	ws, err := j.Windows("2026-03-30")
	require.NoError(t, err)
	require.Len(t, ws, 3)
	require.Equal(t, "2026-03-28", ws[0].Label)
	require.Equal(t, "2026-03-29", ws[1].Label)
	require.Equal(t, "2026-03-30", ws[2].Label)
	for i, w := range ws {
		require.True(t, w.Zoned)
		h, m, _ := w.Start.Clock()
		require.Zero(t, h, "partition %d starts at local midnight", i)
		require.Zero(t, m)
	}
	require.Equal(t, 23*time.Hour, ws[1].End.Sub(ws[1].Start))
}

func TestClosedTimezone(t *testing.T) {
	t.Parallel()
	j := windowJob(t, GrainDay, 0, "1h", "Europe/Berlin")
	w, err := j.Window("2026-11-28")
	require.NoError(t, err)
	// The partition ends at midnight Berlin time, 23:00 UTC; closed at 00:00 UTC.
	require.False(t, j.Closed(w, utc(2026, 11, 28, 23)))
	require.False(t, j.Closed(w, utc(2026, 11, 29, 0).Add(-time.Second)))
	require.True(t, j.Closed(w, utc(2026, 11, 29, 0)))
	berlin := w.Start.Location()
	require.True(t, j.Closed(w, time.Date(2026, 11, 29, 1, 0, 0, 0, berlin)))
	require.False(t, j.Closed(w, time.Date(2026, 11, 29, 0, 59, 0, 0, berlin)))
}

func TestTimezoneUTCNamedIsZoned(t *testing.T) {
	t.Parallel()
	j := windowJob(t, GrainDay, 0, "", "UTC")
	w, err := j.Window("2026-11-28")
	require.NoError(t, err)
	require.True(t, w.Zoned, "naming a zone, even UTC, compares windows as instants")
	require.True(t, utc(2026, 11, 28, 0).Equal(w.Start))
}

func TestGrainAdd(t *testing.T) {
	t.Parallel()
	start := utc(2026, 1, 31, 0)
	require.Equal(t, utc(2026, 1, 31, 5), GrainHour.add(start, 5))
	require.Equal(t, utc(2026, 2, 1, 0), GrainDay.add(start, 1))
	require.Equal(t, utc(2026, 1, 30, 0), GrainDay.add(start, -1))
	require.Equal(t, utc(2026, 2, 1, 0), GrainMonth.add(utc(2026, 1, 1, 0), 1))
	require.Equal(t, utc(2025, 12, 1, 0), GrainMonth.add(utc(2026, 1, 1, 0), -1))
	require.True(t, GrainHour.valid())
	require.True(t, GrainDay.valid())
	require.True(t, GrainMonth.valid())
	require.False(t, Grain("week").valid())
	require.False(t, Grain("").valid())
}

func TestHourGrainRejectsTimezone(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("idem: 1\njob: j\ntarget: {table: t}\nsource: {query: SELECT 1}\nstrategy: partition\npartition: {column: ts, grain: hour, timezone: Europe/Berlin}\n"), "/tmp", noEnv)
	require.ErrorContains(t, err, "partition.timezone: applies to day and month partitions; hour partitions are UTC hours")
	_, err = Parse([]byte("idem: 1\njob: j\ntarget: {table: t}\nsource: {query: SELECT 1}\nstrategy: partition\npartition: {column: ts, lookback: 100000}\n"), "/tmp", noEnv)
	require.ErrorContains(t, err, "partition.lookback: 100000 is more than 1000 partitions")
}
