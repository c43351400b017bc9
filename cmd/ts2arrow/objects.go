package main

// The flags of object storage (s3://, gs://, az://, azblob://, file://
// URLs), shared by every command that reads an INPUT or writes -o: convert,
// head, schema, inspect, sql and serve. A command adds them with
// addObjectFlags and, once its flags are parsed, hands obj.options(stderr)
// to whatever opens a store (inputs through expandInputsWith and
// openInput, which finds them in httpFlags.objects; convert keeps them in
// convertJob.objects for -o as well).

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/objstore"
)

// objectFlags are the object storage flags of one command.
type objectFlags struct {
	endpoint *string
	region   *string
}

// addObjectFlags adds --s3-endpoint URL and --s3-region R to a command's
// flag set. Their defaults are the AWS tools' environment variables,
// which objstore reads when the flags are not given.
func addObjectFlags(fs *pflag.FlagSet) *objectFlags {
	return &objectFlags{
		endpoint: fs.String("s3-endpoint", "", "the `URL` of an S3-compatible store for s3:// URLs (default $AWS_ENDPOINT_URL_S3 or $AWS_ENDPOINT_URL, else AWS itself)"),
		region:   fs.String("s3-region", "", "the `REGION` of s3:// buckets (default $AWS_REGION, $AWS_DEFAULT_REGION or the shared config's; us-east-1 with an endpoint)"),
	}
}

// options returns the objstore options of the flags; its warnings (a
// retried request, say) are printed to stderr as ts2arrow's other
// warnings are, one line each.
func (o *objectFlags) options(stderr io.Writer) *objstore.Options {
	opts := &objstore.Options{
		Warn: func(msg string) { fmt.Fprintf(stderr, "ts2arrow: warning: %s\n", oneLine(msg)) },
	}
	if o != nil {
		opts.S3Endpoint, opts.S3Region = *o.endpoint, *o.region
	}
	return opts
}

// objectHelp documents object URLs and the flags of addObjectFlags in a
// command's help.
const objectHelp = `An s3://bucket/key, gs://bucket/key, az://container/key (or azblob://)
or file:// URL is read from object storage with range requests, as a
local file is read: a URL ending in / or naming a prefix with objects
below it is a directory (every *.tsfile below it), one with glob
characters a pattern over the keys (** as for local paths). Credentials
are each cloud's usual ones: for S3 the AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY variables, AWS_PROFILE and the shared config, or an
instance role; --s3-endpoint (or AWS_ENDPOINT_URL) names an S3-compatible
store such as http://127.0.0.1:7070, path-style for an IP address or
localhost. Azure takes AZURE_STORAGE_CONNECTION_STRING, or
AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY; GCS the application default
credentials.
`
