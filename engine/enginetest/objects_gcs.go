package enginetest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	_ "gocloud.dev/blob/gcsblob" // gs:// URLs
)

// GCS is the Google Cloud Storage emulator the GCS cases use,
// fake-gcs-server, as .ci/run installs and starts it (host:port).
var GCS = Server{
	Name:    "gcs",
	EnvVar:  "IDEM_TEST_GCS",
	Default: "127.0.0.1:9480",
	Start:   "go install github.com/fsouza/fake-gcs-server@v1.56.1 && fake-gcs-server -scheme http -host 127.0.0.1 -port 9480 -backend memory &",
	Ping: func(ctx context.Context, host string) error {
		return pingHTTP(ctx, "http://"+host+"/storage/v1/b")
	},
}

// gcsCounter stands between the runs and the emulator, counting per
// bucket the listings and the reads of object bytes (the emulator counts
// nothing). STORAGE_EMULATOR_HOST names it, in process and in the binary.
type gcsCounter struct {
	mu          sync.Mutex
	gets, lists map[string]int
}

var (
	gcsOnce  sync.Once
	gcsProxy *gcsCounter
)

func (c *gcsCounter) ServeHTTP(w http.ResponseWriter, r *http.Request, next http.Handler) {
	p := strings.TrimPrefix(r.URL.Path, "/download")
	if r.Method == http.MethodGet {
		c.mu.Lock()
		switch {
		case strings.HasPrefix(p, "/storage/v1/b/") && strings.HasSuffix(p, "/o"):
			c.lists[strings.Split(p, "/")[4]]++
		case strings.HasPrefix(p, "/storage/v1/b/") && r.URL.Query().Get("alt") == "media":
			c.gets[strings.Split(p, "/")[4]]++
		case !strings.HasPrefix(p, "/storage/") && strings.Count(p, "/") >= 2:
			c.gets[strings.Split(p, "/")[1]]++ // the XML API: /bucket/key
		}
		c.mu.Unlock()
	}
	next.ServeHTTP(w, r)
}

func (c *gcsCounter) count(bucket, what string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if what == "lists" {
		return c.lists[bucket]
	}
	return c.gets[bucket]
}

// NewGCSBucket creates a bucket of t's own on the emulator (skipping, or
// failing in CI, without one), removed with its objects when t ends.
func NewGCSBucket(t *testing.T) *Bucket {
	t.Helper()
	host := GCS.DSN(t)
	gcsOnce.Do(func() {
		up := &url.URL{Scheme: "http", Host: host}
		gcsProxy = &gcsCounter{gets: map[string]int{}, lists: map[string]int{}}
		rp := httputil.NewSingleHostReverseProxy(up)
		direct := rp.Director
		rp.Director = func(r *http.Request) { // the emulator routes by its own host name
			direct(r)
			r.Host = up.Host
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gcsProxy.ServeHTTP(w, r, rp) }))
		os.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(srv.URL, "http://"))
	})
	b := &Bucket{t: t, Name: bucketName(t), Scheme: "gs"}
	b.counts = func(what string) int { return gcsProxy.count(b.Name, what) }
	resp, err := http.Post("http://"+host+"/storage/v1/b", "application/json", bytes.NewReader([]byte(`{"name":"`+b.Name+`"}`)))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "creating bucket %s", b.Name)
	t.Cleanup(func() {
		b.empty()
		req, _ := http.NewRequest(http.MethodDelete, "http://"+host+"/storage/v1/b/"+b.Name, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return b
}

// testObjectsRunTwiceGCS: ObjectsRunTwice on GCS (identity: generation).
func testObjectsRunTwiceGCS(t *testing.T, h Harness) { objectsRunTwice(t, h, NewGCSBucket(t)) }

// testObjectsReplacedWhileReadGCS: ObjectsReplacedWhileRead on GCS (the
// listed generation is read, and is gone once replaced).
func testObjectsReplacedWhileReadGCS(t *testing.T, h Harness) {
	objectsReplacedWhileRead(t, h, NewGCSBucket(t))
}
