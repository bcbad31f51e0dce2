// Package objstore lists and reads input objects in object storage (S3 and
// S3-compatible stores) and over HTTPS, for the one reader: a listing gives
// each object's identity (ETag), from which a run id is taken without
// reading a byte, and each object is then read at that identity only, into
// a spool file the reader reads as it reads a local one.
package objstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gocloud.dev/blob"
)

// ErrChanged marks an object replaced or deleted between its listing and
// its reading: the input is moving, and a later run reads it as it is then.
var ErrChanged = errors.New("an input object changed after it was listed")

// Object is one listed input object.
type Object struct {
	// URL names the object in messages and the ledger: scheme, bucket and
	// key, never the query (endpoint options) nor any credential.
	URL string
	// Size is its length in bytes as listed.
	Size int64
	// Identity is what the store says changes with every write of the
	// object (an ETag).
	Identity string
	src      source
	key      string
}

// source is one bucket, or one HTTPS server.
type source interface {
	// open reads key, failing with ErrChanged unless it is still at
	// identity.
	open(ctx context.Context, key, identity string) (io.ReadCloser, error)
	close() error
}

// IsURL reports whether a source.files entry names objects by URL rather
// than local files.
func IsURL(pattern string) bool {
	scheme, _, ok := strings.Cut(pattern, "://")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "s3", "gs", "azblob", "http", "https":
		return true
	}
	return false
}

// Listing is the objects a set of patterns matched; Close releases the
// connections its objects are read through.
type Listing struct {
	Objects []Object
	sources []source
}

// Close releases the listing's connections.
func (l *Listing) Close() error {
	var errs []error
	for _, s := range l.sources {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// List lists the objects each pattern matches, sorted by URL; an object two
// patterns match is listed once. A pattern's key may hold *, ?, […] and
// ** (across /); only the keys under its longest literal prefix are
// listed, page after page. An https:// URL names one object exactly. No
// match is not an error here: the runner decides what an empty input
// means.
func List(ctx context.Context, patterns []string) (*Listing, error) {
	l := &Listing{}
	seen := map[string]bool{}
	for _, p := range patterns {
		objs, src, err := listOne(ctx, p)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.sources = append(l.sources, src)
		for _, o := range objs {
			if !seen[o.URL] {
				seen[o.URL] = true
				l.Objects = append(l.Objects, o)
			}
		}
	}
	sort.Slice(l.Objects, func(i, j int) bool { return l.Objects[i].URL < l.Objects[j].URL })
	return l, nil
}

func listOne(ctx context.Context, pattern string) ([]Object, source, error) {
	scheme, _, _ := strings.Cut(pattern, "://")
	switch strings.ToLower(scheme) {
	case "http", "https":
		u, err := url.Parse(pattern)
		if err != nil {
			return nil, nil, fmt.Errorf("source.files %q: %s", Redact(pattern), Redact(err.Error()))
		}
		return listHTTP(ctx, u)
	default:
		u, keyPattern := splitBucketURL(pattern)
		return listBucket(ctx, u, keyPattern)
	}
}

// queryStart finds a bucket URL's query: the first ? followed by a
// name=, so that a ? in the key is the glob's any-one-character.
var queryStart = regexp.MustCompile(`\?[A-Za-z_][A-Za-z0-9_]*=`)

// splitBucketURL splits scheme://bucket/key-pattern?query into the
// bucket's URL (with the query) and the key pattern, taken as written.
func splitBucketURL(pattern string) (*url.URL, string) {
	scheme, rest, _ := strings.Cut(pattern, "://")
	query := ""
	if loc := queryStart.FindStringIndex(rest); loc != nil {
		rest, query = rest[:loc[0]], rest[loc[0]+1:]
	}
	host, key, _ := strings.Cut(rest, "/")
	return &url.URL{Scheme: strings.ToLower(scheme), Host: host, RawQuery: query}, key
}

// listBucket lists the keys under the pattern's longest literal prefix
// and keeps those it matches.
func listBucket(ctx context.Context, u *url.URL, keyPattern string) ([]Object, source, error) {
	if !doublestar.ValidatePattern(keyPattern) {
		return nil, nil, fmt.Errorf("source.files %q: the key is not a valid pattern", display(u, keyPattern))
	}
	prefix := literalPrefix(keyPattern)
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, nil, fmt.Errorf("opening %s: %s", display(u, ""), Redact(err.Error()))
	}
	src := &bucket{b: b, drv: driverFor(u.Scheme)}
	var objs []Object
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		lo, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Close()
			return nil, nil, storeError("listing", display(u, prefix), err)
		}
		if lo.IsDir || !doublestar.MatchUnvalidated(keyPattern, lo.Key) {
			continue
		}
		objs = append(objs, Object{URL: display(u, lo.Key), Size: lo.Size, Identity: src.drv.identity(lo), src: src, key: lo.Key})
	}
	return objs, src, nil
}

// literalPrefix is the part of a key pattern before its first
// metacharacter: every key it matches starts with it.
func literalPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, `*?[{\`); i >= 0 {
		return pattern[:i]
	}
	return pattern
}

// display is a bucket URL for messages: scheme, bucket and key only.
func display(u *url.URL, key string) string {
	return strings.ToLower(u.Scheme) + "://" + u.Host + "/" + key
}

// storeError is a store's failure to do what on url, with its reason.
func storeError(what, url string, err error) error {
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	return &Error{URL: url, Msg: fmt.Sprintf("%s %s: %s", what, url, Redact(err.Error())), Temp: temporary(err)}
}

// Error is a store's refusal or failure, its message redacted.
type Error struct {
	URL string
	Msg string
	// Temp: trying again later may succeed (throttling, a timeout, the
	// store unavailable after the library's retries).
	Temp bool
}

func (e *Error) Error() string { return e.Msg }

// Fingerprint is the input's fingerprint from the listing alone: each
// object's URL, size and identity. Any object written again (a new ETag)
// changes it; no object's bytes are read.
func Fingerprint(objs []Object) string {
	lines := make([]string, len(objs))
	for i, o := range objs {
		lines[i] = fmt.Sprintf("%q %d %q", o.URL, o.Size, o.Identity)
	}
	sort.Strings(lines)
	h := sha256.New()
	fmt.Fprintf(h, "objects:%d\n", len(lines))
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
