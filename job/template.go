package job

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
)

// templateRE matches {{ name }} and {{ name + N unit }} / {{ name - N unit }}.
var templateRE = regexp.MustCompile(`\{\{\s*([A-Za-z_]*)\s*(?:([+-])\s*([0-9]+)\s*([a-z]+)\s*)?\}\}`)

var templateVars = []string{"date", "start", "end", "yyyy", "mm", "dd", "hh"}

// templateUnits are the units an offset may use: {{ date + 1d }}.
var templateUnits = []string{"h", "d", "mo"}

// maxOffset bounds an offset's count, so a typo cannot overflow a date.
const maxOffset = 10000

// templateRef is one {{ … }} with its optional offset.
type templateRef struct {
	name  string
	sign  int // +1 or -1; 0 without an offset
	count int
	unit  string
}

func parseRef(sub []string) templateRef {
	r := templateRef{name: sub[1]}
	if sub[2] != "" {
		r.sign = 1
		if sub[2] == "-" {
			r.sign = -1
		}
		r.count, _ = strconv.Atoi(sub[3])
		r.unit = sub[4]
	}
	return r
}

// shift moves t by the reference's offset.
func (r templateRef) shift(t time.Time) time.Time {
	n := r.sign * r.count
	switch r.unit {
	case "h":
		return t.Add(time.Duration(n) * time.Hour)
	case "d":
		return t.AddDate(0, 0, n)
	case "mo":
		return t.AddDate(0, n, 0)
	}
	return t
}

// reach is how far past the window's start the reference points (0 for
// none or a backward offset), as a duration: {{ date + 1d }} reaches 24h.
func (r templateRef) reach() time.Duration {
	if r.sign <= 0 {
		return 0
	}
	t0 := time.Date(2000, 1, 31, 0, 0, 0, 0, time.UTC) // month offsets: the longest case
	return r.shift(t0).Sub(t0)
}

// checkTemplate reports template variables that do not exist and offsets
// that are malformed.
func checkTemplate(s string) error {
	for _, m := range templateRE.FindAllStringSubmatch(s, -1) {
		r := parseRef(m)
		if !isTemplateVar(r.name) {
			return fmt.Errorf("unknown template variable {{ %s }} (known: %s)", r.name, strings.Join(templateVars, ", "))
		}
		if r.sign != 0 {
			if !isOneOf(r.unit, templateUnits) {
				return fmt.Errorf("%s: unknown unit %q (an offset is like {{ date + 1d }}; units: h, d, mo)", m[0], r.unit)
			}
			if r.count > maxOffset {
				return fmt.Errorf("%s: an offset of at most %d", m[0], maxOffset)
			}
		}
	}
	if rest := templateRE.ReplaceAllString(s, ""); strings.Contains(rest, "{{") {
		return fmt.Errorf("unclosed or malformed {{ … }} template")
	}
	return nil
}

func isTemplateVar(name string) bool { return isOneOf(name, templateVars) }

func isOneOf(s string, list []string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// templateReach is the furthest forward offset among the templates of s.
func templateReach(s string) time.Duration {
	var most time.Duration
	for _, m := range templateRE.FindAllStringSubmatch(s, -1) {
		most = max(most, parseRef(m).reach())
	}
	return most
}

// shifted is w moved by the reference's offset: the window {{ date + 1d }}
// names.
func (r templateRef) shifted(w Window) Window {
	if r.sign == 0 {
		return w
	}
	w.Start, w.End = r.shift(w.Start), r.shift(w.End)
	w.Label = w.Start.Format(grainLayouts[w.Grain])
	return w
}

// RenderPath renders a file glob's templates as plain text.
func RenderPath(s string, w Window) string {
	return templateRE.ReplaceAllStringFunc(s, func(m string) string {
		r := parseRef(templateRE.FindStringSubmatch(m))
		sw := r.shifted(w)
		switch r.name {
		case "date":
			return sw.Label
		case "start":
			return sw.Start.Format("2006-01-02T15:04:05")
		case "end":
			return sw.End.Format("2006-01-02T15:04:05")
		}
		width := 2
		if r.name == "yyyy" {
			width = 4
		}
		return fmt.Sprintf("%0*d", width, part(sw, r.name))
	})
}

// RenderSQL renders a query's templates as typed literals of the dialect:
// dates as DATE, hours as TIMESTAMP, zoned windows as TIMESTAMPTZ, and the
// yyyy/mm/dd/hh parts as integers. Nothing from the window is spliced in as
// free text.
func RenderSQL(s string, w Window, d engine.Literaler) string {
	kind := engine.KindDate
	switch {
	case w.Zoned:
		kind = engine.KindTimestampTZ
	case w.Grain == GrainHour:
		kind = engine.KindTimestamp
	}
	return templateRE.ReplaceAllStringFunc(s, func(m string) string {
		r := parseRef(templateRE.FindStringSubmatch(m))
		sw := r.shifted(w)
		switch r.name {
		case "date", "start":
			return d.TimeLiteral(sw.Start, kind)
		case "end":
			return d.TimeLiteral(sw.End, kind)
		default:
			return strconv.Itoa(part(sw, r.name))
		}
	})
}

func part(w Window, name string) int {
	switch name {
	case "yyyy":
		return w.Start.Year()
	case "mm":
		return int(w.Start.Month())
	case "dd":
		return w.Start.Day()
	case "hh":
		return w.Start.Hour()
	}
	return 0
}
