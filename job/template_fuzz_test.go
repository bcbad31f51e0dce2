package job

import (
	"strings"
	"testing"
)

// FuzzTemplate checks the template renderer on any text, date and grain:
// checkTemplate never panics; a text it accepts renders with no {{ left,
// keeps every character outside its templates, in order, and renders each
// {{ date ± N unit }} as a label that parses back as a partition of the
// job's grain. A text without templates renders as itself.
func FuzzTemplate(f *testing.F) {
	for _, s := range []struct {
		text, date string
		grain      uint8
		zoned      bool
	}{
		{"in/{{ date }}.csv", "2026-11-28", 1, false},
		{"in/{{yyyy}}/{{ mm }}/{{ dd }}/{{ hh }}/*.parquet", "2026-11-28T13", 0, true},
		{"SELECT * FROM t WHERE ts >= {{ start }} AND ts < {{ end }}", "2026-11", 2, false},
		{"in/{{ date - 1d }}.csv in/{{ date + 1d }}.csv", "2024-02-29", 1, false},
		{"{{ start + 10000mo }} {{ end - 10000mo }}", "2026-01", 2, true},
		{"{{ date + 3h }} {{ date+1mo}}", "2026-03-29T01", 0, true},
		{"{{ nope }} {{ date + 1y }} {{ date + 99999d }}", "2026-11-28", 1, false},
		{"{{ date }", "2026-11-28", 1, false},
		{"{{{ date }}}", "2026-11-28", 1, false},
		{"'; DROP TABLE t; -- {{ date }}", "2026-11-28", 1, false},
		{"plain text, no templates: { } }} {", "2026-11-28", 1, false},
		{"{{ dd }}{{ dd }}{{", "2026-11-28", 1, false},
	} {
		f.Add(s.text, s.date, s.grain, s.zoned)
	}
	grains := []Grain{GrainHour, GrainDay, GrainMonth}
	f.Fuzz(func(t *testing.T, text, date string, g uint8, zoned bool) {
		j := &Job{Partition: Partition{Grain: grains[int(g)%len(grains)]}}
		if zoned {
			j.Partition.Timezone = "Europe/Berlin"
		}
		w, err := j.Window(date)
		if err != nil {
			return
		}
		if checkTemplate(text) != nil {
			return
		}
		_ = templateReach(text)
		for _, out := range []string{RenderPath(text, w), RenderSQL(text, w, fakeDialect{})} {
			if strings.Contains(out, "{{") {
				t.Fatalf("%q rendered as %q: a template survived", text, out)
			}
			rest := out
			for _, seg := range templateRE.Split(text, -1) {
				i := strings.Index(rest, seg)
				if i < 0 {
					t.Fatalf("%q rendered as %q: the text %q around the templates is lost", text, out, seg)
				}
				rest = rest[i+len(seg):]
			}
		}
		if !templateRE.MatchString(text) {
			if RenderPath(text, w) != text || RenderSQL(text, w, fakeDialect{}) != text {
				t.Fatalf("%q has no template but rendering changed it", text)
			}
		}
		for _, m := range templateRE.FindAllStringSubmatch(text, -1) {
			r := parseRef(m)
			if r.name != "date" {
				continue
			}
			label := RenderPath(m[0], w)
			if y := r.shifted(w).Start.Year(); y < 1 || y > 9999 {
				continue // beyond what a label can say
			}
			if _, err := j.Window(label); err != nil {
				t.Fatalf("%s of --date %s rendered %q, which is not a %s partition: %v", m[0], date, label, j.Partition.Grain, err)
			}
		}
	})
}
