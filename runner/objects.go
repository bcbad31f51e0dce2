package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/idemdata/idem/input/objstore"
	"github.com/idemdata/idem/ledger"
)

// Input objects (source.files naming URLs) are listed once: the run id is
// taken from each object's URL, size and identity, so an unchanged rerun
// is skipped without reading a byte. A run that loads reads each object at
// the identity it was listed with into one spool folder, which the reader
// reads as local files; the folder goes on every way out of the run.

// WaitBeforeFetch is a point only waited at (Options.WaitAt): the input
// objects are listed and the run is about to read them.
const WaitBeforeFetch = "before_fetch"

// CrashDuringFetch is a point only crashed at (Options.CrashAt): the first
// input object is in the spool, the others are not.
const CrashDuringFetch = "during_fetch"

// remoteInput is what a run knows of its input objects.
type remoteInput struct {
	listing *objstore.Listing
	spool   *objstore.Spool
	read    []ledger.InputObject // as each was read, for the ledger
}

// record is what the ledger keeps of the objects the run read.
func (ri *remoteInput) record() string {
	if ri == nil {
		return ""
	}
	return ledger.EncodeObjects(ri.read)
}

// close removes the spool and releases the listing's connections.
func (ri *remoteInput) close() {
	if ri == nil {
		return
	}
	ri.spool.Remove()
	ri.listing.Close()
}

// movingInput is a failure that trying again later may mend: an object
// replaced while the run read it, or a store's throttling or outage after
// the library's retries (exit 75).
type movingInput struct{ error }

func (m movingInput) Is(target error) bool { return target == ErrInputChanged }
func (m movingInput) Unwrap() error        { return m.error }

// objectError is err as the runner reports it.
func objectError(err error) error {
	var se *objstore.Error
	if errors.Is(err, objstore.ErrChanged) || (errors.As(err, &se) && se.Temp) {
		return movingInput{err}
	}
	return err
}

// isRemote reports whether the patterns name objects by URL.
func isRemote(globs []string) bool {
	return slices.ContainsFunc(globs, objstore.IsURL)
}

// listObjects lists the input objects and takes the run id from the
// listing.
func (r *run) listObjects(ctx context.Context, globs []string) error {
	l, err := objstore.List(ctx, globs)
	if err != nil {
		return objectError(err)
	}
	r.remote = &remoteInput{listing: l}
	r.files = make([]string, len(l.Objects))
	for i, o := range l.Objects {
		r.files[i] = o.URL
	}
	if len(r.files) == 0 && !r.job.AllowEmpty {
		return &InputError{Msg: fmt.Sprintf("no input: no object matches %s; nothing was loaded (set allow_empty: true if an empty delivery is normal)",
			quoteAll(redactAll(globs)))}
	}
	r.setRunID(objstore.Fingerprint(l.Objects))
	return nil
}

func redactAll(globs []string) []string {
	out := make([]string, len(globs))
	for i, g := range globs {
		out[i] = objstore.Redact(g)
	}
	return out
}

// fetchObjects reads the listed objects into a spool folder and returns
// the spool files, in the listing's order.
func (r *run) fetchObjects(ctx context.Context) ([]string, error) {
	r.crash(WaitBeforeFetch)
	sp, err := objstore.NewSpool("")
	if err != nil {
		return nil, err
	}
	r.remote.spool = sp
	paths := make([]string, 0, len(r.remote.listing.Objects))
	for i, o := range r.remote.listing.Objects {
		f, err := sp.Fetch(ctx, o)
		if err != nil {
			return nil, objectError(err)
		}
		paths = append(paths, f.Path)
		r.remote.read = append(r.remote.read, ledger.InputObject{URL: o.URL, Size: o.Size, Identity: o.Identity, SHA256: f.SHA256})
		if i == 0 {
			r.crash(CrashDuringFetch)
		}
	}
	return paths, nil
}

// objectNames rewrites spool files in a message as their objects' URLs.
func (r *run) objectNames(msg string) string {
	if r.remote == nil || r.remote.spool == nil {
		return msg
	}
	for p, u := range r.remote.spool.Names {
		msg = strings.ReplaceAll(msg, p, u)
	}
	return msg
}
