package objtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tsarrow/tsarrow/internal/childproc"
)

func TestUniqueName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)
	for _, name := range []string{
		"TestX",
		"TestList/1100_keys",
		"Test__Odd--Name__/sub#01",
		strings.Repeat("TestVeryLong", 10),
		"",
	} {
		t.Run(name, func(t *testing.T) {
			got := uniqueName(fakeName{t, name})
			if !valid.MatchString(got) || strings.Contains(got, "--") {
				t.Errorf("uniqueName(%q) = %q: not a valid bucket name", name, got)
			}
			if again := uniqueName(fakeName{t, name}); again == got {
				t.Errorf("uniqueName(%q) twice = %q: not unique", name, got)
			}
		})
	}
}

// fakeName is a testing.TB whose Name is given.
type fakeName struct {
	testing.TB
	name string
}

func (f fakeName) Name() string { return f.name }

func TestS3RoundTrip(t *testing.T) {
	s := S3(t)
	b := s.Bucket(t)
	if b2 := s.Bucket(t); b2 == b {
		t.Fatalf("Bucket twice gave %s", b)
	}
	if keys := s.Keys(t, b, ""); len(keys) != 0 {
		t.Fatalf("new bucket lists %q", keys)
	}
	s.Put(t, b, "a/x.bin", []byte("hello"))
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o777)
	os.WriteFile(filepath.Join(dir, "top.tsfile"), []byte("top"), 0o666)
	os.WriteFile(filepath.Join(dir, "sub", "deep", "f.resource"), []byte("deep"), 0o666)
	s.PutDir(t, b, "data/", dir)
	want := []string{"a/x.bin", "data/sub/deep/f.resource", "data/top.tsfile"}
	if got := s.Keys(t, b, ""); !slices.Equal(got, want) {
		t.Errorf("Keys = %q, want %q", got, want)
	}
	if got := s.Keys(t, b, "data/"); !slices.Equal(got, want[1:]) {
		t.Errorf("Keys(data/) = %q, want %q", got, want[1:])
	}
	if got := s.Get(t, b, "data/sub/deep/f.resource"); string(got) != "deep" {
		t.Errorf("Get = %q, want %q", got, "deep")
	}

	// A pending multipart upload counts until it is aborted.
	ctx := context.Background()
	up, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(b), Key: aws.String("big")})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Uploads(t, b); n != 1 {
		t.Errorf("Uploads = %d after starting one, want 1", n)
	}
	if _, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(b), Key: aws.String("big"), UploadId: up.UploadId}); err != nil {
		t.Fatal(err)
	}
	if n := s.Uploads(t, b); n != 0 {
		t.Errorf("Uploads = %d after the abort, want 0", n)
	}
	many := map[string][]byte{}
	for i := range 50 {
		many[fmt.Sprintf("many/%02d", i)] = []byte{byte(i)}
	}
	s.PutMany(t, b, many)
	if got := s.Keys(t, b, "many/"); len(got) != 50 || got[0] != "many/00" || got[49] != "many/49" {
		t.Errorf("Keys after PutMany = %q", got)
	}
	if got := s.Get(t, b, "many/33"); !bytes.Equal(got, []byte{33}) {
		t.Errorf("Get many/33 = %v", got)
	}
	if S3(t) != s {
		t.Error("S3 started a second server")
	}
}

// TestS3Env: the environment Env gives reaches the server with the AWS
// SDK's own configuration (what a child ts2arrow does).
func TestS3Env(t *testing.T) {
	s := S3(t)
	env := map[string]string{}
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for k, want := range map[string]string{
		"AWS_ENDPOINT_URL":      s.Endpoint,
		"AWS_ACCESS_KEY_ID":     s.AccessKey,
		"AWS_SECRET_ACCESS_KEY": s.SecretKey,
		"AWS_REGION":            s.Region,
	} {
		if env[k] != want || want == "" {
			t.Errorf("Env %s = %q, want %q", k, env[k], want)
		}
	}
	s.Setenv(t)
	if got := os.Getenv("AWS_SECRET_ACCESS_KEY"); got != s.SecretKey {
		t.Errorf("after Setenv AWS_SECRET_ACCESS_KEY = %q", got)
	}
}

// TestFaultProxy: the proxy answers the injected status with S3's error
// body, and otherwise forwards signed requests, which verify at the
// server although they were signed for the proxy's address.
func TestFaultProxy(t *testing.T) {
	s := S3(t)
	b := s.Bucket(t)
	s.Put(t, b, "k", []byte("through the proxy"))
	var n atomic.Int64
	url := FaultProxy(t, s.Endpoint, func(r *http.Request) int {
		if n.Add(1) <= 2 {
			return http.StatusServiceUnavailable
		}
		return 0
	})
	for i := 0; i < 2; i++ {
		resp, err := http.Get(url + "/" + b + "/k")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 503 || !bytes.Contains(body, []byte("<Code>SlowDown</Code>")) {
			t.Fatalf("request %d: %d %s, want 503 SlowDown", i+1, resp.StatusCode, body)
		}
	}
	client := s3.New(s3.Options{
		BaseEndpoint: aws.String(url),
		Region:       s.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		UsePathStyle: true,
	})
	out, err := client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("k")})
	if err != nil {
		t.Fatalf("signed GET through the proxy: %v", err)
	}
	body, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(body) != "through the proxy" {
		t.Errorf("GET through the proxy = %q", body)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("fail called %d times, want 3", got)
	}
}

func TestAzuriteRoundTrip(t *testing.T) {
	s := Azurite(t)
	c := s.Container(t)
	s.Put(t, c, "b/y.bin", []byte("blob"))
	s.Put(t, c, "a/x.bin", []byte("hello"))
	s.Put(t, c, "c", nil)
	if got, want := s.Keys(t, c, ""), []string{"a/x.bin", "b/y.bin", "c"}; !slices.Equal(got, want) {
		t.Errorf("Keys = %q, want %q", got, want)
	}
	if got, want := s.Keys(t, c, "b/"), []string{"b/y.bin"}; !slices.Equal(got, want) {
		t.Errorf("Keys(b/) = %q, want %q", got, want)
	}
	if got := s.Get(t, c, "a/x.bin"); string(got) != "hello" {
		t.Errorf("Get = %q", got)
	}
	if !strings.Contains(s.ConnectionString(), "BlobEndpoint="+s.Endpoint+";") {
		t.Errorf("ConnectionString %q lacks the endpoint %s", s.ConnectionString(), s.Endpoint)
	}
}

func TestGCSRoundTrip(t *testing.T) {
	s := GCS(t)
	b := s.Bucket(t)
	s.Put(t, b, "b/y z.bin", []byte("blob"))
	s.Put(t, b, "a/x.bin", []byte("hello"))
	if got, want := s.Keys(t, b, ""), []string{"a/x.bin", "b/y z.bin"}; !slices.Equal(got, want) {
		t.Errorf("Keys = %q, want %q", got, want)
	}
	if got, want := s.Keys(t, b, "b/"), []string{"b/y z.bin"}; !slices.Equal(got, want) {
		t.Errorf("Keys(b/) = %q, want %q", got, want)
	}
	if got := s.Get(t, b, "b/y z.bin"); string(got) != "blob" {
		t.Errorf("Get = %q", got)
	}
	if env := s.Env(); len(env) != 1 || env[0] != "STORAGE_EMULATOR_HOST="+s.Host {
		t.Errorf("Env = %q", env)
	}
}

// TestServerEndsWithProcess: the server and its data directory do not
// outlive the test process that started it. A child test process starts
// the server and exits; the server's process then ends (parent-death
// signal), and the next start removes the child's data directory.
func TestServerEndsWithProcess(t *testing.T) {
	if os.Getenv("OBJTEST_CHILD") == "1" {
		s := S3(t)
		fmt.Printf("PID=%d DIR=%s\n", s.proc.Cmd.Process.Pid, s.dir)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	S3(t) // skips here, not in the child, when versitygw is missing
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerEndsWithProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "OBJTEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`PID=(\d+) DIR=(\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("child printed no server pid:\n%s", out)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	dir := string(m[2])
	// The kernel kills the server as the child exits; wait for it to be
	// dead (gone, or a zombie until init reaps it), bounded in case it
	// never is.
	for i := 0; childproc.Alive(pid) && !isZombie(pid); i++ {
		if i == 1000 {
			t.Fatalf("versitygw (pid %d) still runs after its test process exited", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the child's data directory %s: %v (expected until swept)", dir, err)
	}
	childproc.SweepTempDirs(dataDirPrefix)
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after the sweep, the dead process's data directory %s: %v, want removed", dir, err)
	}
}

// isZombie reports whether pid has exited but is not reaped yet (state Z
// in /proc): killed, then.
func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// TestFindProgram: $ENV first (an error when it names no file), then PATH,
// then the fallbacks; none found is "" and what was tried, no error (the
// caller skips, or fails under CI).
func TestFindProgram(t *testing.T) {
	dir := t.TempDir()
	onPath := filepath.Join(dir, "path", "objtest-prog")
	fallback := filepath.Join(dir, "fallback", "objtest-prog")
	explicit := filepath.Join(dir, "explicit")
	for _, f := range []string{onPath, fallback, explicit} {
		os.MkdirAll(filepath.Dir(f), 0o777)
		os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755)
	}
	for _, tc := range []struct {
		name, env, path string
		fallback        []string
		want            string
		wantErr         bool
	}{
		{"env wins", explicit, filepath.Dir(onPath), []string{fallback}, explicit, false},
		{"env names no file", filepath.Join(dir, "missing"), filepath.Dir(onPath), nil, "", true},
		{"path", "", filepath.Dir(onPath), []string{fallback}, onPath, false},
		{"fallback", "", dir, []string{filepath.Join(dir, "nope"), fallback}, fallback, false},
		{"none", "", dir, []string{filepath.Join(dir, "nope")}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OBJTEST_PROG", tc.env)
			t.Setenv("PATH", tc.path)
			got, tried, err := findProgram("OBJTEST_PROG", "objtest-prog", tc.fallback...)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("findProgram = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
			if got == "" && err == nil && !strings.Contains(tried, "objtest-prog") {
				t.Errorf("nothing found, but tried = %q does not say what was looked for", tried)
			}
		})
	}
}
