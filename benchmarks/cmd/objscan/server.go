package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The root credentials the benchmark's server is started with; a test
// server on loopback, not a secret.
const (
	accessKey = "tsarrowbench"
	secretKey = "tsarrowbenchsecret"
	region    = "us-east-1"
)

// versityGW returns the versitygw binary: $TSARROW_VERSITYGW, else
// versitygw on PATH, else /work/tools/bin/versitygw (where the project's
// machines install it: GOBIN=/work/tools/bin go install
// github.com/versity/versitygw/cmd/versitygw@v1.8.0).
func versityGW() (string, error) {
	if p := os.Getenv("TSARROW_VERSITYGW"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	const fallback = "/work/tools/bin/versitygw"
	if _, err := os.Stat(fallback); err == nil {
		return fallback, nil
	}
	return "", errors.New("no versitygw: set $TSARROW_VERSITYGW or put it on PATH " +
		"(go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)")
}

// s3Server is a versitygw process serving a posix directory on
// 127.0.0.1: the S3-compatible server the object-storage case reads from.
type s3Server struct {
	Endpoint string // http://127.0.0.1:PORT
	cmd      *exec.Cmd
	dir      string
	done     chan error
	client   *s3.Client
	stopOnce sync.Once
}

// startS3 starts versitygw with a posix backend in a new directory under
// parent and waits until it answers.
func startS3(parent string) (*s3Server, error) {
	bin, err := versityGW()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "tsarrow-objscan-")
	if err != nil {
		return nil, err
	}
	// A free port, taken and released: another process could take it in
	// between, so a server that exits at once is retried on another.
	var lastErr error
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		addr := l.Addr().String()
		l.Close()
		s := &s3Server{Endpoint: "http://" + addr, dir: dir, done: make(chan error, 1)}
		s.cmd = exec.Command(bin, "--access", accessKey, "--secret", secretKey, "--region", region,
			"--port", addr, "--quiet", "posix", filepath.Join(dir))
		s.cmd.Stdout, s.cmd.Stderr = os.Stderr, os.Stderr
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := s.cmd.Start(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("start %s: %w", bin, err)
		}
		go func() { s.done <- s.cmd.Wait() }()
		if lastErr = s.wait(addr, 15*time.Second); lastErr == nil {
			s.client = s3.New(s3.Options{
				Region:                     region,
				BaseEndpoint:               aws.String(s.Endpoint),
				UsePathStyle:               true,
				Credentials:                credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
				RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
				ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
			})
			return s, nil
		}
		s.cmd.Process.Kill()
		<-s.done
	}
	os.RemoveAll(dir)
	return nil, fmt.Errorf("versitygw did not start: %w", lastErr)
}

// cpu is the CPU time the server has used so far (user and system), from
// /proc/PID/stat, whose clock ticks are USER_HZ, 100 a second on Linux.
func (s *s3Server) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	// f[0] is field 3 (state): utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// wait polls the server until it answers HTTP (any status) or exits.
func (s *s3Server) wait(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("versitygw exited: %v", err)
		default:
		}
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no answer on %s after %v", addr, limit)
}

// env is what a child process needs to reach the server through endpoint
// (the server's, or a proxy in front of it): the variables a user sets.
func env(endpoint string) []string {
	return append(os.Environ(),
		"AWS_ENDPOINT_URL="+endpoint,
		"AWS_ACCESS_KEY_ID="+accessKey,
		"AWS_SECRET_ACCESS_KEY="+secretKey,
		"AWS_REGION="+region,
		// Nothing of the machine's own AWS setup may change what is measured.
		"AWS_CONFIG_FILE=/dev/null",
		"AWS_SHARED_CREDENTIALS_FILE=/dev/null",
		"AWS_EC2_METADATA_DISABLED=true",
	)
}

// stop ends the server and removes its directory; calls after the first
// do nothing (an interrupt and the normal end may both ask).
func (s *s3Server) stop() { s.stopOnce.Do(s.doStop) }

func (s *s3Server) doStop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	os.RemoveAll(s.dir)
}

// createBucket creates bucket. Setting up uses the AWS SDK directly, so
// that it does not depend on the code measured.
func (s *s3Server) createBucket(ctx context.Context, bucket string) error {
	if _, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("create bucket %s: %w", bucket, err)
	}
	return nil
}

// put uploads the file at path as key.
func (s *s3Server) put(ctx context.Context, bucket, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if _, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: f, ContentLength: aws.Int64(st.Size())}); err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", bucket, key, err)
	}
	return nil
}

// get reads the whole object with one GET and returns its size: the raw
// loopback throughput of the server, the ceiling of any reader.
func (s *s3Server) get(ctx context.Context, bucket, key string) (int64, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return 0, err
	}
	defer out.Body.Close()
	return io.Copy(io.Discard, out.Body)
}

// getRanges reads the whole object in ranges of part bytes, conc at a
// time: the ceiling of a reader that fetches in parallel.
func (s *s3Server) getRanges(ctx context.Context, bucket, key string, size, part int64, conc int) (int64, error) {
	var total atomic.Int64
	offs := make(chan int64)
	errs := make(chan error, conc)
	for range conc {
		go func() {
			var err error
			for off := range offs {
				if err != nil {
					continue
				}
				end := min(off+part, size) - 1
				var out *s3.GetObjectOutput
				out, err = s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
					Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, end))})
				if err != nil {
					continue
				}
				var n int64
				n, err = io.Copy(io.Discard, out.Body)
				out.Body.Close()
				total.Add(n)
			}
			errs <- err
		}()
	}
	for off := int64(0); off < size; off += part {
		offs <- off
	}
	close(offs)
	var first error
	for range conc {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return total.Load(), first
}

// counter is a reverse proxy in front of the server that counts the
// requests it passes and the response body bytes they return: the
// requests and bytes of a ts2arrow child, which cannot report them.
type counter struct {
	srv           *http.Server
	URL           string
	requests, got atomic.Int64

	mu       sync.Mutex
	inflight int
	maxIn    int     // the most requests in flight at once
	sizes    []int64 // response body bytes of each GET
}

func startCounter(target string) (*counter, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &counter{URL: "http://" + l.Addr().String()}
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		c.mu.Lock()
		c.inflight++
		c.maxIn = max(c.maxIn, c.inflight)
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			c.inflight--
			c.mu.Unlock()
		}()
		// The Host header stays the proxy's: the client signed it.
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Scheme, out.URL.Host = "http", target
		if r.ContentLength == 0 {
			out.Body = nil
		}
		resp, err := tr.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		n, _ := io.Copy(w, resp.Body)
		c.got.Add(n)
		if r.Method == http.MethodGet {
			c.mu.Lock()
			c.sizes = append(c.sizes, n)
			c.mu.Unlock()
		}
	})}
	go c.srv.Serve(l)
	return c, nil
}

func (c *counter) reset() {
	c.requests.Store(0)
	c.got.Store(0)
	c.mu.Lock()
	c.maxIn, c.sizes = 0, nil
	c.mu.Unlock()
}

// shape describes the GETs since the last reset: their median and largest
// size and the most requests in flight at once, as benchmark metrics.
func (c *counter) shape() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := slices.Clone(c.sizes)
	slices.Sort(s)
	var med, top int64
	if len(s) > 0 {
		med, top = s[len(s)/2], s[len(s)-1]
	}
	return fmt.Sprintf("%d gets %.1f median-get-KB %.1f max-get-KB %d max-inflight", len(s), float64(med)/1e3, float64(top)/1e3, c.maxIn)
}

func (c *counter) close() { c.srv.Close() }

// hostPort is the host:port of an http:// URL.
func hostPort(u string) string {
	const p = "http://"
	if len(u) > len(p) && u[:len(p)] == p {
		return u[len(p):]
	}
	return u
}
