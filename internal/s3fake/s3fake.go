// Package s3fake is the S3-compatible server idem's object storage tests
// run against: gofakes3 (ListObjectsV2 with pagination, ETags, in memory),
// with what it lacks and the tests need in front of it: a GET or HEAD
// with If-Match is answered 412 unless the object is still at that ETag
// (gofakes3 checks If-Match on PUT only), and reads of object bytes are
// counted per bucket, so a test can show that a run read none.
package s3fake

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// StatsPath answers, for ?bucket=NAME, how many GETs of object bytes the
// bucket served, or with &what=lists how many listings (no bucket name
// starts with "_", so no S3 path is it).
const StatsPath = "/_idem/gets"

// Server is the handler.
type Server struct {
	backend *s3mem.Backend
	s3      http.Handler
	mu      sync.Mutex
	gets    map[string]int
	lists   map[string]int
}

// New returns a server holding no bucket.
func New() *Server {
	b := s3mem.New()
	f := gofakes3.New(b, gofakes3.WithAutoBucket(true), gofakes3.WithLogger(gofakes3.DiscardLog()))
	return &Server{backend: b, s3: f.Server(), gets: map[string]int{}, lists: map[string]int{}}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == StatsPath {
		s.mu.Lock()
		counts := s.gets
		if r.URL.Query().Get("what") == "lists" {
			counts = s.lists
		}
		n := counts[r.URL.Query().Get("bucket")]
		s.mu.Unlock()
		fmt.Fprintf(w, "%d\n", n)
		return
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if key == "" && r.Method == http.MethodGet && r.URL.Query().Has("list-type") {
		s.mu.Lock()
		s.lists[bucket]++
		s.mu.Unlock()
	}
	if key != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		if !s.matches(r, bucket, key) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusPreconditionFailed)
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Resource>/%s/%s</Resource></Error>`, bucket, key)
			return
		}
		if r.Method == http.MethodGet {
			s.mu.Lock()
			s.gets[bucket]++
			s.mu.Unlock()
		}
	}
	s.s3.ServeHTTP(w, r)
}

// matches reports whether a request's If-Match (if any) holds: the object
// exists and its ETag is the one named (or "*").
func (s *Server) matches(r *http.Request, bucket, key string) bool {
	want := r.Header.Get("If-Match")
	if want == "" {
		return true
	}
	obj, err := s.backend.HeadObject(bucket, key)
	if err != nil {
		return true // gofakes3 answers the missing object itself
	}
	if obj.Contents != nil {
		obj.Contents.Close()
	}
	return want == "*" || want == gofakes3.FormatETag(obj.Hash)
}
