// Command s3server is the S3-compatible server of idem's object storage
// tests (internal/s3fake), run as a process of its own by .ci/run or by
// hand: go run ./internal/tools/s3server -addr 127.0.0.1:9479
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/idemdata/idem/internal/s3fake"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9479", "address to listen on")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "s3server listening on http://%s\n", l.Addr())
	log.Fatal(http.Serve(l, s3fake.New()))
}
