//go:build unix

package flight

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestDoPutModeFollowsUmask (issue 37): a file DoPut writes, and the
// directories it makes, get the mode os.Create and os.Mkdir give (0o666
// and 0o777 less the umask), as the files the CLI writes, where they had
// 0o600 from os.CreateTemp. The umask is process-wide and this package's
// tests run in parallel, so the put runs in a child process of this test
// binary that sets its umask first.
func TestDoPutModeFollowsUmask(t *testing.T) {
	if u := os.Getenv("TSARROW_TEST_UMASK"); u != "" {
		umask, err := strconv.ParseInt(u, 8, 32)
		require.NoError(t, err)
		syscall.Umask(int(umask))
		putOne(t, os.Getenv("TSARROW_TEST_ROOT"))
		return
	}
	for _, umask := range []int{0o027, 0o002} {
		root := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestDoPutModeFollowsUmask$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TSARROW_TEST_UMASK="+strconv.FormatInt(int64(umask), 8), "TSARROW_TEST_ROOT="+root)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		for p, want := range map[string]int{
			"new":                 0o777 &^ umask,
			"new/deep":            0o777 &^ umask,
			"new/deep/put.tsfile": 0o666 &^ umask,
		} {
			st, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
			require.NoError(t, err, "%s", out)
			require.Equal(t, fs.FileMode(want), st.Mode().Perm(), "umask %03o: %s", umask, p)
		}
	}
}

// putOne puts a two-row file at new/deep/put.tsfile of a server of root.
func putOne(t *testing.T, root string) {
	srv := startServer(t, Options{Root: root, AllowPut: true})
	c := dial(t, srv.addr)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "v", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1, 2}, nil)
	b.Field(1).(*array.Int32Builder).AppendValues([]int32{10, 20}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	stream, err := c.DoPut(context.Background())
	require.NoError(t, err)
	w := arrowflight.NewRecordWriter(stream, ipc.WithSchema(sc))
	w.SetFlightDescriptor(pathDesc("new/deep/put.tsfile"))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, stream.CloseSend())
	_, err = stream.Recv()
	require.NoError(t, err)
}
