package input

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// List expands patterns (relative to dir) into a sorted list of absolute
// paths of regular files; a file two patterns match is listed once. Each
// path is exact from here on: nothing globs it again, so a file named
// d[1].csv is read as that file. No match is not an error here: the
// runner decides what an empty input means.
func List(dir string, patterns []string) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	for _, p := range patterns {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		paths, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("source.files %q: %w", p, err)
		}
		for _, m := range paths {
			st, err := os.Stat(m)
			if err != nil {
				return nil, err
			}
			if st.Mode().IsRegular() && !seen[m] {
				seen[m] = true
				files = append(files, m)
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// Fingerprint hashes the files' bytes, as stored (compressed or not).
// Names and order do not count: the same bytes under another name are the
// same input, and a file listed twice counts twice.
func Fingerprint(paths []string) (string, error) {
	k := strings.Join(paths, "\x00")
	ahead.Lock()
	a := ahead.m[k]
	delete(ahead.m, k)
	ahead.Unlock()
	if a != nil {
		<-a.done
		return a.fp, a.err
	}
	return fingerprint(paths)
}

// ahead holds the fingerprints FingerprintAhead is taking, by path list.
var ahead = struct {
	sync.Mutex
	m map[string]*aheadSum
}{m: map[string]*aheadSum{}}

type aheadSum struct {
	done chan struct{}
	fp   string
	err  error
}

// FingerprintAhead starts Fingerprint(paths) in the background, so that
// reading the files overlaps what comes before a run needs their hash
// (opening the target); the next Fingerprint of the same list, in this
// process, takes that result once, as if it had hashed the files then.
// stop forgets the result if no Fingerprint took it.
func FingerprintAhead(paths []string) (stop func()) {
	k := strings.Join(paths, "\x00")
	a := &aheadSum{done: make(chan struct{})}
	ahead.Lock()
	ahead.m[k] = a
	ahead.Unlock()
	go func() {
		a.fp, a.err = fingerprint(paths)
		close(a.done)
	}()
	return func() {
		ahead.Lock()
		if ahead.m[k] == a {
			delete(ahead.m, k)
		}
		ahead.Unlock()
	}
}

func fingerprint(paths []string) (string, error) {
	sums := make([]string, 0, len(paths))
	for _, p := range paths {
		s, err := hashFile(p)
		if err != nil {
			return "", err
		}
		sums = append(sums, s)
	}
	return combine(sums), nil
}

// combine is the fingerprint of files whose bytes hash to sums.
func combine(sums []string) string {
	sums = slices.Clone(sums)
	sort.Strings(sums)
	h := sha256.New()
	fmt.Fprintf(h, "files:%d\n", len(sums))
	for _, s := range sums {
		io.WriteString(h, s+"\n")
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
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

// Headers reads the CSV files' headers only: the columns the first names
// (in its order), or the located fault of a header that is bad (a name
// given twice, an empty one, one too long) or that names other columns
// than the first file's. It lets a job's column names be checked before
// anything else is read.
func Headers(paths []string) ([]string, error) {
	in := &Input{}
	var first string
	for i, p := range paths {
		f, _, names, err := openCSV(p)
		if err != nil {
			return nil, err
		}
		f.Close()
		if i == 0 {
			first = p
			for _, n := range names {
				in.addColumn(n)
			}
		}
		if _, err := in.mapHeader(p, first, names); err != nil {
			return nil, err
		}
	}
	out := make([]string, len(in.Columns))
	for i, c := range in.Columns {
		out[i] = c.Name
	}
	return out, nil
}

// Delimiter is the delimiter a CSV file's header uses (see the rules in
// csv.go).
func Delimiter(path string) (byte, error) {
	f, c, _, err := openCSV(path)
	if err != nil {
		return 0, err
	}
	f.Close()
	return c.delim, nil
}
