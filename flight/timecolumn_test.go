package flight

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestFlightTimeColumn: a table whose schema records its time column as a
// TIME column "id" (testdata/timecolumn.tsfile) is served with the time
// column so named, in FlightInfo, GetSchema and DoGet alike; a query's
// columns, start and end name it so, a FIELD named "time" beside it is an
// ordinary column, and the time column named after another is refused.
func TestFlightTimeColumn(t *testing.T) {
	root := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "timecolumn.tsfile"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "plant.tsfile"), b, 0o644))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)

	const t0 = "2023-11-14T22:13:2" // timeColumnStart is 2023-11-14T22:13:20Z
	for _, tc := range []struct {
		name   string
		q      Query
		fields []string
		rows   []string
	}{
		{"whole table, path descriptor", Query{Table: "plant"}, []string{"id", "region", "station", "temp", "time"}, nil},
		{"the FIELD time, a time range", Query{Table: "plant", Columns: []string{"time"}, Start: Int(1_700_000_001_000), End: Int(1_700_000_002_000), Where: map[string]string{"station": "s2"}},
			[]string{"id", "time"}, []string{t0 + "1Z|101", t0 + "2Z|102"}},
		{"the time column named first", Query{Table: "plant", Columns: []string{"id", "station", "temp"}, Where: map[string]string{"region": "south"}, Limit: 2},
			[]string{"id", "station", "temp"}, []string{t0 + "0Z|s1|20", t0 + "1Z|s1|21"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desc := cmdDesc(t, tc.q)
			if tc.rows == nil {
				desc = pathDesc("plant.tsfile", "plant")
			}
			fi := getInfo(t, c, desc)
			schema, err := arrowflight.DeserializeSchema(fi.Schema, memory.DefaultAllocator)
			require.NoError(t, err)
			require.Equal(t, tc.fields, fieldNames(schema))
			res, err := c.GetSchema(context.Background(), desc)
			require.NoError(t, err)
			gs, err := arrowflight.DeserializeSchema(res.Schema, memory.DefaultAllocator)
			require.NoError(t, err)
			require.True(t, schema.Equal(gs))
			var rows []string
			for _, ep := range fi.Endpoint {
				r, s := doGet(t, context.Background(), c, ep)
				require.True(t, schema.Equal(s), "DoGet schema %v", s)
				rows = append(rows, r...)
			}
			if tc.rows == nil {
				require.Len(t, rows, 15)
				require.Equal(t, t0+"0Z|north|s1|0|0", rows[0])
				require.Equal(t, t0+"4Z|south|s1|24|204", rows[14])
				return
			}
			require.Equal(t, tc.rows, rows)
		})
	}

	for _, tc := range []struct {
		name    string
		columns []string
		want    []string
	}{
		{"time column not first", []string{"temp", "id"}, []string{`"id"`, "first"}},
		{"unknown", []string{"nope"}, []string{`"nope"`, `"id", "region", "station", "temp", "time"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "plant", Columns: tc.columns}))
			require.Error(t, err)
			assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			for _, w := range tc.want {
				assert.Contains(t, status.Convert(err).Message(), w)
			}
		})
	}
}

// TestFlightDatasetTimeColumn: an IoTDB-style data directory whose file
// records a TIME column "id" is served with the time column "id": a query
// names it first, filters the FIELD "time" beside it, and is refused when
// it names the time column after another.
func TestFlightDatasetTimeColumn(t *testing.T) {
	root := t.TempDir()
	folder := filepath.Join(root, "sequence", "root.db", "1", "0")
	require.NoError(t, os.MkdirAll(folder, 0o755))
	b, err := os.ReadFile(filepath.Join("..", "testdata", "timecolumn.tsfile"))
	require.NoError(t, err)
	path := filepath.Join(folder, dataset.Name{Time: 1, Version: 1}.String())
	require.NoError(t, os.WriteFile(path, b, 0o644))
	res := &dataset.Resource{IndexType: dataset.IndexArray}
	for _, tags := range [][]string{{"north", "s1"}, {"north", "s2"}, {"south", "s1"}} {
		res.Devices = append(res.Devices, dataset.DeviceTimes{Device: tsfile.NewDeviceID("plant", tags[0], tags[1]), Start: 1_700_000_000_000, End: 1_700_000_004_000})
	}
	res.Devices = append(res.Devices, dataset.DeviceTimes{Device: tsfile.NewDeviceID("py", "d1"), Start: 1, End: 3})
	rb, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+dataset.ResourceSuffix, rb, 0o644))

	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	require.Equal(t, []string{"."}, srv.DataDirs())
	desc := cmdDesc(t, Query{Table: "plant", Columns: []string{"id", "time"}, Where: map[string]string{"station": "s2"}, Start: Int(1_700_000_003_000)})
	fi := getInfo(t, c, desc)
	schema, err := arrowflight.DeserializeSchema(fi.Schema, memory.DefaultAllocator)
	require.NoError(t, err)
	require.Equal(t, []string{"id", "time"}, fieldNames(schema))
	require.Equal(t, []string{"2023-11-14T22:13:23Z|103", "2023-11-14T22:13:24Z|104"}, readFlight(t, context.Background(), c, fi))

	_, err = c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "plant", Columns: []string{"time", "id"}}))
	require.Error(t, err)
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), `the time column "id" named at position 2`)
}
