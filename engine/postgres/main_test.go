package postgres_test

import (
	"os"
	"testing"

	"github.com/idemdata/idem/internal/peakrss"
)

// TestMain lets this test binary be peakrss's measuring copy
// (BenchmarkPeakRSS10M).
func TestMain(m *testing.M) {
	peakrss.Serve()
	os.Exit(m.Run())
}
