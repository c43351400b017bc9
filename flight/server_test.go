package flight

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
	"github.com/tsarrow/tsarrow/tsfile"
)

// testRoot writes three files of the weather table (one in a
// subdirectory) and returns the root and the files in path order.
func testRoot(t testing.TB) (string, []string) {
	root := t.TempDir()
	a := writeTestFile(t, root, "a.tsfile", 6, 500, 1)
	b := writeTestFile(t, root, "b.tsfile", 3, 900, 2)
	c := writeTestFile(t, root, "sub/c.tsfile", 4, 300, 3)
	return root, []string{a, b, c}
}

func getInfo(t testing.TB, c arrowflight.Client, d *arrowflight.FlightDescriptor) *arrowflight.FlightInfo {
	t.Helper()
	fi, err := c.GetFlightInfo(context.Background(), d)
	require.NoError(t, err)
	return fi
}

func pathDesc(p ...string) *arrowflight.FlightDescriptor {
	return &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: p}
}

func cmdDesc(t testing.TB, q any) *arrowflight.FlightDescriptor {
	b, err := json.Marshal(q)
	require.NoError(t, err)
	return &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: b}
}

func TestListFlights(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	stream, err := c.ListFlights(context.Background(), &arrowflight.Criteria{})
	require.NoError(t, err)
	var got [][]string
	records := map[string]int64{}
	for {
		fi, err := stream.Recv()
		if err != nil {
			require.ErrorIs(t, err, errEOF(err))
			break
		}
		got = append(got, fi.FlightDescriptor.Path)
		records[filepath.Join(fi.FlightDescriptor.Path...)] = fi.TotalRecords
		// Every listed flight reads back in full.
		rows := readFlight(t, context.Background(), c, fi)
		assert.Equal(t, fi.TotalRecords, int64(len(rows)), "%v", fi.FlightDescriptor.Path)
	}
	assert.Equal(t, [][]string{{"weather"}, {"a.tsfile", "weather"}, {"b.tsfile", "weather"}, {"sub/c.tsfile", "weather"}}, got)
	assert.Equal(t, int64(6*500+3*900+4*300), records["weather"])
	assert.Equal(t, int64(len(localRows(t, nil, "weather", files[2]))), records[filepath.Join("sub/c.tsfile", "weather")])
}

// errEOF returns io.EOF for a stream's normal end, so that the assertion
// above reads as what it checks.
func errEOF(err error) error {
	if status.Code(err) == codes.Unknown || err.Error() == "EOF" {
		return err
	}
	return nil
}

func TestPartitionsMatchInProcess(t *testing.T) {
	root, files := testRoot(t)
	// A small partition size cuts every file into device ranges.
	srv := startServer(t, Options{Root: root, PartitionBytes: 40 << 10})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	require.Greater(t, len(fi.Endpoint), len(files), "expected more endpoints than files")
	assert.True(t, fi.Ordered)

	schema, err := arrowflight.DeserializeSchema(fi.Schema, memory.DefaultAllocator)
	require.NoError(t, err)
	f0, err := tsfile.OpenFile(files[0], nil)
	require.NoError(t, err)
	want0, err := arrowconv.TableArrowSchema(f0, "weather", nil)
	require.NoError(t, err)
	f0.Close()
	assert.True(t, want0.Equal(schema), "flight schema %v, in-process %v", schema, want0)

	var union []string
	for _, ep := range fi.Endpoint {
		var meta endpointMeta
		require.NoError(t, json.Unmarshal(ep.AppMetadata, &meta))
		require.Len(t, meta.Parts, 1)
		p := meta.Parts[0]
		got, gotSchema := doGet(t, context.Background(), c, ep)
		assert.True(t, want0.Equal(gotSchema))
		// The same device range read in-process.
		path := filepath.Join(root, filepath.FromSlash(p.File))
		f, err := tsfile.OpenFile(path, nil)
		require.NoError(t, err)
		devs, err := f.Devices("weather")
		require.NoError(t, err)
		f.Close()
		want := localRows(t, &arrowconv.Options{Devices: devs[p.Lo:p.Hi]}, "weather", path)
		require.Equal(t, want, got, "endpoint %+v", p)
		assert.Equal(t, meta.Rows, int64(len(got)))
		union = append(union, got...)
	}
	assert.Equal(t, localRows(t, nil, "weather", files...), union)
	assert.Equal(t, fi.TotalRecords, int64(len(union)))
	assert.Positive(t, fi.TotalBytes)
}

func TestQueryCommand(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, PartitionBytes: 40 << 10})
	c := dial(t, srv.addr)
	start, end := int64(1_700_000_100_000), int64(1_700_000_250_000)
	cases := []struct {
		name  string
		q     Query
		local arrowconv.Options
		files []string
	}{
		// In schema order, as arrowconv gives them (TestColumnsOrder checks others).
		{"columns", Query{Table: "weather", Columns: []string{"region", "temp"}},
			arrowconv.Options{Columns: []string{"region", "temp"}}, files},
		{"time integers", Query{Table: "weather", Start: Int(start), End: Int(end)},
			arrowconv.Options{Time: &arrowconv.TimeRange{Start: start, End: end}}, files},
		{"time strings", Query{Table: "weather", Start: Time("2023-11-14T22:15:00Z"), End: Time("2023-11-14T22:16:40.5Z")},
			arrowconv.Options{Time: &arrowconv.TimeRange{Start: 1700000100000, End: 1700000200500}}, files},
		{"where", Query{Table: "weather", Where: map[string]string{"region": "south"}},
			arrowconv.Options{Where: map[string]string{"region": "south"}}, files},
		{"files", Query{Table: "weather", Files: []string{"sub/c.tsfile", "a.tsfile"}, Columns: []string{"label"}},
			arrowconv.Options{Columns: []string{"label"}}, []string{files[2], files[0]}},
		{"everything", Query{Table: "weather", Files: []string{"b.tsfile"}, Columns: []string{"count"},
			Start: Int(start), Where: map[string]string{"device": "d001"}},
			arrowconv.Options{Columns: []string{"count"}, Time: &arrowconv.TimeRange{Start: start, End: 1<<63 - 1},
				Where: map[string]string{"device": "d001"}}, files[1:2]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fi := getInfo(t, c, cmdDesc(t, tc.q))
			got := readFlight(t, context.Background(), c, fi)
			want := localRows(t, &tc.local, "weather", tc.files...)
			require.NotEmpty(t, want)
			assert.Equal(t, want, got)
			// Estimates are within a factor of two of the truth.
			assert.InDelta(t, float64(len(want)), float64(fi.TotalRecords), float64(len(want)))
		})
	}

	t.Run("limit", func(t *testing.T) {
		fi := getInfo(t, c, cmdDesc(t, Query{Table: "weather", Limit: 4321}))
		require.Len(t, fi.Endpoint, 1, "a limited flight is one stream")
		got := readFlight(t, context.Background(), c, fi)
		assert.Equal(t, localRows(t, nil, "weather", files...)[:4321], got)
		assert.Equal(t, int64(4321), fi.TotalRecords)
	})

	for _, tc := range []struct {
		name string
		desc *arrowflight.FlightDescriptor
		code codes.Code
	}{
		{"unknown field", &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte(`{"table":"weather","colums":["x"]}`)}, codes.InvalidArgument},
		{"not json", &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte(`SELECT *`)}, codes.InvalidArgument},
		{"no table", cmdDesc(t, Query{}), codes.InvalidArgument},
		{"unknown column", cmdDesc(t, Query{Table: "weather", Columns: []string{"nope"}}), codes.InvalidArgument},
		{"filter on a field", cmdDesc(t, Query{Table: "weather", Where: map[string]string{"temp": "1"}}), codes.InvalidArgument},
		{"bad time", cmdDesc(t, map[string]any{"table": "weather", "start": "yesterday"}), codes.InvalidArgument},
		{"reversed time", cmdDesc(t, Query{Table: "weather", Start: Int(10), End: Int(5)}), codes.InvalidArgument},
		{"bad compression", cmdDesc(t, Query{Table: "weather", Compression: "brotli"}), codes.InvalidArgument},
		{"unknown table", pathDesc("nope"), codes.NotFound},
		{"unknown file", pathDesc("zz.tsfile", "weather"), codes.NotFound},
		{"long path", pathDesc("a", "b", "c"), codes.InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.GetFlightInfo(context.Background(), tc.desc)
			require.Error(t, err)
			assert.Equal(t, tc.code, status.Code(err), "%v", err)
		})
	}
}

func TestGetSchema(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	res, err := c.GetSchema(context.Background(), cmdDesc(t, Query{Table: "weather", Columns: []string{"label", "region"}}))
	require.NoError(t, err)
	s, err := arrowflight.DeserializeSchema(res.Schema, memory.DefaultAllocator)
	require.NoError(t, err)
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"time", "label", "region"}, names, "the order asked")
	_, err = c.GetSchema(context.Background(), pathDesc("nope"))
	assert.Equal(t, codes.NotFound, status.Code(err))
}

func TestCompression(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, Compression: "lz4"})
	c := dial(t, srv.addr)
	want := localRows(t, nil, "weather", files...)
	for _, comp := range []string{"", "zstd", "lz4", "none"} {
		fi := getInfo(t, c, cmdDesc(t, Query{Table: "weather", Compression: comp}))
		assert.Equal(t, want, readFlight(t, context.Background(), c, fi), comp)
	}
	// The body really is compressed: a zstd stream is smaller than a
	// plain one.
	size := func(comp string) int {
		fi := getInfo(t, c, cmdDesc(t, Query{Table: "weather", Files: []string{"a.tsfile"}, Compression: comp}))
		s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
		require.NoError(t, err)
		n := 0
		for {
			d, err := s.Recv()
			if err != nil {
				break
			}
			n += len(d.DataBody)
		}
		return n
	}
	assert.Less(t, size("zstd"), size("none")*3/4)
}

func TestTreeModel(t *testing.T) {
	src := filepath.Join("..", "..", "shared", "interop", "j10_tree_nonaligned.tsfile")
	if _, err := os.Stat(src); err != nil {
		need.Skipf(t, "interop files not present")
	}
	root := t.TempDir()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "tree.tsfile"), b, 0o644))
	srv := startServer(t, Options{Root: root, PartitionBytes: 1})
	c := dial(t, srv.addr)
	f, err := tsfile.OpenFile(filepath.Join(root, "tree.tsfile"), nil)
	require.NoError(t, err)
	tables := f.Tables()
	f.Close()
	require.NotEmpty(t, tables)
	for _, table := range tables {
		fi := getInfo(t, c, pathDesc(table))
		var meta flightMeta
		require.NoError(t, json.Unmarshal(fi.AppMetadata, &meta))
		assert.True(t, meta.Tree)
		got := readFlight(t, context.Background(), c, fi)
		assert.Equal(t, localRows(t, nil, table, filepath.Join(root, "tree.tsfile")), got)
	}
}

func TestSchemaMismatchSkipped(t *testing.T) {
	root, files := testRoot(t)
	// A file of the same table name with other columns.
	schema := arrowconvSchemaWithout(t, "label")
	writeCustom(t, filepath.Join(root, "z.tsfile"), schema)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	var meta flightMeta
	require.NoError(t, json.Unmarshal(fi.AppMetadata, &meta))
	assert.Equal(t, 3, meta.Files)
	assert.Contains(t, meta.Skipped, "z.tsfile")
	assert.Equal(t, localRows(t, nil, "weather", files...), readFlight(t, context.Background(), c, fi))
	// Named together, the mismatch is an error.
	_, err := c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "weather", Files: []string{"a.tsfile", "z.tsfile"}}))
	assert.Equal(t, codes.InvalidArgument, status.Code(err))
	// Projected onto common columns, they agree.
	fi = getInfo(t, c, cmdDesc(t, Query{Table: "weather", Columns: []string{"temp"}}))
	require.NoError(t, json.Unmarshal(fi.AppMetadata, &meta))
	assert.Equal(t, 4, meta.Files)
}

func arrowconvSchemaWithout(t testing.TB, drop string) []string {
	var keep []string
	for _, f := range testTable().Fields() {
		if f.Name != drop {
			keep = append(keep, f.Name)
		}
	}
	return keep
}

// writeCustom writes a weather file holding only the named columns.
func writeCustom(t testing.TB, path string, cols []string) {
	dir := t.TempDir()
	full := writeTestFile(t, dir, "x.tsfile", 2, 50, 9)
	f, err := tsfile.OpenFile(full, nil)
	require.NoError(t, err)
	defer f.Close()
	r, err := arrowconv.NewTableReader(f, "weather", &arrowconv.Options{Columns: cols})
	require.NoError(t, err)
	defer r.Release()
	out, err := os.Create(path)
	require.NoError(t, err)
	defer out.Close()
	_, err = fromarrow.WriteTsFile(out, r, nil)
	require.NoError(t, err)
}

func TestRescan(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("a.tsfile", "weather"))

	// A broken file is reported, not fatal; a new file appears.
	require.NoError(t, os.WriteFile(filepath.Join(root, "broken.tsfile"), []byte("TsFile\x04 not really"), 0o644))
	writeTestFile(t, root, "new.tsfile", 1, 10, 4)
	// The file a ticket was planned on changes.
	time.Sleep(10 * time.Millisecond)
	writeTestFile(t, root, "a.tsfile", 2, 10, 5)
	require.NoError(t, srv.Rescan(context.Background()))
	assert.Contains(t, srv.Problems(), "broken.tsfile")
	assert.Contains(t, srv.log.String(), "broken.tsfile")
	getInfo(t, c, pathDesc("new.tsfile", "weather"))
	_, err := c.GetFlightInfo(context.Background(), pathDesc("broken.tsfile", "weather"))
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)

	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s.Recv()
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)

	// A file removed disappears from the dataset.
	require.NoError(t, os.Remove(files[1]))
	require.NoError(t, srv.Rescan(context.Background()))
	_, err = c.GetFlightInfo(context.Background(), pathDesc("b.tsfile", "weather"))
	assert.Equal(t, codes.NotFound, status.Code(err))
}

func TestDoPut(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, AllowPut: true})
	c := dial(t, srv.addr)

	put := func(desc *arrowflight.FlightDescriptor, src string) (*PutResult, error) {
		f, err := tsfile.OpenFile(src, nil)
		require.NoError(t, err)
		defer f.Close()
		r, err := arrowconv.NewTableReader(f, "weather", nil)
		require.NoError(t, err)
		defer r.Release()
		stream, err := c.DoPut(context.Background())
		require.NoError(t, err)
		w := arrowflight.NewRecordWriter(stream, ipc.WithSchema(r.Schema()))
		w.SetFlightDescriptor(desc)
		// The server may refuse before reading everything; its status
		// then comes from Recv.
		for r.Next() {
			if w.Write(r.RecordBatch()) != nil {
				break
			}
		}
		w.Close()
		stream.CloseSend()
		res, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		var pr PutResult
		require.NoError(t, json.Unmarshal(res.AppMetadata, &pr))
		return &pr, nil
	}
	res, err := put(pathDesc("in/copy.tsfile"), files[0])
	require.NoError(t, err)
	assert.Equal(t, "weather", res.Table)
	assert.Equal(t, int64(6*500), res.Rows)
	fi := getInfo(t, c, pathDesc("in/copy.tsfile", "weather"))
	assert.Equal(t, localRows(t, nil, "weather", files[0]), readFlight(t, context.Background(), c, fi))

	_, err = put(pathDesc("in/copy.tsfile"), files[1])
	assert.Equal(t, codes.AlreadyExists, status.Code(err), "%v", err)
	_, err = put(pathDesc("../escape.tsfile"), files[1])
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	_, err = put(pathDesc("/tmp/abs.tsfile"), files[1])
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	_, err = put(pathDesc("x.parquet"), files[1])
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	// A writer error a setting would settle names the command's JSON
	// field, not the Go option behind it: with region alone as the TAG,
	// two stations' rows share a device and a time.
	_, err = put(&arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD,
		Cmd: []byte(`{"file":"in/dup.tsfile","tags":["region"]}`)}, files[1])
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), `command's "tags"`)
	assert.NotContains(t, status.Convert(err).Message(), "Options.")
	// No temporary files are left behind.
	ents, err := os.ReadDir(filepath.Join(root, "in"))
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"copy.tsfile"}, names)

	off := startServer(t, Options{Root: root})
	c = dial(t, off.addr)
	_, err = put(pathDesc("other.tsfile"), files[1])
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
}

func TestReadersAreIndependent(t *testing.T) {
	// The union of endpoints equals one in-process scan in order, also
	// when read out of order and concurrently.
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, PartitionBytes: 30 << 10})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	parts := make([][]string, len(fi.Endpoint))
	idx := make([]int, len(fi.Endpoint))
	for i := range idx {
		idx[i] = len(idx) - 1 - i
	}
	for _, i := range idx {
		parts[i], _ = doGet(t, context.Background(), c, fi.Endpoint[i])
	}
	assert.Equal(t, localRows(t, nil, "weather", files...), slices.Concat(parts...))
}

var _ = array.NewRecordReader
