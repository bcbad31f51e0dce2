package runner

import "testing"

func TestPickField(t *testing.T) {
	names := []string{"id", "n", "day", "note", "doc", "ok"}
	types := map[string]string{"id": "BIGINT", "n": "DECIMAL(12,2)", "day": "DATE", "note": "VARCHAR", "doc": "JSON", "ok": "BOOLEAN"}
	for _, c := range []struct {
		vals    []string
		protect []string
		col     int
		to      string
	}{
		{[]string{"1", "2.50", "2024-02-29", "hi", "{}", "true"}, []string{"id"}, 3, "hi~"},                           // text first
		{[]string{"1", "2.50", "2024-02-29", "", "{}", "true"}, []string{"id"}, 1, "3.50"},                            // an empty text is left alone
		{[]string{"1", "", "2024-02-29", "", "{}", ""}, []string{"id"}, 2, "2028-02-29"},                              // a leap day stays a day
		{[]string{"1", "", "", "", "{}", "false"}, []string{"id"}, 5, "true"},                                         // a boolean flips
		{[]string{"1", "x1", "", "", `{"a":1}`, ""}, []string{"id"}, -1, ""},                                          // nothing safe: a number that is not one, JSON
		{[]string{"1", "2.50", "2024-02-29", "hi", "{}", "true"}, []string{"id", "note", "n", "ok"}, 2, "2028-02-29"}, // protected columns are skipped
	} {
		col, to := pickField(names, c.vals, c.protect, types)
		if col != c.col || to != c.to {
			t.Errorf("pickField(%q, protect %q) = %d %q, want %d %q", c.vals, c.protect, col, to, c.col, c.to)
		}
	}
}
