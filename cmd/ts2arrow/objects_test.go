package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// objectFixtures are the files the object tests put in a bucket: the
// sample and upstream files of both models and versions.
var objectFixtures = []string{
	sample,
	"../../testdata/upstream/java/v4_table_DOUBLE_GORILLA_multichunk.tsfile",
	"../../testdata/upstream/java/v3_tree_BOOLEAN_RLE.tsfile",
	"../../testdata/upstream/cpp/c01_tree_nonaligned_gzip.tsfile",
}

// putFixtures uploads objectFixtures to bucket under prefix and returns
// the URL of each, in order.
func putFixtures(t *testing.T, srv *objtest.Server, bucket, prefix string) []string {
	t.Helper()
	var urls []string
	for _, f := range objectFixtures {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		key := prefix + filepath.Base(f)
		srv.Put(t, bucket, key, data)
		urls = append(urls, "s3://"+bucket+"/"+key)
	}
	return urls
}

// TestObjectInputsMatchLocal: a TsFile read from an S3 server converts to
// the same bytes, Parquet and CSV, as the local file, and head, schema
// and inspect print the same text but for the file's name.
func TestObjectInputsMatchLocal(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	urls := putFixtures(t, srv, bucket, "x/")
	dir := t.TempDir()
	for i, local := range objectFixtures {
		url := urls[i]
		for _, ext := range []string{"parquet", "csv"} {
			want, got := filepath.Join(dir, "local."+ext), filepath.Join(dir, "object."+ext)
			code, _, errOut := runCLI("convert", local, "-o", want)
			require.Equal(t, 0, code, "%s: %s", local, errOut)
			code, _, errOut = runCLI("convert", url, "-o", got)
			require.Equal(t, 0, code, "%s: %s", url, errOut)
			wb, err := os.ReadFile(want)
			require.NoError(t, err)
			gb, err := os.ReadFile(got)
			require.NoError(t, err)
			require.True(t, len(wb) > 0 && string(wb) == string(gb), "%s -o %s: the bytes differ from the local file's", url, ext)
			require.NoError(t, os.Remove(want))
			require.NoError(t, os.Remove(got))
		}
		for _, verb := range [][]string{{"head"}, {"head", "-n", "3", "--time-format", "epoch"}, {"schema"}, {"schema", "--json"}, {"inspect"}, {"inspect", "--json"}, {"inspect", "--pages"}} {
			code, want, errOut := runCLI(append(verb, local)...)
			require.Equal(t, 0, code, "%v %s: %s", verb, local, errOut)
			code, got, errOut := runCLI(append(verb, url)...)
			require.Equal(t, 0, code, "%v %s: %s", verb, url, errOut)
			require.Equal(t, want, strings.ReplaceAll(got, url, local), "%v %s: output differs from the local file's", verb, url)
		}
	}
}

// fetchedLine is what inspect and convert --verbose say a remote file
// cost.
var fetchedLine = regexp.MustCompile(`(?m)^ts2arrow: (\S+): fetched ([0-9]+) of ([0-9]+) bytes in ([0-9]+) requests$`)

// TestObjectInputsReportFetched: inspect and convert --verbose say how
// many requests and bytes an object cost: inspect reads the metadata in a
// few requests and not the whole file, convert reads it all.
func TestObjectInputsReportFetched(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	url := putFixtures(t, srv, bucket, "")[0]
	st, err := os.Stat(sample)
	require.NoError(t, err)

	code, _, errOut := runCLI("inspect", url)
	require.Equal(t, 0, code, errOut)
	m := fetchedLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, "inspect says nothing of what it fetched: %q", errOut)
	require.Equal(t, url, m[1])
	require.Equal(t, strconv.FormatInt(st.Size(), 10), m[3])
	requests, _ := strconv.Atoi(m[4])
	require.True(t, requests >= 1 && requests <= 8, "inspect: %s requests for the metadata", m[4])
	t.Logf("inspect: %s", m[0])

	code, _, errOut = runCLI("convert", "--verbose", url, "-o", filepath.Join(t.TempDir(), "o.csv"))
	require.Equal(t, 0, code, errOut)
	m = fetchedLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, "convert --verbose says nothing of what it fetched: %q", errOut)
	fetched, _ := strconv.ParseInt(m[2], 10, 64)
	require.GreaterOrEqual(t, fetched, st.Size()*9/10, "convert read %d of %d bytes", fetched, st.Size())
	t.Logf("convert: %s", m[0])

	// A local file costs no line.
	code, _, errOut = runCLI("inspect", sample)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
}

// TestObjectDirectoriesAndGlobs: a prefix and `**` patterns over keys pick
// the same files, in the same order, as the same tree on disk, for
// convert and inspect.
func TestObjectDirectoriesAndGlobs(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	root := t.TempDir()
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	tree := filepath.Join(root, "tree")
	for _, rel := range []string{"a.tsfile", "b/c.tsfile", "b/d/e.tsfile", "b-x.tsfile", "b.tsfile", "f/notes.txt", "f/g.TSFILE"} {
		p := filepath.Join(tree, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	srv.PutDir(t, bucket, "tree", tree)
	base := "s3://" + bucket + "/tree"
	out := t.TempDir()
	for _, rel := range []string{"/", "", "/b", "/b/", "/**/*.tsfile", "/*", "/**/e.tsfile", "/{a,b}.tsfile", "/b*"} {
		local := tree + rel
		code, want, errOut := runCLI("inspect", local)
		require.Equal(t, 0, code, "%s: %s", local, errOut)
		code, got, errOut := runCLI("inspect", base+rel)
		require.Equal(t, 0, code, "%s: %s", base+rel, errOut)
		got = strings.ReplaceAll(got, base, tree)
		require.Equal(t, want, got, "inspect %s: not the files, or the order, of %s", base+rel, local)
		require.Contains(t, got, "file:")

		wantCSV, gotCSV := filepath.Join(out, "want.csv"), filepath.Join(out, "got.csv")
		code, _, errOut = runCLI("convert", local, "-o", wantCSV, "--force")
		require.Equal(t, 0, code, "%s: %s", local, errOut)
		code, _, errOut = runCLI("convert", base+rel, "-o", gotCSV, "--force")
		require.Equal(t, 0, code, "%s: %s", base+rel, errOut)
		wb, _ := os.ReadFile(wantCSV)
		gb, _ := os.ReadFile(gotCSV)
		require.True(t, len(wb) > 0 && string(wb) == string(gb), "convert %s differs from convert %s", base+rel, local)
	}
	// A prefix with no TsFile below is a usage error, as a directory.
	code, _, errOut := runCLI("convert", base+"/f/notes", "-o", filepath.Join(out, "x.csv"))
	require.Equal(t, 1, code, errOut)
	code, _, errOut = runCLI("inspect", "s3://"+bucket+"/tree/f/*.parquet")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "matches no file")
}

// TestObjectInputMissing: a key that is not there exits 1 with one line
// naming s3://bucket/key, as a missing local file does, for every command.
func TestObjectInputMissing(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	putFixtures(t, srv, bucket, "")
	url := "s3://" + bucket + "/missing.tsfile"
	out := filepath.Join(t.TempDir(), "x.csv")
	nothing := "s3://" + bucket + "/nothing/"
	noBucket := "s3://" + bucket + "-missing/x.tsfile"
	for _, tc := range []struct {
		args []string
		url  string
	}{
		{[]string{"convert", url, "-o", out}, url},
		{[]string{"head", url}, url},
		{[]string{"schema", url}, url},
		{[]string{"inspect", url}, url},
		{[]string{"inspect", "--json", url}, url},
		{[]string{"convert", nothing, "-o", out}, nothing},
		{[]string{"inspect", noBucket}, noBucket},
		{[]string{"convert", noBucket, "-o", out}, noBucket},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		require.Equal(t, 1, code, "%v: %s", tc.args, stderr)
		require.Empty(t, stdout, "%v", tc.args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %q", tc.args, stderr)
		require.True(t, strings.HasPrefix(stderr, "ts2arrow: "), "%v: %q", tc.args, stderr)
		require.Contains(t, stderr, tc.url, "%v: the URL is named", tc.args)
		require.NotContains(t, stderr, tc.url+"/", "%v: the URL is named as given", tc.args)
		require.NotContains(t, stderr, srv.SecretKey)
		require.NoFileExists(t, out)
	}
}

// TestObjectEndpointFlagAndEnv: the endpoint comes from --s3-endpoint or
// from AWS_ENDPOINT_URL; the flag wins over the environment.
func TestObjectEndpointFlagAndEnv(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	url := putFixtures(t, srv, bucket, "")[0]
	code, want, errOut := runCLI("schema", sample)
	require.Equal(t, 0, code, errOut)

	// The environment alone.
	code, got, errOut := runCLI("schema", url)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, got)

	// The flag wins over a wrong environment, both spellings.
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	for _, args := range [][]string{{"--s3-endpoint", srv.Endpoint}, {"--s3-endpoint=" + srv.Endpoint, "--s3-region", srv.Region}} {
		code, got, errOut = runCLI(append([]string{"schema", url}, args...)...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		require.Equal(t, want, got)
	}
	// And a wrong flag over a right environment fails.
	t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
	code, _, errOut = runCLI("schema", url, "--s3-endpoint", "http://127.0.0.1:1")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, url)
	require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	require.NotContains(t, errOut, srv.SecretKey)

	// convert and inspect take the flag too.
	t.Setenv("AWS_ENDPOINT_URL", "")
	code, _, errOut = runCLI("inspect", url, "--s3-endpoint", srv.Endpoint)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI("convert", url, "--s3-endpoint", srv.Endpoint, "-o", filepath.Join(t.TempDir(), "o.parquet"))
	require.Equal(t, 0, code, errOut)
}

// TestObjectIoTDBDataNotReadRaw: IoTDB data in a bucket (a data
// directory, or a TsFile with a mods object beside it) is never read file
// by file without --raw, which would bring its deleted points back: it is
// refused with what to do (until the dataset path reads it), and --raw
// reads every file as it is, as --raw does locally.
func TestObjectIoTDBDataNotReadRaw(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "iotdb", "../../testdata/iotdb")
	base := "s3://" + bucket + "/iotdb"
	modsFile := base + "/sequence/weather/1/0/1767268800000-2-0-0.tsfile"
	out := filepath.Join(t.TempDir(), "o.csv")
	for _, args := range [][]string{
		{"convert", base + "/", "--table", "weather", "-o", "-", "--format", "csv"},
		{"convert", base + "/**/*.tsfile", "--table", "weather", "-o", "-", "--format", "csv"},
		{"convert", base + "/sequence/weather/1/0/", "--table", "weather", "-o", out},
		{"head", modsFile},
		{"schema", modsFile},
		{"inspect", base},
	} {
		code, stdout, stderr := runCLI(args...)
		if code == 0 {
			// The dataset path reads it: then it must answer as the
			// local data directory does.
			var got []byte
			if slices.Contains(args, out) {
				var err error
				got, err = os.ReadFile(out)
				require.NoError(t, err)
				require.NoError(t, os.Remove(out))
			}
			local := strings.ReplaceAll(strings.Join(args, "\x00"), base, "../../testdata/iotdb")
			code2, want, stderr2 := runCLI(strings.Split(local, "\x00")...)
			require.Equal(t, 0, code2, stderr2)
			require.Equal(t, want, strings.ReplaceAll(stdout, base, "../../testdata/iotdb"), "%v", args)
			if slices.Contains(args, out) {
				wantFile, err := os.ReadFile(out)
				require.NoError(t, err)
				require.Equal(t, string(wantFile), string(got), "%v", args)
				require.NoError(t, os.Remove(out))
			}
			continue
		}
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "--raw", "%v", args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%v: %q", args, stderr)
		require.NoFileExists(t, out)
	}
	// --raw reads the files as the local --raw does.
	for _, args := range [][]string{
		{"convert", "--raw", base + "/", "--table", "weather", "-o", "-", "--format", "csv"},
		{"head", "--raw", modsFile},
		{"inspect", "--raw", base + "/sequence/weather/"},
	} {
		code, got, stderr := runCLI(args...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		local := strings.ReplaceAll(strings.Join(args, "\x00"), base, "../../testdata/iotdb")
		code, want, stderr := runCLI(strings.Split(local, "\x00")...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		require.Equal(t, want, strings.ReplaceAll(got, base, "../../testdata/iotdb"), "%v", args)
	}
}
