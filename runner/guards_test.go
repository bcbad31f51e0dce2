package runner

import (
	"testing"
	"time"
)

// A key's values are shown as text quoted, whatever Go type the driver
// gave, so that a trailing space or an empty text shows; a key held twice
// is a failure that idem_failures records.
func TestRepeatedKeyError(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{int64(7), `"7"`},
		{[]byte("AB12 "), `"AB12 "`},
		{"", `""`},
		{nil, "NULL"},
		{time.Date(2026, 11, 28, 10, 0, 0, 0, time.FixedZone("x", 3600)), `"2026-11-28 09:00:00"`},
	} {
		if got := keyText(c.v); got != c.want {
			t.Errorf("keyText(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
	err := &RepeatedKeyError{Table: "sales.orders", Key: []string{"id", "line"}, Value: []string{`"1"`, `"2"`}, Rows: 3}
	const head = `sales.orders holds key {id="1", line="2"} in 3 rows`
	if got := err.Error(); len(got) < len(head) || got[:len(head)] != head {
		t.Errorf("Error() = %q, want it to begin %q", got, head)
	}
	if !Recorded(err) {
		t.Error("a key held twice is not recorded in idem_failures")
	}
}
