package objstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// spoolPrefix names the folders spools live in, with the owning process's
// id after it.
const spoolPrefix = "idem-spool-"

// Spool is one run's temporary folder of downloaded objects: the reader
// reads them there as local files, and Remove deletes the folder on every
// way out of the run. A folder a killed run left is removed by the next
// NewSpool.
type Spool struct {
	Dir string
	n   int
	// Names maps each spool file to its object's URL, for messages.
	Names map[string]string
}

// NewSpool creates a spool folder in base (os.TempDir() when ""), first
// removing those of processes that are gone.
func NewSpool(base string) (*Spool, error) {
	if base == "" {
		base = os.TempDir()
	}
	CleanStale(base)
	dir, err := os.MkdirTemp(base, spoolPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("creating a folder for the input objects: %w", err)
	}
	return &Spool{Dir: dir, Names: map[string]string{}}, nil
}

// CleanStale removes the spool folders in base whose process is gone (a
// run killed while it downloaded).
func CleanStale(base string) {
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), spoolPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || alive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(base, e.Name()))
	}
}

// Remove deletes the spool folder and what it holds.
func (s *Spool) Remove() error {
	if s == nil {
		return nil
	}
	return os.RemoveAll(s.Dir)
}

// Fetched is an object as read into the spool.
type Fetched struct {
	Path   string // the spool file
	SHA256 string // of the bytes read
}

// Fetch reads o, at the identity it was listed with, into a spool file
// (streamed: never held whole in memory). An object replaced or deleted
// since its listing fails with ErrChanged, naming it.
func (s *Spool) Fetch(ctx context.Context, o Object) (Fetched, error) {
	rc, err := o.src.open(ctx, o.key, o.Identity)
	if errors.Is(err, ErrChanged) {
		return Fetched{}, fmt.Errorf("%s: %w; run again", o.URL, err)
	}
	if err != nil {
		return Fetched{}, storeError("reading", o.URL, err)
	}
	defer rc.Close()
	s.n++
	// The object's base name keeps its extension (.gz): the reader
	// decides by it as for a local file.
	p := filepath.Join(s.Dir, fmt.Sprintf("%06d-%s", s.n, path.Base("/"+o.key)))
	if o.key == "" {
		p = filepath.Join(s.Dir, fmt.Sprintf("%06d-%s", s.n, path.Base(strings.SplitN(o.URL, "?", 2)[0])))
	}
	f, err := os.Create(p)
	if err != nil {
		return Fetched{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Fetched{}, storeError("reading", o.URL, err)
	}
	if n != o.Size && o.Size >= 0 {
		return Fetched{}, fmt.Errorf("%s: %w: it was listed with %d bytes and read with %d; run again", o.URL, ErrChanged, o.Size, n)
	}
	s.Names[p] = o.URL
	return Fetched{Path: p, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
