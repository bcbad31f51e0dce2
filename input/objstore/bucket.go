package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"cloud.google.com/go/storage"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/gcsblob" // gs:// URLs
	_ "gocloud.dev/blob/s3blob"  // s3:// URLs
	"gocloud.dev/gcerrors"
)

// bucket is a source in object storage, reached through gocloud.dev/blob
// (which follows each cloud's standard credential chain).
type bucket struct {
	b   *blob.Bucket
	drv driver
}

// driver is what differs between stores: where a listing's identity is,
// and how a read is made conditional on it.
type driver interface {
	identity(lo *blob.ListObject) string
	ifMatch(identity string) func(as func(any) bool) error
}

func driverFor(scheme string) driver {
	switch scheme {
	case "gs":
		return gcsDriver{}
	case "azblob":
		return azureDriver{}
	}
	return s3Driver{}
}

// gcsDriver: the identity is the object's generation (each write makes a
// new one); a read asks for that generation, and only while it is live.
type gcsDriver struct{}

func (gcsDriver) identity(lo *blob.ListObject) string {
	var a storage.ObjectAttrs
	if lo.As(&a) {
		return strconv.FormatInt(a.Generation, 10)
	}
	return ""
}

func (gcsDriver) ifMatch(identity string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		gen, err := strconv.ParseInt(identity, 10, 64)
		var h **storage.ObjectHandle
		if err != nil || !as(&h) {
			return fmt.Errorf("cannot make the read conditional")
		}
		*h = (*h).Generation(gen).If(storage.Conditions{GenerationMatch: gen})
		return nil
	}
}

// s3Driver: the identity is the ETag, a read is conditional by If-Match.
type s3Driver struct{}

func (s3Driver) identity(lo *blob.ListObject) string {
	var o types.Object
	if lo.As(&o) {
		return aws.ToString(o.ETag)
	}
	return ""
}

func (s3Driver) ifMatch(identity string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *s3.GetObjectInput
		if !as(&in) {
			return fmt.Errorf("cannot make the read conditional")
		}
		in.IfMatch = aws.String(identity)
		// The SDK would print a warning of its own on stderr for an object
		// stored without a checksum: idem hashes every byte it reads.
		var opts *[]func(*s3.Options)
		if as(&opts) {
			*opts = append(*opts, func(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true })
		}
		return nil
	}
}

func (b *bucket) open(ctx context.Context, key, identity string) (io.ReadCloser, error) {
	r, err := b.b.NewReader(ctx, key, &blob.ReaderOptions{BeforeRead: b.drv.ifMatch(identity)})
	if err == nil {
		return r, nil
	}
	switch gcerrors.Code(err) {
	case gcerrors.FailedPrecondition:
		return nil, fmt.Errorf("%w: it was replaced (its identity is no longer %s)", ErrChanged, identity)
	case gcerrors.NotFound: // on GCS, the listed generation is gone: replaced too
		return nil, fmt.Errorf("%w: it was replaced or deleted", ErrChanged)
	}
	return nil, err
}

func (b *bucket) close() error { return b.b.Close() }

// temporary reports whether a store's failure may pass: throttling, a
// timeout, an outage, or no answer after the library's retries. Failing
// to find credentials (the SDK's "get identity" stage) is not, even when
// the metadata service it asked did not answer: it needs a person.
func temporary(err error) bool {
	if strings.Contains(err.Error(), "get identity") {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.ResourceExhausted, gcerrors.DeadlineExceeded, gcerrors.Internal:
		return true
	case gcerrors.Unknown:
		var re *awshttp.ResponseError
		if errors.As(err, &re) && (re.HTTPStatusCode() == http.StatusTooManyRequests || re.HTTPStatusCode() >= 500) {
			return true
		}
		var ma *retry.MaxAttemptsError
		var ne net.Error
		return errors.As(err, &ma) || errors.As(err, &ne)
	}
	return false
}

// urlInText finds URLs in a message, to keep only their scheme, host and
// path: a query may hold a signature or a key.
var urlInText = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)

// Redact removes from a message what a URL in it may carry of a secret:
// user information and the query (signed URLs, SAS tokens, endpoint
// options).
func Redact(msg string) string {
	return urlInText.ReplaceAllStringFunc(msg, func(s string) string {
		u, err := url.Parse(s)
		if err != nil {
			if i := strings.IndexAny(s, "?#@"); i >= 0 {
				return s[:i] + "…"
			}
			return s
		}
		u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
		return u.String()
	})
}
