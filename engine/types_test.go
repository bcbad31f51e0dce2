package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTypeChange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		staged, target string
		change         bool
	}{
		{"BIGINT", "BIGINT", false},
		{"INTEGER", "INT8", false},
		{"BIGINT", "DECIMAL(12,2)", false},
		{"BIGINT", "DOUBLE", false},
		{"DECIMAL(12,2)", "NUMERIC", false},
		{"DATE", "TIMESTAMP", false},
		{"TIMESTAMP", "TIMESTAMPTZ", false},
		{"TIMESTAMP WITH TIME ZONE", "TIMESTAMP", false},
		{"BIGINT", "VARCHAR", false},
		{"UUID", "TEXT", false},
		{"DOUBLE", "BIGINT", true},
		{"DECIMAL(12,2)", "INT8", true},
		{"VARCHAR", "BIGINT", true},
		{"TEXT", "DATE", true},
		{"TIMESTAMP", "DATE", true},
		{"BOOLEAN", "INTEGER", true},
		{"VARCHAR", "BOOLEAN", true},
	}
	for _, tc := range tests {
		msg := TypeChange("c", tc.staged, tc.target)
		if tc.change {
			require.Equal(t, `column "c" is `+tc.target+` in the target but `+tc.staged+` in the input`, msg, "%s into %s", tc.staged, tc.target)
		} else {
			require.Empty(t, msg, "%s into %s", tc.staged, tc.target)
		}
	}
}

func TestFamilyOfClickHouse(t *testing.T) {
	for typ, want := range map[string]Family{
		"Nullable(Int64)": FamilyInteger, "UInt8": FamilyInteger, "Nullable(Float64)": FamilyFloat,
		"LowCardinality(Nullable(String))": FamilyText, "Nullable(Decimal(12, 2))": FamilyDecimal,
		"Nullable(Date32)": FamilyDate, "DateTime64(6, 'UTC')": FamilyTimestamp, "Nullable(Bool)": FamilyBool,
	} {
		if got := FamilyOf(typ); got != want {
			t.Errorf("FamilyOf(%q) = %v, want %v", typ, got, want)
		}
	}
	if !IsFloat("Nullable(Float32)") || IsFloat("Nullable(Int64)") {
		t.Error("IsFloat misreads ClickHouse types")
	}
}
