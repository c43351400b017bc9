package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

	for _, verb := range [][]string{{"head", "--table", "weather"}, {"head", "--table", "root.sg", "-n", "2"}, {"schema", "--table", "weather"}, {"schema", "--table", "root.sg", "--json"}} {
		code, want, _ := runCLI(append(verb, sampleDataDir)...)
		require.Equal(t, 0, code, "%v", verb)
		code, got, errOut := runCLI(append(verb, base+"/")...)
		require.Equal(t, 0, code, "%v: %s", verb, errOut)
		require.Equal(t, want, got, "%v", verb)
	}

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
