package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// renamesDir is a data directory of table t (one sequence file, region 1,
// partition 0 of database db) whose partition holds the schema-evolution
// log filesets/5/{name} with the given bytes, as apache/iotdb #17079's
// TsFileSet writes it. It returns the root, the data file and the log.
func renamesDir(t *testing.T, name string, sevo []byte) (root, data, log string) {
	t.Helper()
	root = t.TempDir()
	data = writeTyped(t, root, typedFile{Sequence, 1, 1, tsfile.Int64, []int64{1, 2}, tsfile.Values{Type: tsfile.Int64, Int64s: []int64{10, 20}}})[0]
	log = filepath.Join(filepath.Dir(data), "filesets", "5", name)
	require.NoError(t, os.MkdirAll(filepath.Dir(log), 0o755))
	require.NoError(t, os.WriteFile(log, sevo, 0o644))
	return root, data, log
}

// tableRename is a .sevo entry as #17079's TableRename.serialize writes
// it: varint type 0 (TABLE_RENAME), then both names as varint-length
// strings. Only its being non-empty matters to the reader.
var tableRename = []byte{0, 2, 't', '1', 2, 't', '2'}

// TestDatasetRenamesRefused: a directory whose schema-evolution log
// records renames is refused, from whatever root reaches the partition (a
// single data file of it too: its tables would read under the old names),
// and on disk or through an io/fs file system alike. The error names the
// log, the unsettled upstream feature and --raw, and wraps ErrRenames and
// tsfile.ErrUnsupported.
func TestDatasetRenamesRefused(t *testing.T) {
	root, data, log := renamesDir(t, "7.sevo", tableRename)
	part := filepath.Dir(data)
	for _, r := range []string{root, filepath.Join(root, "sequence"), filepath.Join(root, "sequence", "db"), part, data} {
		t.Run(strings.TrimPrefix(r, root), func(t *testing.T) {
			_, err := Open([]string{r}, nil)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrRenames)
			require.ErrorIs(t, err, tsfile.ErrUnsupported)
			for _, want := range []string{log, "ALTER TABLE ... RENAME", "apache/iotdb pull request #17079", "in no IoTDB release", "--raw"} {
				require.Contains(t, err.Error(), want)
			}
			require.NotContains(t, err.Error(), "\n")
		})
	}
	rel, err := filepath.Rel(root, data)
	require.NoError(t, err)
	for _, r := range []string{".", filepath.ToSlash(rel)} {
		l, err := DiscoverFS(os.DirFS(root), r)
		require.NoError(t, err)
		_, err = OpenLayout(l, &Options{FS: os.DirFS(root)})
		require.ErrorIs(t, err, ErrRenames, "root %s", r)
		require.Contains(t, err.Error(), "sequence/db/1/0/filesets/5/7.sevo")
	}
	// Discover says what the log is.
	l, err := Discover(data)
	require.NoError(t, err)
	require.Len(t, l.Skipped, 1)
	require.Equal(t, log, l.Skipped[0].Path)
	require.Contains(t, l.Skipped[0].Reason, "#17079")
}

// TestDatasetRenamesEmptyLog: an empty schema-evolution log records no
// rename (TsFileSet starts one as 0.sevo): the directory reads as without
// it, the log named in a warning, for refusing it would refuse a valid
// directory.
func TestDatasetRenamesEmptyLog(t *testing.T) {
	root, _, log := renamesDir(t, "0.sevo", nil)
	ds, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	_, vals, err := readV(t, root)
	require.NoError(t, err)
	require.Len(t, vals, 2)
	require.Contains(t, strings.Join(ds.Warnings(), "\n"), log+": an empty schema-evolution log")
	// One byte more and it records something.
	require.NoError(t, os.WriteFile(log, []byte{0}, 0o644))
	_, err = Open([]string{root}, nil)
	require.True(t, errors.Is(err, ErrRenames), "%v", err)
}
