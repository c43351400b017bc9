package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// sampleDataDir is the bundled IoTDB data directory.
const sampleDataDir = "../../testdata/iotdb"

// TestObjectDataDirReadsAsLocal: the bundled IoTDB data directory
// uploaded to an S3 server (versitygw) converts, table by table and in
// every text and binary format, to the bytes the local directory gives,
// with its deletions and overwrites (the note says so), as do a space
// folder, a region folder and one data file of it; head and schema print
// what they print locally.
func TestObjectDataDirReadsAsLocal(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "backup/iotdb", sampleDataDir)
	base := "s3://" + bucket + "/backup/iotdb"
	dir := t.TempDir()
	same := func(t *testing.T, local, url string, args ...string) string {
		t.Helper()
		for _, ext := range []string{"csv", "parquet", "jsonl"} {
			want, got := filepath.Join(dir, "local."+ext), filepath.Join(dir, "object."+ext)
			code, _, errLocal := runCLI(append([]string{"convert", local, "-o", want}, args...)...)
			require.Equal(t, 0, code, "%s: %s", local, errLocal)
			code, _, errObj := runCLI(append([]string{"convert", url, "-o", got}, args...)...)
			require.Equal(t, 0, code, "%s: %s", url, errObj)
			wb, err := os.ReadFile(want)
			require.NoError(t, err)
			gb, err := os.ReadFile(got)
			require.NoError(t, err)
			require.True(t, len(wb) > 0 && string(wb) == string(gb), "%s %v -o %s: the bytes differ from the local directory's", url, args, ext)
			require.NoError(t, os.Remove(want))
			require.NoError(t, os.Remove(got))
			if ext == "csv" {
				require.Contains(t, errObj, "returning rows as IoTDB does")
				return errObj
			}
		}
		return ""
	}
	note := same(t, sampleDataDir, base+"/", "--table", "weather")
	require.Contains(t, note, base+"/ is an IoTDB data directory in a bucket")
	same(t, sampleDataDir, base, "--table", "root.sg")
	same(t, sampleDataDir, base+"/", "--table", "weather", "--start", "2026-01-01T03:00:00Z", "--end", "2026-01-01T05:00:00Z")
	same(t, filepath.Join(sampleDataDir, "sequence"), base+"/sequence/", "--table", "weather")
	same(t, filepath.Join(sampleDataDir, "unsequence", "weather", "1"), base+"/unsequence/weather/1")
	same(t, filepath.Join(sampleDataDir, "sequence/weather/1/1/1767312000000-4-0-0.tsfile"), base+"/sequence/weather/1/1/1767312000000-4-0-0.tsfile")

	// The rows are the resolved ones: the unsequence file's corrections
	// win and the mods files' deletions apply.
	out := filepath.Join(dir, "w.csv")
	code, _, errOut := runCLI("convert", base+"/", "--table", "weather", "-o", out)
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.True(t, strings.Contains(string(b), "2026-01-01T03:00:00.000Z,north,p1,-1,63,corrected"), "the unsequence correction")
	require.False(t, strings.Contains(string(b), "2026-01-01T12:00:00.000Z,south"), "deleted rows")

	for _, verb := range [][]string{{"head", "--table", "weather"}, {"head", "--table", "root.sg", "-n", "2"}, {"schema", "--table", "weather"}, {"schema", "--table", "root.sg", "--json"},
		{"inspect"}, {"inspect", "--json"}, {"inspect", "--no-count", "--max-entries", "1"}} {
		code, want, _ := runCLI(append(verb, sampleDataDir)...)
		require.Equal(t, 0, code, "%v", verb)
		code, got, errOut := runCLI(append(verb, base)...)
		require.Equal(t, 0, code, "%v: %s", verb, errOut)
		// inspect names the files by their URLs, as their paths locally.
		require.Equal(t, want, strings.ReplaceAll(got, base, sampleDataDir), "%v", verb)
	}
	code, _, errOut = runCLI("inspect", base+"/unsequence/")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, base+"/unsequence/: an IoTDB data directory in a bucket")

	// --raw reads every object as it is: deleted rows come back.
	code, _, errOut = runCLI("convert", base+"/", "--table", "weather", "--raw", "-o", out, "--force")
	require.Equal(t, 0, code, errOut)
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	require.True(t, strings.Contains(string(b), "2026-01-01T12:00:00.000Z,south"), "--raw brings deleted rows back")
}

// TestObjectDataDirRefused: inputs that cannot be read together with IoTDB
// data in a bucket are usage errors that say what to do.
func TestObjectDataDirRefused(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "iotdb", sampleDataDir)
	base := "s3://" + bucket + "/iotdb/"
	out := filepath.Join(t.TempDir(), "x.csv")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{base, sample}, "is a local path"},
		{[]string{base, "s3://" + bucket + "/iotdb/sequence/"}, ""},
		{[]string{"s3://" + bucket + "/iotdb/*/weather/1"}, "is a pattern over IoTDB data in a bucket"},
	} {
		code, _, errOut := runCLI(append(append([]string{"convert"}, c.args...), "--table", "weather", "-o", out, "--force")...)
		if c.msg == "" {
			// Two roots of one bucket: the space given twice is read once.
			require.Equal(t, 0, code, "%v: %s", c.args, errOut)
			continue
		}
		require.Equal(t, 2, code, "%v: %s", c.args, errOut)
		require.True(t, strings.Contains(errOut, c.msg), "%v: %s", c.args, errOut)
	}
}

// flightsOf lists a Flight server's flights and reads each, as text.
func flightsOf(t *testing.T, addr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialFlight(t, addr)
	ls, err := c.ListFlights(ctx, &arrowflight.Criteria{})
	require.NoError(t, err)
	var descs []*arrowflight.FlightDescriptor
	for {
		fi, err := ls.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		descs = append(descs, fi.FlightDescriptor)
	}
	var b strings.Builder
	for _, d := range descs {
		fi, err := c.GetFlightInfo(ctx, d)
		require.NoError(t, err)
		rows, _ := readEndpoints(t, ctx, c, fi)
		fmt.Fprintf(&b, "# %s (%d endpoints)\n%s\n", strings.Join(d.Path, " | "), len(fi.Endpoint), strings.Join(rows, "\n"))
	}
	return b.String()
}

// TestServeObjectRoot: serve --root s3://bucket/prefix/ over a prefix
// holding the bundled IoTDB data directory and a plain TsFile gives a
// Flight client the flights and DoGet rows of serve over the local copy;
// --allow-put and --sql are refused there.
func TestServeObjectRoot(t *testing.T) {
	srv := objtest.S3(t)
	bucket := srv.Bucket(t)
	root := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(root, "iotdb"), os.DirFS(sampleDataDir)))
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plain"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "plain", "sample.tsfile"), data, 0o644))
	srv.PutDir(t, bucket, "served", root)

	local := startServe(t, nil, "--root", root, "--addr", "127.0.0.1:0", "--rescan", "0", "--sql=false", "--partition-size", "1")
	want := flightsOf(t, local.addr)
	require.Contains(t, want, "# iotdb | weather (")
	require.Contains(t, want, "# plain/sample.tsfile | ")
	url := "s3://" + bucket + "/served/"
	remote := startServe(t, srv.Env(), "--root", url, "--addr", "127.0.0.1:0", "--rescan", "0", "--partition-size", "1")
	require.Contains(t, remote.stderr.String(), "serving "+url+" on ")
	require.Contains(t, remote.stderr.String(), "files=1 unreadable=0 data_dirs=1")
	require.True(t, want == flightsOf(t, remote.addr), "the flights served from the bucket differ from the local root's")
	require.Equal(t, 0, remote.stop(t, syscall.SIGTERM), remote.stderr.String())
	require.Equal(t, 0, local.stop(t, syscall.SIGTERM), local.stderr.String())

	for _, args := range [][]string{{"--allow-put"}, {"--sql"}} {
		r := runBinEnv(t, srv.Env(), append([]string{"serve", "--root", url, "--addr", "127.0.0.1:0"}, args...)...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	r := runBinEnv(t, srv.Env(), "serve", "--root", "s3://"+bucket+"/served/plain/sample.tsfile", "--addr", "127.0.0.1:0")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "is an object, not a prefix")
}
