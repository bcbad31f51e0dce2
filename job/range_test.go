package job

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRange(t *testing.T) {
	t.Parallel()
	labels := func(ws []Window) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Label)
		}
		return out
	}
	for _, c := range []struct {
		grain    Grain
		zone     string
		from, to string
		want     []string
		err      string
	}{
		{grain: GrainDay, from: "2026-02-27", to: "2026-03-02", want: []string{"2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"}},
		{grain: GrainDay, from: "2026-03-01", to: "2026-03-01", want: []string{"2026-03-01"}},
		{grain: GrainMonth, from: "2026-11", to: "2027-01", want: []string{"2026-11", "2026-12", "2027-01"}},
		{grain: GrainHour, from: "2026-11-28T22", to: "2026-11-29T01", want: []string{"2026-11-28T22", "2026-11-28T23", "2026-11-29T00", "2026-11-29T01"}},
		// A day across the switch to summer time is still one partition.
		{grain: GrainDay, zone: "Europe/Berlin", from: "2026-03-28", to: "2026-03-30", want: []string{"2026-03-28", "2026-03-29", "2026-03-30"}},
		{grain: GrainDay, from: "2026-03-02", to: "2026-03-01", err: "--to 2026-03-01 is before --from 2026-03-02"},
		{grain: GrainDay, from: "2026-03", to: "2026-03-01", err: "--from: --date 2026-03 is a month"},
		{grain: GrainHour, from: "2000-01-01T00", to: "2026-01-01T00", err: "spans more than 100000 partitions"},
	} {
		j := &Job{Partition: Partition{Grain: c.grain, Timezone: c.zone}}
		ws, err := j.Range(c.from, c.to)
		if c.err != "" {
			require.ErrorContains(t, err, c.err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, c.want, labels(ws))
	}
}
