package objstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
)

// gcsblob's URL opener (registered with blob.DefaultURLMux by its import)
// is used for GCS: application default credentials, or none and the
// emulator at STORAGE_EMULATOR_HOST.
var _ = gcsblob.Scheme

// openBucket opens the bucket u names. No request is sent.
func openBucket(ctx context.Context, u objURL, o *Options) (*blob.Bucket, error) {
	var (
		b   *blob.Bucket
		err error
	)
	switch u.scheme {
	case "file":
		// Keys are paths below the root directory. Sidecar .attrs files
		// are not written (we set no metadata); temporary files of
		// writers go beside their object, so that the final rename never
		// crosses file systems.
		b, err = fileblob.OpenBucket("/", &fileblob.Options{Metadata: fileblob.MetadataDontWrite, NoTempDir: true})
	case "s3":
		b, err = openS3(ctx, u.bucket, o)
	case "gs":
		b, err = blob.OpenBucket(ctx, "gs://"+u.bucket)
	case "az", "azblob":
		b, err = openAzure(ctx, u.bucket, o)
	default:
		err = fmt.Errorf("scheme %q", u.scheme)
	}
	if err != nil {
		// Driver construction errors are configuration problems
		// (credentials missing from the environment, a bad endpoint); they
		// name no secret.
		return nil, fmt.Errorf("objstore: open %s://%s: %w", u.scheme, u.bucket, oneLine(err))
	}
	return b, nil
}

// s3Endpoint returns the S3 endpoint the options and environment name, or
// "" for AWS itself.
func s3Endpoint(o *Options) string {
	if o.S3Endpoint != "" {
		return o.S3Endpoint
	}
	if e := os.Getenv("AWS_ENDPOINT_URL_S3"); e != "" {
		return e
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

// pathStyleHost reports whether an endpoint's host can only be addressed
// path-style (http://host/bucket/key): an IP address or localhost, which
// have no DNS names for bucket subdomains.
func pathStyleHost(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || net.ParseIP(h) != nil
}

// openS3 builds the S3 client as the AWS CLI would configure it
// (environment, shared config and profiles, instance roles) with our
// endpoint, region and retry rules, and opens bucket with it.
func openS3(ctx context.Context, bucket string, o *Options) (*blob.Bucket, error) {
	endpoint := s3Endpoint(o)
	loads := []func(*config.LoadOptions) error{
		// The SDK would otherwise log some warnings (such as a response
		// without a checksum) to stderr by itself.
		config.WithLogger(logging.Nop{}),
		config.WithRetryer(func() aws.Retryer { return newRetryer(o.Retries, o.Warn) }),
	}
	if o.S3Region != "" {
		loads = append(loads, config.WithRegion(o.S3Region))
	}
	if o.HTTPClient != nil {
		loads = append(loads, config.WithHTTPClient(o.HTTPClient))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		// AWS itself needs a region to sign for, and so do most
		// S3-compatible stores, which mostly accept us-east-1.
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		so.APIOptions = append(so.APIOptions, abortOutlivesCancel)
		if endpoint != "" {
			so.BaseEndpoint = aws.String(endpoint)
			so.UsePathStyle = so.UsePathStyle || pathStyleHost(endpoint)
		}
	})
	opts := &s3blob.Options{}
	if endpoint != "" {
		// S3-compatible stores differ in which of the newer request
		// checksums (CRC32 trailers in aws-chunked bodies) they accept;
		// the ones S3 requires are always sent.
		opts.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	}
	return s3blob.OpenBucket(ctx, client, bucket, opts)
}

// abortOutlivesCancel lets AbortMultipartUpload run when its context is
// already cancelled. Writer.Abort stops an upload by cancelling its
// context, and the transfer manager s3blob writes through then sends the
// abort on that same context (transfermanager.Options.FailTimeout, which
// s3blob leaves 0, would give it a fresh one): a request on a cancelled
// context fails before it is sent, and the multipart upload would stay
// pending, its parts stored and billed, until a lifecycle rule removes it.
func abortOutlivesCancel(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("tsarrowAbortOutlivesCancel",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if _, ok := in.Parameters.(*s3.AbortMultipartUploadInput); ok && ctx.Err() != nil {
				c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
				defer cancel()
				ctx = c
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}

// newRetryer is the SDK's standard retryer (throttling such as 503
// SlowDown, 5xx answers, broken connections) with attempts = 1 + retries,
// backoff from 100 ms doubling up to 2 s with jitter, and no retry quota:
// a scan's parallel reads must not exhaust a shared token bucket and fail
// requests that were never retried. Each retry is reported to warn.
func newRetryer(retries int, warn func(string)) aws.Retryer {
	std := retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = retries + 1
		so.Backoff = backoff{}
		so.RateLimiter = ratelimit.None
	})
	if warn == nil {
		return std
	}
	return warnRetryer{RetryerV2: std, warn: warn, retries: retries}
}

// warnRetryer reports each retry.
type warnRetryer struct {
	aws.RetryerV2
	warn    func(string)
	retries int
}

// RetryDelay is the wrapped retryer's, reported.
func (r warnRetryer) RetryDelay(attempt int, err error) (time.Duration, error) {
	d, rerr := r.RetryerV2.RetryDelay(attempt, err)
	if rerr == nil {
		r.warn(fmt.Sprintf("objstore: S3 request failed (%s); retry %d of %d in %v", describe(err), attempt, r.retries, d.Round(time.Millisecond)))
	}
	return d, rerr
}

// backoff is exponential backoff with jitter.
type backoff struct{}

// BackoffDelay returns the wait before retry attempt (1 = first retry).
func (backoff) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	d := 2 * time.Second
	if attempt < 6 {
		d = min(d, 100*time.Millisecond<<(attempt-1))
	}
	// Half fixed, half random, so that parallel requests throttled
	// together do not come back together.
	return d/2 + rand.N(d/2+1), nil
}

// openAzure builds the container client by gocloud's azureblob rules for
// the environment (account and key, else a SAS token, else a connection
// string, else the account with a default Azure credential), read at each
// open rather than once per process as its URL opener does, with our
// retry bounds and HTTP client.
func openAzure(ctx context.Context, containerName string, o *Options) (*blob.Bucket, error) {
	copts := &container.ClientOptions{}
	copts.Retry = policy.RetryOptions{MaxRetries: int32(o.Retries), RetryDelay: 100 * time.Millisecond, MaxRetryDelay: 2 * time.Second}
	if o.HTTPClient != nil {
		copts.Transport = o.HTTPClient
	}
	account, key := os.Getenv("AZURE_STORAGE_ACCOUNT"), os.Getenv("AZURE_STORAGE_KEY")
	sas := os.Getenv("AZURE_STORAGE_SAS_TOKEN")
	conn := cmp.Or(os.Getenv("AZURE_STORAGE_CONNECTION_STRING"), os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING"))
	var client *container.Client
	if (account == "" || key == "") && sas == "" && conn != "" {
		c, err := container.NewClientFromConnectionString(conn, containerName, copts)
		if err != nil {
			return nil, fmt.Errorf("AZURE_STORAGE_CONNECTION_STRING: %w", err)
		}
		client = c
	} else {
		svc, err := azureblob.NewServiceURL(azureblob.NewDefaultServiceURLOptions())
		if err != nil {
			return nil, fmt.Errorf("%w (set AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or a default Azure credential)", err)
		}
		containerURL, err := url.JoinPath(string(svc), containerName)
		if err != nil {
			return nil, err
		}
		switch {
		case account != "" && key != "":
			cred, err := azblob.NewSharedKeyCredential(account, key)
			if err != nil {
				return nil, errors.New("AZURE_STORAGE_KEY is not a valid account key")
			}
			client, err = container.NewClientWithSharedKeyCredential(containerURL, cred, copts)
			if err != nil {
				return nil, err
			}
		case sas != "":
			if client, err = container.NewClientWithNoCredential(containerURL, copts); err != nil {
				return nil, err
			}
		default:
			cred, err := azidentity.NewDefaultAzureCredential(nil)
			if err != nil {
				return nil, fmt.Errorf("no Azure credential: %w", err)
			}
			if client, err = container.NewClient(containerURL, cred, copts); err != nil {
				return nil, err
			}
		}
	}
	return azureblob.OpenBucket(ctx, client, nil)
}
