package flight

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/internal/objtest"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/objstore"
)

// rootTree lays out a root holding the bundled IoTDB data directory and a
// plain TsFile, and returns it.
func rootTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(root, "iotdb"), os.DirFS("../testdata/iotdb")))
	writeTestFile(t, root, "plain/x.tsfile", 3, 50, 7)
	return root
}

// served reads every flight a server lists, by descriptor, as text rows
// under a line naming the descriptor and its endpoint count.
func served(t *testing.T, c flight.Client) string {
	t.Helper()
	stream, err := c.ListFlights(context.Background(), &flight.Criteria{})
	require.NoError(t, err)
	var descs []*flight.FlightDescriptor
	for {
		fi, err := stream.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		descs = append(descs, fi.FlightDescriptor)
	}
	var b strings.Builder
	for _, d := range descs {
		fi := getInfo(t, c, d)
		fmt.Fprintf(&b, "# %s (%d endpoints, %d records)\n", strings.Join(d.Path, " | "), len(fi.Endpoint), fi.TotalRecords)
		for _, r := range readFlight(t, context.Background(), c, fi) {
			b.WriteString(r + "\n")
		}
	}
	return b.String()
}

// TestRootFSServesAsLocal: a root served through an io/fs file system
// (os.DirFS of it, and a MapFS copy sharing nothing with the disk) lists
// the same flights as the root on disk, and DoGet gives the same rows,
// the data directory's deletions and overwrites applied; with the data
// directory's flights cut into endpoints by time too.
func TestRootFSServesAsLocal(t *testing.T) {
	root := rootTree(t)
	for _, pb := range []int64{0, 1} {
		local := startServer(t, Options{Root: root, PartitionBytes: pb})
		want := served(t, dial(t, local.addr))
		// The sample's corrections and deletions, as the golden rows.
		for _, s := range []string{"# iotdb | weather (", "# plain/x.tsfile | weather (", "2026-01-01T03:00:00Z|north|p1|-1|63|corrected\n"} {
			require.True(t, strings.Contains(want, s), s)
		}
		require.False(t, strings.Contains(want, "2026-01-01T12:00:00Z|south"), "deleted rows")
		for name, fsys := range map[string]fs.FS{"dirfs": os.DirFS(root), "mapfs": testkit.MapFS(t, root)} {
			srv := startServer(t, Options{Root: "mem://bucket/" + name, RootFS: fsys, PartitionBytes: pb})
			require.Equal(t, local.Files(), srv.Files(), name)
			require.Equal(t, local.DataDirs(), srv.DataDirs(), name)
			require.Empty(t, srv.Problems(), name)
			got := served(t, dial(t, srv.addr))
			require.True(t, want == got, "%s, PartitionBytes %d: the flights differ from the local root's", name, pb)
		}
	}
}

// TestRootFSChanged: a file replaced in the file system is reopened at the
// next request, as on disk (its size and modification time differ); one
// that vanishes leaves the catalog.
func TestRootFSChanged(t *testing.T) {
	root := rootTree(t)
	other := t.TempDir()
	writeTestFile(t, other, "x.tsfile", 2, 10, 99)
	m := testkit.MapFS(t, root)
	srv := startServer(t, Options{Root: "mem://bucket", RootFS: m})
	c := dial(t, srv.addr)
	before := readFlight(t, context.Background(), c, getInfo(t, c, pathDesc("plain/x.tsfile", "weather")))

	b, err := os.ReadFile(filepath.Join(other, "x.tsfile"))
	require.NoError(t, err)
	m["plain/x.tsfile"] = &fstest.MapFile{Data: b, Mode: 0o644, ModTime: time.Now().Add(time.Minute)}
	after := readFlight(t, context.Background(), c, getInfo(t, c, pathDesc("plain/x.tsfile", "weather")))
	require.NotEqual(t, before, after)
	require.Equal(t, localRows(t, nil, "weather", filepath.Join(other, "x.tsfile")), after)

	delete(m, "plain/x.tsfile")
	require.NoError(t, srv.Rescan(context.Background()))
	require.Empty(t, srv.Files())
}

// TestRootFSRefusesPut: DoPut needs a directory to write a temporary in
// and link it into place; over RootFS it is refused at start, clearly.
func TestRootFSRefusesPut(t *testing.T) {
	_, err := NewServer(Options{Root: "s3://b/p", RootFS: fstest.MapFS{}, AllowPut: true})
	require.ErrorContains(t, err, "AllowPut with RootFS")
	_, err = NewServer(Options{Root: "s3://b/p", RootFS: fstest.MapFS{"f": &fstest.MapFile{}}, Rescan: -1})
	require.NoError(t, err)
	_, err = NewServer(Options{Root: "s3://b/p", RootFS: fstest.MapFS{"f": &fstest.MapFile{}}, Rescan: -1})
	require.NoError(t, err)
}

// TestRootFSS3: a bucket prefix holding the bundled IoTDB data directory
// and a plain TsFile, served through objstore's FS from an S3 server
// (versitygw), lists the flights of the same tree served from disk and
// DoGet gives the same rows, also with the data directory's flights cut
// into endpoints by time.
func TestRootFSS3(t *testing.T) {
	root := rootTree(t)
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "served", root)
	ctx := context.Background()
	store, _, err := objstore.Open(ctx, "s3://"+bucket+"/", nil)
	require.NoError(t, err)
	defer store.Close()
	for _, pb := range []int64{0, 1} {
		local := startServer(t, Options{Root: root, PartitionBytes: pb})
		want := served(t, dial(t, local.addr))
		remote := startServer(t, Options{Root: "s3://" + bucket + "/served", RootFS: store.FS(ctx, "served"), PartitionBytes: pb})
		require.Equal(t, local.Files(), remote.Files())
		require.Equal(t, local.DataDirs(), remote.DataDirs())
		require.Empty(t, remote.Problems())
		got := served(t, dial(t, remote.addr))
		require.True(t, want == got, "PartitionBytes %d: the flights from the bucket differ from the local root's", pb)
		require.True(t, strings.Contains(got, "# iotdb | weather ("), "%.300s", got)
	}
}
