package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIndexName(t *testing.T) {
	if got := IndexName(Table{Name: "orders"}, IndexKey); got != "orders__idem_key" {
		t.Errorf("short name: %q", got)
	}
	long1 := strings.Repeat("a", 60) + "x"
	long2 := strings.Repeat("a", 60) + "y"
	n1, n2 := IndexName(Table{Name: long1}, IndexPartition), IndexName(Table{Name: long2}, IndexPartition)
	if len(n1) > MaxIdentBytes || len(n2) > MaxIdentBytes {
		t.Errorf("too long: %q (%d), %q (%d)", n1, len(n1), n2, len(n2))
	}
	if n1 == n2 {
		t.Errorf("two long table names share index name %q", n1)
	}
	if !strings.HasSuffix(n1, "__idem_partition") {
		t.Errorf("purpose lost: %q", n1)
	}
	multi := strings.Repeat("é", 40) // 80 bytes: the cut must not split a character
	if n := IndexName(Table{Name: multi}, IndexKey); !utf8.ValidString(n) || len(n) > MaxIdentBytes {
		t.Errorf("multi-byte name cut badly: %q", n)
	}
}
