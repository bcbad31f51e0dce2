package objstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/idemdata/idem/input/objstore"
	"github.com/idemdata/idem/internal/s3fake"
)

// newStore starts an in-process S3-compatible server (unit tests only; the
// conformance cases use a server process) and returns the query a bucket
// URL needs to reach it.
func newStore(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(s3fake.New())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAIDEMTESTKEY00001")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "idem/test+secret=never-printed")
	t.Setenv("AWS_REGION", "us-east-1")
	return "?endpoint=" + url.QueryEscape(srv.URL) + "&use_path_style=true"
}

func put(t *testing.T, bucketURL, key, body string) {
	t.Helper()
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, bucketURL)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.WriteAll(ctx, key, []byte(body), nil))
}

func del(t *testing.T, bucketURL, key string) {
	t.Helper()
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, bucketURL)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Delete(ctx, key))
}

func urls(objs []objstore.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.URL)
	}
	return out
}

func TestListGlobs(t *testing.T) {
	q := newStore(t)
	bu := "s3://globs" + q
	for _, k := range []string{"raw/2026-11-28/a.csv", "raw/2026-11-28/b.csv", "raw/2026-11-28/deep/c.csv", "raw/2026-11-28/x.json", "raw/2026-11-29/a.csv", "rawx/a.csv"} {
		put(t, bu, k, "id\n1\n")
	}
	ctx := context.Background()
	cases := map[string][]string{
		"raw/2026-11-28/*.csv":    {"2026-11-28/a.csv", "2026-11-28/b.csv"},
		"raw/2026-11-28/**/*.csv": {"2026-11-28/a.csv", "2026-11-28/b.csv", "2026-11-28/deep/c.csv"},
		"raw/**/a.csv":            {"2026-11-28/a.csv", "2026-11-29/a.csv"},
		"raw/2026-11-2[9]/?.csv":  {"2026-11-29/a.csv"},
		"raw/2026-11-28/a.csv":    {"2026-11-28/a.csv"},
		"raw/none/*.csv":          nil,
	}
	for pat, want := range cases {
		l, err := objstore.List(ctx, []string{"s3://globs/" + pat + q})
		require.NoError(t, err, pat)
		var got []string
		for _, u := range urls(l.Objects) {
			got = append(got, strings.TrimPrefix(u, "s3://globs/raw/"))
		}
		l.Close()
		require.Equal(t, want, got, pat)
	}
}

func TestListPagesAndIdentity(t *testing.T) {
	q := newStore(t)
	bu := "s3://many" + q
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, bu)
	require.NoError(t, err)
	const n = 2500 // three pages of 1,000
	for i := range n {
		require.NoError(t, b.WriteAll(ctx, fmt.Sprintf("p/%05d.csv", i), []byte("id\n1\n"), nil))
	}
	b.Close()
	l, err := objstore.List(ctx, []string{"s3://many/p/*.csv" + q})
	require.NoError(t, err)
	defer l.Close()
	require.Len(t, l.Objects, n)
	require.Equal(t, "s3://many/p/00000.csv", l.Objects[0].URL, "no endpoint or query in the URL")
	require.NotEmpty(t, l.Objects[0].Identity)
	fp := objstore.Fingerprint(l.Objects)

	// The same size, the same second: another ETag, another fingerprint.
	put(t, bu, "p/01234.csv", "id\n2\n")
	l2, err := objstore.List(ctx, []string{"s3://many/p/*.csv" + q})
	require.NoError(t, err)
	defer l2.Close()
	require.NotEqual(t, fp, objstore.Fingerprint(l2.Objects))
}

func TestFetchAtListedIdentity(t *testing.T) {
	q := newStore(t)
	bu := "s3://fetch" + q
	put(t, bu, "in/a.csv.gz", "first")
	put(t, bu, "in/b.csv", "id\n1\n")
	ctx := context.Background()
	l, err := objstore.List(ctx, []string{"s3://fetch/in/*" + q})
	require.NoError(t, err)
	defer l.Close()
	require.Len(t, l.Objects, 2)

	base := t.TempDir()
	sp, err := objstore.NewSpool(base)
	require.NoError(t, err)
	f, err := sp.Fetch(ctx, l.Objects[0])
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(f.Path, "a.csv.gz"), "the name keeps its extension: %s", f.Path)
	b, err := os.ReadFile(f.Path)
	require.NoError(t, err)
	require.Equal(t, "first", string(b))
	require.Len(t, f.SHA256, 64)

	// Replaced after the listing: refused, naming the object.
	put(t, bu, "in/a.csv.gz", "secnd")
	_, err = sp.Fetch(ctx, l.Objects[0])
	require.ErrorIs(t, err, objstore.ErrChanged)
	require.Contains(t, err.Error(), "s3://fetch/in/a.csv.gz")
	// Deleted after the listing: refused too.
	del(t, bu, "in/b.csv")
	_, err = sp.Fetch(ctx, l.Objects[1])
	require.ErrorIs(t, err, objstore.ErrChanged)
	require.Contains(t, err.Error(), "s3://fetch/in/b.csv")

	require.NoError(t, sp.Remove())
	ents, _ := os.ReadDir(base)
	require.Empty(t, ents)
}

func TestStaleSpoolCleaned(t *testing.T) {
	base := t.TempDir()
	// A spool of a process that is gone (pid 0x7ffffff0 is none), and one
	// of this process, which is live.
	dead := filepath.Join(base, "idem-spool-2147483632-1")
	live := filepath.Join(base, fmt.Sprintf("idem-spool-%d-1", os.Getpid()))
	require.NoError(t, os.MkdirAll(dead, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dead, "x.csv"), []byte("x"), 0o600))
	require.NoError(t, os.MkdirAll(live, 0o700))
	objstore.CleanStale(base)
	_, err := os.Stat(dead)
	require.True(t, errors.Is(err, os.ErrNotExist), "a dead run's spool is removed")
	_, err = os.Stat(live)
	require.NoError(t, err, "a live run's spool is kept")
}

func TestHTTPSConditional(t *testing.T) {
	body, etag := "id\n1\n", `"v1"`
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := r.Header.Get("If-Match"); m != "" && m != etag {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		w.Header().Set("ETag", etag)
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	old := objstore.HTTPClient
	objstore.HTTPClient = srv.Client()
	defer func() { objstore.HTTPClient = old }()
	ctx := context.Background()
	u := srv.URL + "/data/orders.csv?X-Amz-Signature=deadbeefsecret&sig=alsosecret"
	l, err := objstore.List(ctx, []string{u})
	require.NoError(t, err)
	require.Len(t, l.Objects, 1)
	o := l.Objects[0]
	require.Equal(t, etag, o.Identity)
	require.NotContains(t, o.URL, "secret", "a signed URL's query is never shown")
	sp, err := objstore.NewSpool(t.TempDir())
	require.NoError(t, err)
	defer sp.Remove()
	f, err := sp.Fetch(ctx, o)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(f.Path, "orders.csv"))

	etag = `"v2"`
	_, err = sp.Fetch(ctx, o)
	require.ErrorIs(t, err, objstore.ErrChanged)
	require.NotContains(t, err.Error(), "secret")
}

func TestRedact(t *testing.T) {
	for _, s := range []string{
		"GET https://acct.blob.core.windows.net/c/x.csv?sv=2020&sig=SASSECRET: 403",
		"reading s3://b/k?endpoint=http://u:SASSECRET@h:1&x=1",
		"https://user:SASSECRET@host/path",
	} {
		require.NotContains(t, objstore.Redact(s), "SASSECRET", s)
	}
}

// A scheduler acts on the kind of failure: no credentials needs a person
// (exit 1), no answer after the retries may pass (exit 75). Neither message
// holds a credential or the URL's query.
func TestStoreErrors(t *testing.T) {
	ctx := context.Background()
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_REGION", "us-east-1")
	_, err := objstore.List(ctx, []string{"s3://b/x/*.csv?endpoint=http://127.0.0.1:1&use_path_style=true"})
	var se *objstore.Error
	require.ErrorAs(t, err, &se)
	require.False(t, se.Temp, "no credentials: %v", err)
	require.Contains(t, err.Error(), "s3://b/x/")
	require.NotContains(t, err.Error(), "endpoint=")

	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAIDEMTESTKEY00002")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "idem/test+secret=never-printed")
	_, err = objstore.List(ctx, []string{"s3://b/x/*.csv?endpoint=http://127.0.0.1:1&use_path_style=true"})
	require.ErrorAs(t, err, &se)
	require.True(t, se.Temp, "no answer after the retries: %v", err)
	require.NotContains(t, err.Error(), "never-printed")
	require.NotContains(t, err.Error(), "AKIAIDEMTESTKEY00002")

	for status, temp := range map[int]bool{http.StatusServiceUnavailable: true, http.StatusTooManyRequests: true, http.StatusForbidden: false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
		_, err := objstore.List(ctx, []string{srv.URL + "/x.csv?sig=SASSECRET"})
		srv.Close()
		require.ErrorAs(t, err, &se, status)
		require.Equal(t, temp, se.Temp, status)
		require.NotContains(t, err.Error(), "SASSECRET")
	}
}
