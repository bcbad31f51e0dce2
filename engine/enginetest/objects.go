package enginetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob" // s3:// URLs

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/internal/s3fake"
	"github.com/idemdata/idem/runner"
)

// S3 is the S3-compatible server the object storage cases use: a process
// of internal/tools/s3server (gofakes3 with conditional reads and a count
// of object reads), as .ci/run starts it.
var S3 = Server{
	Name:    "s3",
	EnvVar:  "IDEM_TEST_S3",
	Default: "http://127.0.0.1:9479",
	Start:   "go run ./internal/tools/s3server -addr 127.0.0.1:9479 &",
	Ping: func(ctx context.Context, endpoint string) error {
		return pingHTTP(ctx, endpoint+s3fake.StatsPath)
	},
}

// pingHTTP checks that a GET of u answers 200.
func pingHTTP(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answers %s: not the test server", u, resp.Status)
	}
	return nil
}

// The test keys: what a run must never print.
const (
	testAccessKey = "AKIAIDEMCONFORMANCE1"
	testSecretKey = "idem+Conformance/Secret=Key0001"
)

var s3Env sync.Once

// Bucket is one test's bucket on the S3 server (or the GCS one).
type Bucket struct {
	t        *testing.T
	endpoint string
	Name     string
	Scheme   string                // s3, gs or azblob
	query    string                // what a URL needs to reach the server
	counts   func(what string) int // what: "" for object reads, "lists"
}

// NewBucket names a bucket of t's own on the S3 server (skipping, or
// failing in CI, without one), and sets the test keys in the environment
// (once: the standard credential chain reads them, in process and in the
// binary).
func NewBucket(t *testing.T) *Bucket {
	t.Helper()
	endpoint := S3.DSN(t)
	s3Env.Do(func() {
		os.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
		os.Setenv("AWS_SECRET_ACCESS_KEY", testSecretKey)
		os.Setenv("AWS_REGION", "us-east-1")
	})
	b := &Bucket{t: t, endpoint: endpoint, Name: bucketName(t), Scheme: "s3"}
	b.query = "?endpoint=" + url.QueryEscape(endpoint) + "&use_path_style=true"
	b.counts = b.count
	t.Cleanup(b.empty)
	return b
}

var buckets atomic.Int64

// bucketName is a bucket name of t's own (of this run of t, with -count).
func bucketName(t *testing.T) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s %d %d", t.Name(), os.Getpid(), buckets.Add(1)))
	return "idem-" + hex.EncodeToString(sum[:8])
}

// URL is a URL (a key or key pattern) in the bucket, with the server's
// endpoint.
func (b *Bucket) URL(key string) string { return b.Scheme + "://" + b.Name + "/" + key + b.query }

func (b *Bucket) open() *blob.Bucket {
	b.t.Helper()
	bk, err := blob.OpenBucket(context.Background(), b.Scheme+"://"+b.Name+b.query)
	require.NoError(b.t, err)
	return bk
}

// Put writes objects, key → content.
func (b *Bucket) Put(objects map[string]string) {
	b.t.Helper()
	bk := b.open()
	defer bk.Close()
	for k, v := range objects {
		require.NoError(b.t, bk.WriteAll(context.Background(), k, []byte(v), nil))
	}
}

// Gets is how many reads of object bytes the server served the bucket.
func (b *Bucket) Gets() int { return b.counts("") }

// Lists is how many listings the server served the bucket.
func (b *Bucket) Lists() int { return b.counts("lists") }

func (b *Bucket) count(what string) int {
	b.t.Helper()
	resp, err := http.Get(b.endpoint + s3fake.StatsPath + "?bucket=" + b.Name + "&what=" + what)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	n, err := strconv.Atoi(strings.TrimSpace(string(body)))
	require.NoError(b.t, err)
	return n
}

// empty deletes the bucket's objects: tests leave nothing behind.
func (b *Bucket) empty() {
	ctx := context.Background()
	bk, err := blob.OpenBucket(ctx, b.Scheme+"://"+b.Name+b.query)
	if err != nil {
		return
	}
	defer bk.Close()
	it := bk.List(nil)
	for {
		o, err := it.Next(ctx)
		if err != nil {
			return
		}
		bk.Delete(ctx, o.Key)
	}
}

// objectsJob reads a day's objects; %s is the files URL.
const objectsJob = `job: orders_objects
source:
  files: '%s'
  format: csv
strategy: partition
partition:
  column: created_at
key: [order_id]
latest_by: updated_at
columns:
  order_id: BIGINT
  amount: DECIMAL(12,2)
  created_at: TIMESTAMP
  updated_at: TIMESTAMP
`

const day28a = `order_id,customer_id,created_at,status,amount,updated_at
2,11,2026-11-28 08:00:00,placed,20.50,2026-11-28 08:00:00
3,12,2026-11-28 09:30:00,shipped,5.25,2026-11-28 12:00:00
`

const day28b = `order_id,customer_id,created_at,status,amount,updated_at
4,13,2026-11-28 23:59:59,placed,7.00,2026-11-28 23:59:59
`

const day29a = `order_id,customer_id,created_at,status,amount,updated_at
5,14,2026-11-29 00:00:01,placed,9.99,2026-11-29 00:05:00
`

// testObjectsRunTwice: an unchanged rerun is skipped from the listing
// alone (no object read, counted at the server); rewriting one object,
// same size, changes its partition only.
func testObjectsRunTwice(t *testing.T, h Harness) { objectsRunTwice(t, h, NewBucket(t)) }

func objectsRunTwice(t *testing.T, h Harness, b *Bucket) {
	e := NewEnv(t, h)
	b.Put(map[string]string{"raw/2026-11-28/a.csv": day28a, "raw/2026-11-28/b.csv": day28b, "raw/2026-11-29/a.csv": day29a})
	j := e.Job(fmt.Sprintf(objectsJob, b.URL("raw/{{ date }}/*.csv")))

	gets0 := b.Gets()
	first := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, first.Action)
	require.Equal(t, int64(3), first.RowsIn)
	e.MustRun(j, "2026-11-29")
	sum28, sum29 := e.Checksum(day28), e.Checksum(day29)
	gets := b.Gets()
	require.Equal(t, 3, gets-gets0, "each object read once")

	second := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionSkipped, second.Action)
	require.Equal(t, first.RunID, second.RunID)
	require.Equal(t, gets, b.Gets(), "an unchanged rerun reads no object")

	// The ledger keeps which objects built the partition, as status
	// shows them, and neither output holds a key.
	st, err := idem.ReadStatus(context.Background(), j, "2026-11-28", "2026-11-28", time.Minute)
	require.NoError(t, err)
	objs := st.Partitions[0].Objects
	require.Len(t, objs, 2)
	require.Equal(t, b.Scheme+"://"+b.Name+"/raw/2026-11-28/a.csv", objs[0].URL)
	require.Equal(t, int64(len(day28a)), objs[0].Size)
	require.NotEmpty(t, objs[0].Identity)
	require.Equal(t, fmt.Sprintf("%x", sha256.Sum256([]byte(day28a))), objs[0].SHA256)
	code, stdout, stderr := RunBinary(t, nil, "status", j.Path, "--from", "2026-11-28", "--to", "2026-11-29", "--json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `"url":"`+b.Scheme+`://`+b.Name+`/raw/2026-11-29/a.csv"`)
	noSecrets(t, stdout+stderr)
	code, stdout, stderr = RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", e.Now.Format(time.RFC3339), "--verbose")
	require.Equal(t, 0, code, stderr)
	noSecrets(t, stdout+stderr)

	// The same size, within the same second: a new ETag.
	b.Put(map[string]string{"raw/2026-11-28/b.csv": strings.Replace(day28b, "placed", "shippd", 1)})
	third := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, third.Action)
	require.NotEqual(t, first.RunID, third.RunID)
	require.NotEqual(t, sum28, e.Checksum(day28))
	require.Equal(t, sum29, e.Checksum(day29), "the other partition is untouched")
	require.Equal(t, []string{"shippd"}, e.Query("SELECT status FROM "+e.Sales("orders")+" WHERE order_id = 4"))
}

// testObjectsReplacedWhileRead: an object replaced between the listing
// and its reading fails the run (exit 75), naming it, with the target as
// it was; the rerun loads the new version.
func testObjectsReplacedWhileRead(t *testing.T, h Harness) {
	objectsReplacedWhileRead(t, h, NewBucket(t))
}

func objectsReplacedWhileRead(t *testing.T, h Harness, b *Bucket) {
	e := NewEnv(t, h)
	b.Put(map[string]string{"raw/2026-11-28/a.csv": day28a, "raw/2026-11-28/b.csv": day28b})
	j := e.Job(fmt.Sprintf(objectsJob, b.URL("raw/{{ date }}/*.csv")))
	e.MustRun(j, "2026-11-28")
	before := e.Checksum(day28)

	b.Put(map[string]string{"raw/2026-11-28/b.csv": strings.Replace(day28b, "7.00", "8.00", 1)})
	goOn := filepath.Join(e.Dir, "go-on")
	lists := b.Lists()
	done := make(chan struct{})
	go func() { // once the run has listed (it then waits for goOn)
		defer close(done)
		deadline := time.Now().Add(time.Minute)
		for b.Lists() == lists && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		// A put right after the listing was asked for may be in its answer
		// (the run then reads that version, rightly, and exits 0: seen
		// once with fake-gcs-server in CI); the run waits at the fetch.
		time.Sleep(500 * time.Millisecond)
		b.Put(map[string]string{"raw/2026-11-28/b.csv": strings.Replace(day28b, "7.00", "9.00", 1)})
		os.WriteFile(goOn, nil, 0o644)
	}()
	code, stdout, stderr := RunBinary(t, []string{"IDEM_WAIT_AT=" + runner.WaitBeforeFetch, "IDEM_WAIT_FOR=" + goOn},
		"run", j.Path, "--date", "2026-11-28", "--as-of", e.Now.Format(time.RFC3339))
	<-done
	require.Equal(t, 75, code, "stdout: %s\nstderr: %s", stdout, stderr)
	require.Contains(t, stderr, b.Scheme+"://"+b.Name+"/raw/2026-11-28/b.csv")
	require.Equal(t, before, e.Checksum(day28), "nothing written")
	noSecrets(t, stdout+stderr)

	again := e.MustRun(j, "2026-11-28")
	require.Equal(t, runner.ActionLoaded, again.Action)
	require.Equal(t, []string{"9"}, e.Query("SELECT CAST(amount AS INTEGER) FROM "+e.Sales("orders")+" WHERE order_id = 4"))
}

// testObjectsManyAndGlob: 2,500 objects under one prefix (three listing
// pages), matched by a ** glob across folders.
func testObjectsManyAndGlob(t *testing.T, h Harness) {
	b := NewBucket(t)
	e := NewEnv(t, h)
	objs := map[string]string{}
	const n = 2500
	for i := range n {
		objs[fmt.Sprintf("raw/2026-11-28/part%d/%05d.csv", i%3, i)] = fmt.Sprintf("order_id,customer_id,created_at,status,amount,updated_at\n%d,1,2026-11-28 08:00:00,placed,1.00,2026-11-28 08:00:00\n", i)
	}
	objs["raw/2026-11-28/notes.txt"] = "not an input"
	b.Put(objs)
	j := e.Job(fmt.Sprintf(objectsJob, b.URL("raw/{{ date }}/**/*.csv")))
	r := e.MustRun(j, "2026-11-28")
	require.Equal(t, int64(n), r.RowsIn)
	require.Equal(t, int64(n), e.Checksum(day28).Rows)
	gets := b.Gets()
	require.Equal(t, runner.ActionSkipped, e.MustRun(j, "2026-11-28").Action)
	require.Equal(t, gets, b.Gets())
}

// testObjectsKilledWhileFetching: a run killed (as by kill -9) while it
// downloads leaves the old partition and its spool folder; the next run
// removes the folder and loads the new objects.
func testObjectsKilledWhileFetching(t *testing.T, h Harness) {
	b := NewBucket(t)
	e := NewEnv(t, h)
	b.Put(map[string]string{"raw/2026-11-28/a.csv": day28a, "raw/2026-11-28/b.csv": day28b})
	j := e.Job(fmt.Sprintf(objectsJob, b.URL("raw/{{ date }}/*.csv")))
	e.MustRun(j, "2026-11-28")
	before := e.Checksum(day28)
	b.Put(map[string]string{"raw/2026-11-28/b.csv": strings.Replace(day28b, "7.00", "8.00", 1)})

	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	code, _, stderr := RunBinary(t, append(env, "IDEM_CRASH_AT="+runner.CrashDuringFetch),
		"run", j.Path, "--date", "2026-11-28", "--as-of", e.Now.Format(time.RFC3339))
	require.NotEqual(t, 0, code, stderr)
	require.Equal(t, before, e.Checksum(day28), "the old partition")
	left, _ := filepath.Glob(filepath.Join(tmp, "idem-spool-*", "*"))
	require.Len(t, left, 1, "the killed run left its spool with the one object it read")

	code, stdout, stderr := RunBinary(t, env, "run", j.Path, "--date", "2026-11-28", "--as-of", e.Now.Format(time.RFC3339))
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
	require.NotEqual(t, before, e.Checksum(day28))
	left, _ = filepath.Glob(filepath.Join(tmp, "idem-spool-*"))
	require.Empty(t, left, "the next run removed the killed run's spool, and its own")
}

// testObjectsNoMatch: a glob matching no object fails, unless allow_empty.
func testObjectsNoMatch(t *testing.T, h Harness) {
	b := NewBucket(t)
	e := NewEnv(t, h)
	b.Put(map[string]string{"raw/2026-11-29/a.csv": day29a})
	j := e.Job(fmt.Sprintf(objectsJob, b.URL("raw/{{ date }}/*.csv")))
	_, err := e.Run(j, "2026-11-28")
	require.Error(t, err)
	require.Contains(t, err.Error(), "no object matches")
	require.NotContains(t, err.Error(), "endpoint", "the URL is shown without its query")

	code, stdout, stderr := RunBinary(t, nil, "run", j.Path, "--date", "2026-11-28", "--as-of", e.Now.Format(time.RFC3339))
	require.Equal(t, 1, code, stderr)
	noSecrets(t, stdout+stderr)

	j = e.Job(fmt.Sprintf(objectsJob+"allow_empty: true\n", b.URL("raw/{{ date }}/*.csv")))
	e.MustRun(j, "2026-11-28")
}

// noSecrets checks that output holds neither test key, in any spelling.
func noSecrets(t *testing.T, out string) {
	t.Helper()
	for _, s := range []string{testAccessKey, testSecretKey, url.QueryEscape(testSecretKey), url.PathEscape(testSecretKey)} {
		require.NotContains(t, out, s)
	}
}

// httpsStore is an HTTPS server of exact URLs with ETags that honours
// If-Match, counting the GETs of object bytes and the HEADs.
type httpsStore struct {
	mu          sync.Mutex
	objects     map[string]string // path → content
	gets, heads int
}

func (s *httpsStore) put(path, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[path] = content
}

func (s *httpsStore) counts() (gets, heads int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets, s.heads
}

func (s *httpsStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, ok := s.objects[r.URL.Path]
	if r.Method == http.MethodHead {
		s.heads++
	} else if ok {
		s.gets++
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(body)))
	if m := r.Header.Get("If-Match"); m != "" && m != etag {
		w.WriteHeader(http.StatusPreconditionFailed)
		return
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodGet {
		io.WriteString(w, body)
	}
}

// testObjectsHTTPS: exact https:// URLs, over TLS, with the same
// guarantees: an unchanged rerun is skipped without a GET; a file replaced
// between the HEAD and the GET fails with exit 75, naming it (without the
// signed URL's query); the rerun loads it.
func testObjectsHTTPS(t *testing.T, h Harness) {
	skipIfInProcess(t)
	store := &httpsStore{objects: map[string]string{"/raw/2026-11-28/a.csv": day28a, "/raw/2026-11-28/b.csv": day28b}}
	srv := httptest.NewTLSServer(store)
	t.Cleanup(srv.Close)
	e := NewEnv(t, h)
	ca := filepath.Join(e.Dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
	env := []string{"SSL_CERT_FILE=" + ca}
	const sig = "X-Amz-Signature=5ecret5ignature0000"
	j := e.Job(strings.Replace(fmt.Sprintf(objectsJob, "x"), "  files: 'x'",
		fmt.Sprintf("  files:\n    - '%s/raw/{{ date }}/a.csv?%s'\n    - '%s/raw/{{ date }}/b.csv?%s'", srv.URL, sig, srv.URL, sig), 1))
	run := func(extra ...string) (int, string) {
		code, stdout, stderr := RunBinary(t, append(env, extra...), "run", j.Path, "--date", "2026-11-28", "--as-of", e.Now.Format(time.RFC3339), "--json")
		require.NotContains(t, stdout+stderr, "5ecret5ignature")
		return code, stdout + stderr
	}
	code, out := run()
	require.Equal(t, 0, code, out)
	require.Contains(t, out, `"action":"loaded"`)
	before := e.Checksum(day28)
	gets, _ := store.counts()
	require.Equal(t, 2, gets)
	code, out = run()
	require.Equal(t, 0, code, out)
	require.Contains(t, out, `"action":"skipped"`)
	gets2, heads := store.counts()
	require.Equal(t, gets, gets2, "an unchanged rerun reads no object")

	store.put("/raw/2026-11-28/b.csv", strings.Replace(day28b, "7.00", "8.00", 1))
	goOn := filepath.Join(e.Dir, "go-on")
	done := make(chan struct{})
	go func() { // once the run has listed (it then waits for goOn)
		defer close(done)
		deadline := time.Now().Add(time.Minute)
		for _, h := store.counts(); h < heads+2 && time.Now().Before(deadline); _, h = store.counts() {
			time.Sleep(20 * time.Millisecond)
		}
		store.put("/raw/2026-11-28/b.csv", strings.Replace(day28b, "7.00", "9.00", 1))
		os.WriteFile(goOn, nil, 0o644)
	}()
	code, out = run("IDEM_WAIT_AT="+runner.WaitBeforeFetch, "IDEM_WAIT_FOR="+goOn)
	<-done
	require.Equal(t, 75, code, out)
	require.Contains(t, out, srv.URL+"/raw/2026-11-28/b.csv")
	require.Equal(t, before, e.Checksum(day28), "nothing written")
	code, out = run()
	require.Equal(t, 0, code, out)
	require.Equal(t, []string{"9"}, e.Query("SELECT CAST(amount AS INTEGER) FROM "+e.Sales("orders")+" WHERE order_id = 4"))
}
