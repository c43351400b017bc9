//go:build iceberg

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/icesync"
	"github.com/tsarrow/tsarrow/internal/objtest"
)

// TestSyncDoneWhen runs issue 41's done-when command twice on a copy of
// testdata/iotdb: the first sync creates the table and a snapshot, the
// second finds the sources unchanged and commits nothing. The table read
// back through iceberg-go's scan holds convert's rows of the same input.
func TestSyncDoneWhen(t *testing.T) {
	work := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(work, "iotdb"), os.DirFS("../../testdata/iotdb")))
	t.Chdir(work)
	args := []string{"sync", "iotdb", "--table", "weather", "--catalog", "sqlite:cat.db", "--warehouse", "lake", "--to", "iot.weather"}

	code, out, stderr := runCLI(args...)
	require.Equal(t, 0, code, stderr)
	first := regexp.MustCompile(`^iot\.weather: created, snapshot (-?\d+): (\d+) data files added, 0 replaced, (\d+) rows, from 4 source files\n$`).FindStringSubmatch(out)
	require.NotNil(t, first, "first sync printed %q", out)
	require.NotEqual(t, "0", first[2], "data files added")

	code, out, stderr = runCLI(args...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "iot.weather: nothing to sync (snapshot "+first[1]+" reflects the 4 source files)\n", out)

	// convert's rows (times in milliseconds, the table's in microseconds:
	// syncRenderRows prints both in microseconds).
	code, _, stderr = runCLI("convert", "iotdb", "--table", "weather", "-o", "want.parquet")
	require.Equal(t, 0, code, stderr)
	want := parquetRows(t, "want.parquet")
	require.Equal(t, first[3], fmt.Sprint(len(want)), "rows the sync reports")

	cat, err := icesync.OpenCatalog(context.Background(), "sqlite:cat.db", "lake")
	require.NoError(t, err)
	defer cat.Close()
	tbl, err := cat.LoadTable(context.Background(), catalog.ToIdentifier("iot", "weather"))
	require.NoError(t, err)
	require.Equal(t, first[1], fmt.Sprint(tbl.CurrentSnapshot().SnapshotID))
	require.Len(t, tbl.Metadata().Snapshots(), 1, "the second sync committed nothing")
	require.Equal(t, want, icebergRows(t, tbl))
}

func TestSyncUsage(t *testing.T) {
	base := []string{"sync", "../../testdata/iotdb", "--table", "weather", "--catalog", "sqlite:cat.db", "--warehouse", "lake", "--to", "iot.weather"}
	drop := func(flag string) []string {
		i := slices.Index(base, flag)
		return slices.Concat(base[:i], base[i+2:])
	}
	set := func(flag, v string) []string {
		a := slices.Clone(base)
		a[slices.Index(a, flag)+1] = v
		return a
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sync", "--table", "weather", "--catalog", "sqlite:c.db", "--warehouse", "w", "--to", "a.b"}, "at least one INPUT"},
		{drop("--table"), "--table"},
		{drop("--catalog"), "--catalog"},
		{drop("--warehouse"), "--warehouse"},
		{drop("--to"), "--to"},
		{set("--catalog", "mysql://hive:3306/lake"), "want sqlite:PATH"},
		{set("--to", "weather"), "want NAMESPACE.TABLE"},
		{set("--to", "iot."), "want NAMESPACE.TABLE"},
		{append(slices.Clone(base), "https://example.com/x.tsfile"), "local paths and object-store URLs"},
	} {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, out, stderr := runCLI(c.args...)
			require.Equal(t, 2, code, stderr)
			require.Empty(t, out)
			require.Contains(t, stderr, c.msg)
			require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			_, err := os.Stat("cat.db")
			require.True(t, os.IsNotExist(err), "a usage error created the catalog")
		})
	}
}

// TestSyncFromBucket syncs IoTDB data in a bucket (versitygw, an S3
// server) and loose TsFiles in one: the table holds the rows convert reads
// from the local copy, and the snapshot summary names the sources as the
// local sync does; a second sync of the bucket finds nothing to sync.
func TestSyncFromBucket(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "backup/iotdb", sampleDataDir)
	sample, err := filepath.Abs(sampleDataDir)
	require.NoError(t, err)
	// A loose TsFile with no mods beside it, as a copy in a local folder
	// and in the bucket. (Loose files holding the same points, as the
	// sample's unsequence file does, sync with the points once, where
	// convert gives both: the sync reads its inputs as package dataset.)
	loose := t.TempDir()
	for _, f := range []string{"sequence/weather/1/0/1767225600000-1-0-0.tsfile"} {
		b, err := os.ReadFile(filepath.Join(sample, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(loose, filepath.Base(f)), b, 0o644))
		srv.Put(t, bucket, "loose/"+filepath.Base(f), b)
	}
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		name, url, local, table string
	}{
		{"datadir", "s3://" + bucket + "/backup/iotdb/", sample, "weather"},
		{"loose", "s3://" + bucket + "/loose/*.tsfile", filepath.Join(loose, "*.tsfile"), "weather"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI("convert", c.local, "--table", c.table, "-o", c.name+".parquet")
			require.Equal(t, 0, code, stderr)
			want := parquetRows(t, c.name+".parquet")
			for i, in := range []string{c.local, c.url} {
				to := fmt.Sprintf("iot.%s%d", c.name, i)
				code, out, stderr := runCLI("sync", in, "--table", c.table, "--catalog", "sqlite:cat.db", "--warehouse", "lake", "--to", to)
				require.Equal(t, 0, code, stderr)
				require.Contains(t, out, to+": created")
				cat, err := icesync.OpenCatalog(context.Background(), "sqlite:cat.db", "lake")
				require.NoError(t, err)
				tbl, err := cat.LoadTable(context.Background(), catalog.ToIdentifier("iot", fmt.Sprintf("%s%d", c.name, i)))
				require.NoError(t, err)
				require.Equal(t, want, icebergRows(t, tbl), "sync %s", in)
				cat.Close()
				code, out, stderr = runCLI("sync", in, "--table", c.table, "--catalog", "sqlite:cat.db", "--warehouse", "lake", "--to", to)
				require.Equal(t, 0, code, stderr)
				require.Contains(t, out, "nothing to sync", "a second sync of %s", in)
			}
		})
	}
}

// icebergRows reads an Iceberg table through iceberg-go's scan, its rows
// as syncRenderRows renders them, sorted.
func icebergRows(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	_, recs, err := tbl.Scan().ToArrowRecords(context.Background())
	require.NoError(t, err)
	var got []string
	for rec, err := range recs {
		require.NoError(t, err)
		got = append(got, syncRenderRows(rec)...)
		rec.Release()
	}
	slices.Sort(got)
	return got
}

// parquetRows reads a Parquet file's rows as syncRenderRows renders them,
// sorted.
func parquetRows(t *testing.T, path string) []string {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	require.NoError(t, err)
	defer f.Close()
	rd, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	require.NoError(t, err)
	rr, err := rd.GetRecordReader(context.Background(), nil, nil)
	require.NoError(t, err)
	defer rr.Release()
	var out []string
	for rr.Next() {
		out = append(out, syncRenderRows(rr.RecordBatch())...)
	}
	require.NoError(t, rr.Err())
	slices.Sort(out)
	return out
}

// syncRenderRows renders each row as "name=value|...", timestamps as
// integers in microseconds whatever their unit, and dictionary-encoded
// strings by their value.
func syncRenderRows(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for i := range out {
		var b strings.Builder
		for j, col := range rec.Columns() {
			fmt.Fprintf(&b, "%s=", rec.Schema().Field(j).Name)
			switch c := col.(type) {
			case *array.Timestamp:
				if c.IsNull(i) {
					b.WriteString("null")
				} else {
					us := int64(c.Value(i))
					switch c.DataType().(*arrow.TimestampType).Unit {
					case arrow.Second:
						us *= 1e6
					case arrow.Millisecond:
						us *= 1e3
					case arrow.Nanosecond:
						us /= 1e3
					}
					fmt.Fprint(&b, us)
				}
			default:
				if col.IsNull(i) {
					b.WriteString("null")
				} else {
					b.WriteString(col.ValueStr(i))
				}
			}
			b.WriteByte('|')
		}
		out[i] = b.String()
	}
	return out
}
