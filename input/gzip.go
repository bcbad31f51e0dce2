package input

import (
	"bufio"
	"compress/gzip"
	"io"
)

// gzFile reads a gzip stream: every member's checksum and length are
// checked at its end (compress/gzip), so a file cut short or damaged is an
// error, never the rows before the cut.
type gzFile struct {
	*gzip.Reader
}

func newGzip(r io.Reader) (*gzFile, error) {
	z, err := gzip.NewReader(bufio.NewReaderSize(r, 1<<16))
	if err != nil {
		return nil, err
	}
	return &gzFile{Reader: z}, nil
}
