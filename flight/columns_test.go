package flight

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func fieldNames(s *arrow.Schema) []string {
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	return names
}

// TestColumnsOrder checks that a query's columns come out as asked: time,
// then exactly the named columns in the order given, in the FlightInfo
// schema, GetSchema and every DoGet batch, with the values of the named
// column under each name.
func TestColumnsOrder(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, PartitionBytes: 40 << 10})
	c := dial(t, srv.addr)
	all := []string{"time", "region", "device", "temp", "count", "ok", "label"}
	for _, tc := range []struct {
		name    string
		columns []string // nil: the field is absent
		raw     string   // the command, when the Go Query cannot say it
		want    []string
	}{
		{"absent", nil, `{"table":"weather"}`, all},
		{"null", nil, `{"table":"weather","columns":null}`, all},
		{"empty", []string{}, `{"table":"weather","columns":[]}`, []string{"time"}},
		{"reversed", []string{"label", "temp", "region"}, "", []string{"time", "label", "temp", "region"}},
		{"field before tag", []string{"count", "device"}, "", []string{"time", "count", "device"}},
		{"time named first", []string{"time", "ok", "temp"}, "", []string{"time", "ok", "temp"}},
		{"schema order", []string{"region", "temp"}, "", []string{"time", "region", "temp"}},
		{"only a tag", []string{"device"}, "", []string{"time", "device"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desc := &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte(tc.raw)}
			if tc.raw == "" {
				desc = cmdDesc(t, Query{Table: "weather", Columns: tc.columns})
			}
			fi := getInfo(t, c, desc)
			schema, err := arrowflight.DeserializeSchema(fi.Schema, memory.DefaultAllocator)
			require.NoError(t, err)
			assert.Equal(t, tc.want, fieldNames(schema))
			res, err := c.GetSchema(context.Background(), desc)
			require.NoError(t, err)
			gs, err := arrowflight.DeserializeSchema(res.Schema, memory.DefaultAllocator)
			require.NoError(t, err)
			assert.True(t, schema.Equal(gs), "GetSchema %v, FlightInfo %v", gs, schema)

			// Every row equals the full row's cells picked in the order asked.
			full := localRows(t, nil, "weather", files...)
			require.Greater(t, len(fi.Endpoint), 1)
			var got []string
			for _, ep := range fi.Endpoint {
				rows, s := doGet(t, context.Background(), c, ep)
				assert.True(t, schema.Equal(s), "DoGet schema %v, FlightInfo %v", s, schema)
				got = append(got, rows...)
			}
			require.Len(t, got, len(full))
			for i := range full {
				require.Equal(t, pick(full[i], all, tc.want), got[i], "row %d", i)
			}
		})
	}
}

// pick takes the cells of a '|'-joined row with columns cols in the order
// of want.
func pick(row string, cols, want []string) string {
	cells := splitRow(row)
	out := ""
	for i, w := range want {
		for j, c := range cols {
			if c == w {
				if i > 0 {
					out += "|"
				}
				out += cells[j]
			}
		}
	}
	return out
}

func splitRow(row string) []string {
	var out []string
	start := 0
	for i := 0; i < len(row); i++ {
		if row[i] == '|' {
			out = append(out, row[start:i])
			start = i + 1
		}
	}
	return append(out, row[start:])
}

func TestColumnsRefused(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	for _, tc := range []struct {
		name    string
		columns []string
		want    []string // in the message
	}{
		{"duplicate", []string{"temp", "label", "temp"}, []string{`"temp"`, "twice"}},
		{"duplicate tag", []string{"region", "region"}, []string{`"region"`, "twice"}},
		{"time twice", []string{"time", "time"}, []string{`"time"`}},
		{"time not first", []string{"temp", "time"}, []string{`"time"`, "first"}},
		{"unknown", []string{"temp", "humidity"}, []string{`"humidity"`, `"time", "region", "device", "temp", "count", "ok", "label"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, desc := range []*arrowflight.FlightDescriptor{
				cmdDesc(t, Query{Table: "weather", Columns: tc.columns}),
				cmdDesc(t, Query{Table: "weather", Files: []string{"b.tsfile"}, Columns: tc.columns}),
			} {
				_, err := c.GetFlightInfo(context.Background(), desc)
				require.Error(t, err)
				assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
				for _, w := range tc.want {
					assert.Contains(t, status.Convert(err).Message(), w)
				}
				_, err = c.GetSchema(context.Background(), desc)
				assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			}
		})
	}
}

// TestNoMatch checks the flight of a query matching no row: no endpoints,
// zero records and bytes, and the schema the rows would have had, so that
// a client can build an empty table from it.
func TestNoMatch(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	for _, tc := range []struct {
		name string
		q    Query
		want []string
	}{
		{"where", Query{Table: "weather", Where: map[string]string{"region": "nowhere"}}, []string{"time", "region", "device", "temp", "count", "ok", "label"}},
		{"where, columns", Query{Table: "weather", Columns: []string{"label", "device"}, Where: map[string]string{"device": "d999"}}, []string{"time", "label", "device"}},
		{"time", Query{Table: "weather", Columns: []string{"temp"}, Start: Int(0), End: Int(1000)}, []string{"time", "temp"}},
		{"one file, limit", Query{Table: "weather", Files: []string{"b.tsfile"}, Where: map[string]string{"region": "nowhere"}, Limit: 5}, []string{"time", "region", "device", "temp", "count", "ok", "label"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi := getInfo(t, c, cmdDesc(t, tc.q))
			assert.Empty(t, fi.Endpoint)
			assert.Zero(t, fi.TotalRecords)
			assert.Zero(t, fi.TotalBytes)
			schema, err := arrowflight.DeserializeSchema(fi.Schema, memory.DefaultAllocator)
			require.NoError(t, err)
			assert.Equal(t, tc.want, fieldNames(schema))
			full := getInfo(t, c, cmdDesc(t, Query{Table: "weather", Columns: tc.q.Columns}))
			fs, err := arrowflight.DeserializeSchema(full.Schema, memory.DefaultAllocator)
			require.NoError(t, err)
			assert.True(t, fs.Equal(schema), "no-match schema %v, matching schema %v", schema, fs)
		})
	}
}
