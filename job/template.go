package job

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/idemdata/idem/engine"
)

var templateRE = regexp.MustCompile(`\{\{\s*([A-Za-z_]*)\s*\}\}`)

var templateVars = []string{"date", "start", "end", "yyyy", "mm", "dd", "hh"}

// checkTemplate reports template variables that do not exist.
func checkTemplate(s string) error {
	for _, m := range templateRE.FindAllStringSubmatch(s, -1) {
		if !isTemplateVar(m[1]) {
			return fmt.Errorf("unknown template variable {{ %s }} (known: %s)", m[1], strings.Join(templateVars, ", "))
		}
	}
	if rest := templateRE.ReplaceAllString(s, ""); strings.Contains(rest, "{{") {
		return fmt.Errorf("unclosed or malformed {{ … }} template")
	}
	return nil
}

func isTemplateVar(name string) bool {
	for _, v := range templateVars {
		if v == name {
			return true
		}
	}
	return false
}

// RenderPath renders a file glob's templates as plain text.
func RenderPath(s string, w Window) string {
	return templateRE.ReplaceAllStringFunc(s, func(m string) string {
		name := templateRE.FindStringSubmatch(m)[1]
		switch name {
		case "date":
			return w.Label
		case "start":
			return w.Start.Format("2006-01-02T15:04:05")
		case "end":
			return w.End.Format("2006-01-02T15:04:05")
		}
		width := 2
		if name == "yyyy" {
			width = 4
		}
		return fmt.Sprintf("%0*d", width, part(w, name))
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
		switch name := templateRE.FindStringSubmatch(m)[1]; name {
		case "date", "start":
			return d.TimeLiteral(w.Start, kind)
		case "end":
			return d.TimeLiteral(w.End, kind)
		default:
			return strconv.Itoa(part(w, name))
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
