//go:build unix

package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// TestObjectOutputSignals: a conversion of a large input to a bucket is
// stopped while its first upload request is held at the server (a proxy
// in front of it holds the first PUT: a part of a multipart upload, or a
// whole object): SIGINT and SIGTERM abort it cleanly (status 130 or 143,
// no object, no pending multipart upload, no local temporary), and
// SIGKILL leaves no object at the final keys and no _SUCCESS; the next
// run removes the local temporary a killed dataset left.
func TestObjectOutputSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("converts a large file")
	}
	s := objtest.S3(t)
	big := bigFile(t)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		out  string // key or prefix
		args []string
	}{
		{"SIGINT-object", syscall.SIGINT, "out.csv", nil},
		{"SIGKILL-object", syscall.SIGKILL, "out.csv", nil},
		{"SIGINT-dataset", syscall.SIGINT, "lake/", []string{"--partition-by", "device"}},
		{"SIGTERM-dataset", syscall.SIGTERM, "lake/", []string{"--partition-by", "device,hour"}},
		{"SIGKILL-dataset", syscall.SIGKILL, "lake/", []string{"--partition-by", "table"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := s.Bucket(t)
			hit, release := make(chan string), make(chan struct{})
			var once sync.Once
			proxy := objtest.FaultProxy(t, s.Endpoint, func(r *http.Request) int {
				if r.Method != http.MethodPut || !strings.HasPrefix(r.URL.Path, "/"+b+"/") {
					return 0
				}
				first := false
				once.Do(func() { first = true })
				if first {
					hit <- r.URL.String()
					select {
					case <-release:
					case <-r.Context().Done():
					}
				}
				return 0
			})
			tmp := t.TempDir()
			env := append(s.Env(), "AWS_ENDPOINT_URL="+proxy, "TMPDIR="+tmp)
			url := "s3://" + b + "/" + tc.out
			r := startBinEnv(t, env, append([]string{"convert", big, "-o", url}, tc.args...)...)
			var held string
			select {
			case held = <-hit:
			case <-r.done:
				t.Fatalf("ts2arrow ended before it uploaded: %v\n%s", r.err, r.stderr.String())
			}
			require.NoError(t, r.cmd.Process.Signal(tc.sig))
			if tc.sig != syscall.SIGKILL {
				// The held request goes on; the process must then
				// abort the upload it belongs to.
				close(release)
			}
			code := r.wait(t, time.Minute)
			if tc.sig == syscall.SIGKILL {
				close(release)
				require.Equal(t, -1, code)
			} else {
				require.Equal(t, 128+int(tc.sig), code, r.stderr.String())
				require.Contains(t, r.stderr.String(), "interrupted")
				require.Zero(t, s.Uploads(t, b), "pending multipart uploads")
				require.Empty(t, namesIn(t, tmp), "local temporaries")
			}
			t.Logf("held %s; stderr: %q", held, r.stderr.String())
			require.Empty(t, s.Keys(t, b, ""), "objects left")

			if tc.sig == syscall.SIGKILL && strings.HasSuffix(tc.out, "/") {
				// The dataset's local temporary is left; the next run
				// into a bucket removes it.
				require.Len(t, namesIn(t, tmp), 1)
				left := filepath.Join(tmp, namesIn(t, tmp)[0])
				res := runBinEnv(t, env, "convert", sample, "-o", url, "--partition-by", "device")
				require.Equal(t, 0, res.code, res.stderr)
				require.Contains(t, res.stderr, "ts2arrow: removed stale temporary file "+left+" left by process ")
				require.Empty(t, namesIn(t, tmp))
				require.Equal(t, withSuccess(deviceDataset), s3Tree(t, s, b, tc.out))
			}
		})
	}
}
