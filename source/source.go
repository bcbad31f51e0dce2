// Package source resolves a job's input for one partition and fingerprints
// it: the fingerprint is what makes a run id change when, and only when, the
// input changes.
package source

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Files expands globs (relative to dir) into a sorted list of absolute
// paths of regular files; a file matched by two globs is listed once. No
// match is not an error here: the runner decides what an empty input means.
func Files(dir string, globs []string) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	for _, glob := range globs {
		if !filepath.IsAbs(glob) {
			glob = filepath.Join(dir, glob)
		}
		paths, err := filepath.Glob(glob)
		if err != nil {
			return nil, fmt.Errorf("source.files %q: %w", glob, err)
		}
		for _, p := range paths {
			st, err := os.Stat(p)
			if err != nil {
				return nil, err
			}
			if st.Mode().IsRegular() && !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// FingerprintFiles hashes the files' bytes. Names and order do not count:
// the same bytes under another name are the same input, and a file listed
// twice counts twice (its rows would load twice).
func FingerprintFiles(paths []string) (string, error) {
	sums := make([]string, 0, len(paths))
	for _, p := range paths {
		s, err := hashFile(p)
		if err != nil {
			return "", err
		}
		sums = append(sums, s)
	}
	sort.Strings(sums)
	h := sha256.New()
	fmt.Fprintf(h, "files:%d\n", len(sums))
	for _, s := range sums {
		io.WriteString(h, s+"\n")
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// FingerprintRows turns a staged result's count and order-independent
// checksum into a fingerprint.
func FingerprintRows(count int64, checksum string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "rows:%d:%s", count, checksum))
	return hex.EncodeToString(sum[:16])
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RunID derives a run id from what the run loads, never from the clock.
func RunID(job, partition, definitionHash, fingerprint string) string {
	sum := sha256.Sum256([]byte(job + "\x00" + partition + "\x00" + definitionHash + "\x00" + fingerprint))
	return hex.EncodeToString(sum[:12])
}
