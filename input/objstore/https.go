package objstore

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// httpSource is one exact https:// URL: its identity is the ETag the
// server gives, and the read is conditional by If-Match.
type httpSource struct {
	client *http.Client
	url    string
}

// HTTPClient is the client https:// inputs are read with (tests give one
// that trusts their server).
var HTTPClient = http.DefaultClient

func listHTTP(ctx context.Context, u *url.URL) ([]Object, source, error) {
	src := &httpSource{client: HTTPClient, url: u.String()}
	name := Redact(u.String())
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, src.url, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("source.files %q: %s", name, Redact(err.Error()))
	}
	resp, err := src.client.Do(req)
	if err != nil {
		return nil, nil, &Error{URL: name, Msg: "reaching " + Redact(err.Error()), Temp: true}
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, src, nil
	case resp.StatusCode != http.StatusOK:
		return nil, nil, httpError(name, resp)
	}
	etag := resp.Header.Get("ETag")
	if etag == "" {
		return nil, nil, fmt.Errorf("%s: the server gives no ETag, so idem cannot tell one version of it from another; serve it with an ETag", name)
	}
	return []Object{{URL: name, Size: resp.ContentLength, Identity: etag, src: src}}, src, nil
}

func (h *httpSource) open(ctx context.Context, _, identity string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("If-Match", identity)
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s", Redact(err.Error()))
	}
	switch resp.StatusCode {
	case http.StatusOK:
		if et := resp.Header.Get("ETag"); et != "" && et != identity {
			resp.Body.Close()
			return nil, fmt.Errorf("%w: it was replaced (its identity is no longer %s)", ErrChanged, identity)
		}
		return resp.Body, nil
	case http.StatusPreconditionFailed:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: it was replaced (its identity is no longer %s)", ErrChanged, identity)
	case http.StatusNotFound, http.StatusGone:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: it was deleted", ErrChanged)
	}
	resp.Body.Close()
	return nil, httpError(Redact(h.url), resp)
}

func (h *httpSource) close() error { return nil }

// httpError is a server's refusal: 429 and 5xx may pass, others will not.
func httpError(name string, resp *http.Response) error {
	e := &Error{URL: name, Msg: fmt.Sprintf("%s: the server answered %s", name, resp.Status)}
	e.Temp = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
	return e
}
