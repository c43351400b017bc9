package objtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Server is a running S3-compatible server (versitygw) with the
// credentials of its root account.
type Server struct {
	Endpoint  string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string
	Region    string

	dir    string // the posix backend's root: one directory per bucket
	proc   *proc
	client *s3.Client
}

var s3Server once[*Server]

// versitygwFallback is where this project's machines build versitygw when
// $TSARROW_VERSITYGW is unset and it is not on PATH.
const versitygwFallback = "/work/tools/bin/versitygw"

// S3 returns the shared versitygw server of this test binary, starting it
// on first use (see the package comment): 127.0.0.1 on a free port, its
// posix backend in a temporary directory. The program is
// $TSARROW_VERSITYGW, else versitygw on PATH, else
// /work/tools/bin/versitygw; when none exists S3 skips t, or fails it
// under CI=true.
func S3(t testing.TB) *Server {
	t.Helper()
	return s3Server.get(t, startS3)
}

func startS3() (*Server, string, error) {
	bin, tried, err := findProgram("TSARROW_VERSITYGW", "versitygw", versitygwFallback)
	if err != nil || bin == "" {
		return nil, "versitygw not found (" + tried + "); build it with GOBIN=DIR go install github.com/versity/versitygw/cmd/versitygw@v1.8.0", err
	}
	dir, err := dataDir("s3")
	if err != nil {
		return nil, "", err
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	s := &Server{
		AccessKey: "objtest",
		// A fresh secret per process, so a test can look for it in
		// messages and logs and be sure a match is a leak.
		SecretKey: "objtest-" + hex.EncodeToString(secret),
		Region:    "us-east-1",
		dir:       dir,
	}
	// The root credentials go through the environment, not argv, where
	// any user's ps would see them.
	env := []string{"ROOT_ACCESS_KEY_ID=" + s.AccessKey, "ROOT_SECRET_ACCESS_KEY=" + s.SecretKey}
	args := func(port int) []string {
		return []string{"--port", fmt.Sprintf("127.0.0.1:%d", port), "--region", s.Region, "--quiet", "posix", dir}
	}
	endpoint := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }
	root := func(port int) string { return endpoint(port) + "/" }
	p, port, err := startServer("versitygw", dir, bin, env, args, root)
	if err != nil {
		return nil, "", err
	}
	s.proc = p
	s.Endpoint = endpoint(port)
	s.client = s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       s.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		UsePathStyle: true,
	})
	return s, "", nil
}

// Env returns the environment a child process (ts2arrow) needs to reach
// the server as the AWS tools would: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_REGION, as KEY=value for exec.Cmd.Env
// (appended to os.Environ()).
func (s *Server) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL=" + s.Endpoint,
		"AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + s.Region,
	}
}

// Setenv sets Env's variables for the rest of t (t.Setenv: not with
// t.Parallel).
func (s *Server) Setenv(t testing.TB) {
	t.Helper()
	setenv(t, s.Env())
}

func setenv(t testing.TB, env []string) {
	t.Helper()
	for _, kv := range env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				t.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
}

// Bucket creates a new empty bucket named after t, unique in this test
// binary, and removes it with everything in it when t ends.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := uniqueName(t)
	if _, err := s.client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("objtest: create bucket %s: %v", name, err)
	}
	// The posix backend keeps a bucket, its objects and its pending
	// uploads in one directory: removing it is the cheapest way to drop
	// everything a test left.
	t.Cleanup(func() { os.RemoveAll(filepath.Join(s.dir, name)) })
	return name
}

// Put stores data at key in bucket.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	_, err := s.client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(bucket),
		Key:    aws.String(key),
		Body:   bytes.NewReader(data),
	})
	if err != nil {
		t.Fatalf("objtest: put s3://%s/%s: %v", bucket, key, err)
	}
}

// PutMany stores each of objects (key -> data) in bucket, several at a
// time: fixtures of a thousand objects and more (listing pagination).
func (s *Server) PutMany(t testing.TB, bucket string, objects map[string][]byte) {
	t.Helper()
	keys := make(chan string)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range keys {
				_, err := s.client.PutObject(context.Background(), &s3.PutObjectInput{
					Bucket: aws.String(bucket),
					Key:    aws.String(key),
					Body:   bytes.NewReader(objects[key]),
				})
				if err != nil {
					select {
					case errs <- fmt.Errorf("put s3://%s/%s: %w", bucket, key, err):
					default:
					}
				}
			}
		}()
	}
	for key := range objects {
		keys <- key
	}
	close(keys)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatalf("objtest: %v", err)
	}
}

// PutDir uploads every regular file under the local directory dir to
// bucket, at prefix joined with its slash path relative to dir
// (dir/a/b.tsfile -> prefix/a/b.tsfile; prefix "" puts it at a/b.tsfile).
func (s *Server) PutDir(t testing.TB, bucket, prefix, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.Put(t, bucket, path.Join(prefix, filepath.ToSlash(rel)), data)
		return nil
	})
	if err != nil {
		t.Fatalf("objtest: put %s to s3://%s/%s: %v", dir, bucket, prefix, err)
	}
}

// Keys lists the keys under prefix in bucket, every page, in the order
// the server lists them (S3's: ascending UTF-8 bytes).
func (s *Server) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	keys := []string{}
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket),
		Prefix: aws.String(prefix),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("objtest: list s3://%s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// Get returns the object at key in bucket.
func (s *Server) Get(t testing.TB, bucket, key string) []byte {
	t.Helper()
	out, err := s.client.GetObject(context.Background(), &s3.GetObjectInput{
		Bucket: aws.String(bucket),
		Key:    aws.String(key),
	})
	if err != nil {
		t.Fatalf("objtest: get s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("objtest: get s3://%s/%s: %v", bucket, key, err)
	}
	return data
}

// Uploads returns the number of multipart uploads pending in bucket
// (started, neither completed nor aborted): what a killed or failed
// upload must not leave.
func (s *Server) Uploads(t testing.TB, bucket string) int {
	t.Helper()
	n := 0
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)}
	for {
		out, err := s.client.ListMultipartUploads(context.Background(), in)
		if err != nil {
			t.Fatalf("objtest: list multipart uploads of s3://%s: %v", bucket, err)
		}
		n += len(out.Uploads)
		if !aws.ToBool(out.IsTruncated) {
			return n
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
}
