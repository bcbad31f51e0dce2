package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// RunID derives a run id from what the run loads, never from the clock.
func RunID(job, partition, definitionHash, fingerprint string) string {
	sum := sha256.Sum256([]byte(job + "\x00" + partition + "\x00" + definitionHash + "\x00" + fingerprint))
	return hex.EncodeToString(sum[:12])
}

// FingerprintRows turns a staged query's count and order-independent
// checksum into a fingerprint.
func FingerprintRows(count int64, checksum string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "rows:%d:%s", count, checksum))
	return hex.EncodeToString(sum[:16])
}
