package enginetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/stretchr/testify/require"
	_ "gocloud.dev/blob/azureblob" // azblob:// URLs
)

// Azurite is the Azure Blob Storage emulator the Azure cases use, as
// .ci/run installs (npm) and starts it (host:port).
var Azurite = Server{
	Name:    "azurite",
	EnvVar:  "IDEM_TEST_AZURITE",
	Default: "127.0.0.1:10000",
	Start:   "npm install azurite@3 && npx azurite-blob --blobHost 127.0.0.1 --blobPort 10000 --inMemoryPersistence --disableTelemetry --skipApiVersionCheck --loose &",
	Ping: func(ctx context.Context, host string) error {
		// Any answer will do: Azurite refuses an unsigned request.
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+host+"/devstoreaccount1?comp=list", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	},
}

// azuriteKey is the emulator's documented, public development key.
const azuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

var (
	azOnce  sync.Once
	azProxy *gcsCounter // the same counting, by container
	azHost  string      // the proxy's host:port
)

// NewAzureBucket creates a container of t's own on Azurite (skipping, or
// failing in CI, without one), behind a proxy that counts the listings
// and the reads of blob bytes.
func NewAzureBucket(t *testing.T) *Bucket {
	t.Helper()
	host := Azurite.DSN(t)
	azOnce.Do(func() {
		up := &url.URL{Scheme: "http", Host: host}
		azProxy = &gcsCounter{gets: map[string]int{}, lists: map[string]int{}}
		rp := httputil.NewSingleHostReverseProxy(up)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// /devstoreaccount1/container[/blob]
			parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
			if r.Method == http.MethodGet && len(parts) >= 2 {
				azProxy.mu.Lock()
				if r.URL.Query().Get("comp") == "list" {
					azProxy.lists[parts[1]]++
				} else if len(parts) == 3 && r.URL.Query().Get("comp") == "" {
					azProxy.gets[parts[1]]++
				}
				azProxy.mu.Unlock()
			}
			rp.ServeHTTP(w, r)
		}))
		azHost = strings.TrimPrefix(srv.URL, "http://")
		os.Setenv("AZURE_STORAGE_ACCOUNT", "devstoreaccount1")
		os.Setenv("AZURE_STORAGE_KEY", azuriteKey)
	})
	b := &Bucket{t: t, Name: bucketName(t), Scheme: "azblob"}
	b.query = "?localemu=true&protocol=http&domain=" + azHost
	b.counts = func(what string) int { return azProxy.count(b.Name, what) }
	bk := b.open()
	var c *container.Client
	require.True(t, bk.As(&c))
	_, err := c.Create(context.Background(), nil)
	require.NoError(t, err)
	bk.Close()
	t.Cleanup(func() {
		bk := b.open()
		defer bk.Close()
		var c *container.Client
		if bk.As(&c) {
			c.Delete(context.Background(), nil)
		}
	})
	return b
}

// testObjectsRunTwiceAzure: ObjectsRunTwice on Azure Blob Storage.
func testObjectsRunTwiceAzure(t *testing.T, h Harness) { objectsRunTwice(t, h, NewAzureBucket(t)) }

// testObjectsReplacedWhileReadAzure: ObjectsReplacedWhileRead on Azure.
func testObjectsReplacedWhileReadAzure(t *testing.T, h Harness) {
	objectsReplacedWhileRead(t, h, NewAzureBucket(t))
}
