package objstore

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob:// URLs
)

// azureDriver: the identity is the blob's ETag, a read is conditional by
// If-Match.
type azureDriver struct{}

func (azureDriver) identity(lo *blob.ListObject) string {
	var it container.BlobItem
	if lo.As(&it) && it.Properties != nil && it.Properties.ETag != nil {
		return string(*it.Properties.ETag)
	}
	return ""
}

func (azureDriver) ifMatch(identity string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var o *azblob.DownloadStreamOptions
		if !as(&o) {
			return fmt.Errorf("cannot make the read conditional")
		}
		etag := azcore.ETag(identity)
		o.AccessConditions = &azblobblob.AccessConditions{ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfMatch: &etag}}
		return nil
	}
}
