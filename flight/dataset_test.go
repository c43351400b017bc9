package flight

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// These tests serve IoTDB data directories laid out as the server writes
// them (see dataset/layout_builder_test.go and docs/iotdb-rules.md):
// {sequence,unsequence}/{database}/{region}/{partition}/{time}-{version}-0-0.tsfile,
// each with a .resource and optionally a .mods2.

// dsTable is the table-model table of the test files: one TAG, one FIELD.
var dsTable = tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
	{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
	{Name: "s1", DataType: tsfile.Int64, Category: tsfile.Field},
}}

// dsPoint is one row of table t (device t.<id>), or with tree set one
// point of the tree-model series root.db.<id>.s1.
type dsPoint struct {
	tree bool
	id   string
	time int64
	s1   int64
}

// writeIoTDBFile writes one data file of time partition 0 of the data
// directory dir and its .resource, and returns the data file's path.
func writeIoTDBFile(t *testing.T, dir, space string, name dataset.Name, points ...dsPoint) string {
	t.Helper()
	return writeIoTDBFileIn(t, dir, space, "0", name, points...)
}

// writeIoTDBFileIn writes a data file of the time partition part.
func writeIoTDBFileIn(t *testing.T, dir, space, part string, name dataset.Name, points ...dsPoint) string {
	t.Helper()
	folder := filepath.Join(dir, space, "root.db", "1", part)
	require.NoError(t, os.MkdirAll(folder, 0o755))
	path := filepath.Join(folder, name.String())

	type group struct {
		dev   tsfile.DeviceID
		tree  bool
		times []int64
		vals  []int64
	}
	var groups []*group
	byDev := map[string]*group{}
	for _, p := range points {
		dev := tsfile.NewDeviceID("t", p.id)
		if p.tree {
			dev = tsfile.ParseTreePath("root.db." + p.id)
		}
		g := byDev[dev.String()]
		if g == nil {
			g = &group{dev: dev, tree: p.tree}
			byDev[dev.String()] = g
			groups = append(groups, g)
		}
		g.times = append(g.times, p.time)
		g.vals = append(g.vals, p.s1)
	}
	var out bytes.Buffer
	w, err := tsfile.NewWriter(&out, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(dsTable))
	res := &dataset.Resource{IndexType: dataset.IndexArray}
	for _, g := range groups {
		vals := tsfile.Values{Type: tsfile.Int64, Int64s: g.vals}
		if g.tree {
			require.NoError(t, w.WriteNonAligned(g.dev, []tsfile.NonAlignedSeries{{
				SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: g.times, Values: vals}}))
		} else {
			vals.Null = make([]bool, len(g.vals))
			require.NoError(t, w.WriteAligned(g.dev, g.times, []tsfile.AlignedColumn{{
				SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Values: vals}}))
		}
		res.Devices = append(res.Devices, dataset.DeviceTimes{Device: g.dev, Start: slices.Min(g.times), End: slices.Max(g.times)})
	}
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	b, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+dataset.ResourceSuffix, b, 0o644))
	return path
}

// appendMods appends deletions to the .mods2 of a data file, as a DELETE
// on a running IoTDB 2.x does.
func appendMods(t *testing.T, data string, ds ...dataset.Deletion) {
	t.Helper()
	b, err := dataset.AppendModsV2(nil, ds...)
	require.NoError(t, err)
	f, err := os.OpenFile(data+dataset.ModsV2Suffix, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, errors.Join(err, f.Close()))
}

// deleteT deletes every device's rows of table t in [start, end].
func deleteT(start, end int64) dataset.Deletion {
	return dataset.Deletion{Kind: dataset.TableDeletion, Table: "t", Start: start, End: end}
}

// buildDataDir lays out a data directory under dir where a point is
// overwritten by an unsequence file and another deleted:
//
//	sequence 1-1:   t.a 1000=10 2000=20 3000=30, t.b 1000=100, root.db.d1.s1 1000=7
//	unsequence 5-2: t.a 2000=200
//	mods of 1-1:    t, 3000..3000
//
// so that table t reads as a 1000=10, a 2000=200, b 1000=100. It returns
// the paths of the two data files.
func buildDataDir(t *testing.T, dir string) (seq, unseq string) {
	t.Helper()
	seq = writeIoTDBFile(t, dir, "sequence", dataset.Name{Time: 1, Version: 1},
		dsPoint{id: "a", time: 1000, s1: 10}, dsPoint{id: "a", time: 2000, s1: 20}, dsPoint{id: "a", time: 3000, s1: 30},
		dsPoint{id: "b", time: 1000, s1: 100},
		dsPoint{tree: true, id: "d1", time: 1000, s1: 7})
	unseq = writeIoTDBFile(t, dir, "unsequence", dataset.Name{Time: 5, Version: 2},
		dsPoint{id: "a", time: 2000, s1: 200})
	appendMods(t, seq, deleteT(3000, 3000))
	return seq, unseq
}

// tRows reads a flight of table t as "id@time=s1" rows, sorted, whatever
// the order of its columns.
func tRows(t *testing.T, c arrowflight.Client, fi *arrowflight.FlightInfo) []string {
	t.Helper()
	var out []string
	for _, ep := range fi.Endpoint {
		s, err := c.DoGet(context.Background(), ep.Ticket)
		require.NoError(t, err)
		r, err := arrowflight.NewRecordReader(s)
		require.NoError(t, err)
		for r.Next() {
			rec := r.RecordBatch()
			col := func(name string) []int {
				return rec.Schema().FieldIndices(name)
			}
			ti, ii, si := col("time"), col("id"), col("s1")
			require.Len(t, ti, 1)
			for i := 0; i < int(rec.NumRows()); i++ {
				id := "?"
				if len(ii) == 1 {
					id = cell(rec.Column(ii[0]), i)
				}
				s1 := "?"
				if len(si) == 1 {
					s1 = cell(rec.Column(si[0]), i)
				}
				tm := rec.Column(ti[0]).(*array.Timestamp).Value(i)
				out = append(out, fmt.Sprintf("%s@%d=%s", id, int64(tm), s1))
			}
		}
		require.NoError(t, r.Err())
		r.Release()
	}
	slices.Sort(out)
	return out
}

// listed returns the path descriptors ListFlights sends.
func listed(t *testing.T, c arrowflight.Client) []string {
	t.Helper()
	stream, err := c.ListFlights(context.Background(), &arrowflight.Criteria{})
	require.NoError(t, err)
	var got []string
	for {
		fi, err := stream.Recv()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		got = append(got, strings.Join(fi.FlightDescriptor.Path, " | "))
	}
	return got
}

func TestDatasetRootServesResolvedTables(t *testing.T) {
	root := t.TempDir()
	buildDataDir(t, root)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)

	assert.Equal(t, []string{"."}, srv.DataDirs())
	assert.Empty(t, srv.Files(), "files of a data directory are not served one by one")
	assert.Equal(t, []string{"root.db", "t"}, listed(t, c))

	fi := getInfo(t, c, pathDesc("t"))
	require.Len(t, fi.Endpoint, 1)
	var meta flightMeta
	require.NoError(t, json.Unmarshal(fi.AppMetadata, &meta))
	assert.Equal(t, ".", meta.DataDir)
	assert.Equal(t, int64(-1), fi.TotalRecords)
	assert.Equal(t, []string{"a@1000=10", "a@2000=200", "b@1000=100"}, tRows(t, c, fi))
	// "." names the root's data directory too.
	assert.Equal(t, []string{"a@1000=10", "a@2000=200", "b@1000=100"}, tRows(t, c, getInfo(t, c, pathDesc(".", "t"))))

	// A file of the directory on its own is refused with the way to ask.
	_, err := c.GetFlightInfo(context.Background(), pathDesc("sequence/root.db/1/0/1-1-0-0.tsfile", "t"))
	require.Error(t, err)
	assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), `ask for ["t"]`)
}

func TestDatasetBesidePlainFiles(t *testing.T) {
	root := t.TempDir()
	plain := writeTestFile(t, root, "plain/x.tsfile", 2, 20, 1)
	buildDataDir(t, filepath.Join(root, "iotdb", "data"))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)

	assert.Equal(t, []string{"plain/x.tsfile"}, srv.Files())
	assert.Equal(t, []string{"iotdb/data"}, srv.DataDirs())
	assert.Equal(t, []string{"weather", "plain/x.tsfile | weather", "iotdb/data | root.db", "iotdb/data | t"}, listed(t, c))

	// The plain files work as before.
	assert.Equal(t, localRows(t, nil, "weather", plain), readFlight(t, context.Background(), c, getInfo(t, c, pathDesc("weather"))))
	assert.Equal(t, localRows(t, nil, "weather", plain), readFlight(t, context.Background(), c, getInfo(t, c, pathDesc("plain/x.tsfile", "weather"))))
	// [t] across the root reads plain files only, which have no table t.
	_, err := c.GetFlightInfo(context.Background(), pathDesc("t"))
	assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)

	fi := getInfo(t, c, pathDesc("iotdb/data", "t"))
	assert.Equal(t, []string{"a@1000=10", "a@2000=200", "b@1000=100"}, tRows(t, c, fi))

	// A data directory is read alone.
	_, err = c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "t", Files: []string{"iotdb/data", "plain/x.tsfile"}}))
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	_, err = c.GetFlightInfo(context.Background(), pathDesc("iotdb/data", "nosuch"))
	assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)
}

func TestDatasetPushdown(t *testing.T) {
	root := t.TempDir()
	buildDataDir(t, filepath.Join(root, "data"))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	for _, tc := range []struct {
		name string
		q    Query
		want []string
	}{
		{"columns", Query{Table: "t", Files: []string{"data"}, Columns: []string{"s1"}},
			[]string{"?@1000=10", "?@1000=100", "?@2000=200"}},
		{"time range", Query{Table: "t", Files: []string{"data"}, Start: Int(1500), End: Int(5000)},
			[]string{"a@2000=200"}},
		{"where", Query{Table: "t", Files: []string{"data"}, Where: map[string]string{"id": "b"}},
			[]string{"b@1000=100"}},
		{"deleted range only", Query{Table: "t", Files: []string{"data"}, Start: Int(2500), End: Int(3500)},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi := getInfo(t, c, cmdDesc(t, tc.q))
			assert.Equal(t, tc.want, tRows(t, c, fi))
		})
	}
	t.Run("columns in query order", func(t *testing.T) {
		fi := getInfo(t, c, cmdDesc(t, Query{Table: "t", Files: []string{"data"}, Columns: []string{"s1", "id"}}))
		rows, schema := doGet(t, context.Background(), c, fi.Endpoint[0])
		require.Equal(t, []string{"time", "s1", "id"}, fieldNames(schema))
		assert.Len(t, rows, 3)
	})
	t.Run("limit", func(t *testing.T) {
		fi := getInfo(t, c, cmdDesc(t, Query{Table: "t", Files: []string{"data"}, Limit: 2}))
		require.Len(t, fi.Endpoint, 1)
		assert.Len(t, tRows(t, c, fi), 2)
	})
	t.Run("where on a field", func(t *testing.T) {
		_, err := c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "t", Files: []string{"data"}, Where: map[string]string{"s1": "10"}}))
		assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
		assert.Contains(t, status.Convert(err).Message(), "only TAG")
	})
	t.Run("where on a tree table's device", func(t *testing.T) {
		fi := getInfo(t, c, cmdDesc(t, Query{Table: "root.db", Files: []string{"data"}, Where: map[string]string{"device": "root.db.d1"}}))
		rows, _ := doGet(t, context.Background(), c, fi.Endpoint[0])
		require.Len(t, rows, 1)
		assert.True(t, strings.HasSuffix(rows[0], "|root.db.d1|7"), "%q", rows)
	})
	t.Run("unknown column", func(t *testing.T) {
		_, err := c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "t", Files: []string{"data"}, Columns: []string{"nosuch"}}))
		assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	})
}

// TestDatasetTicketBoundToVersions checks that a ticket planned before a
// DELETE was recorded, a file was flushed, or a compaction removed a file,
// is refused with FAILED_PRECONDITION, and that planning again reads the
// new state.
func TestDatasetTicketBoundToVersions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir, seq, unseq string)
		want   []string
	}{
		{"deletion appended", func(t *testing.T, dir, seq, unseq string) {
			appendMods(t, seq, deleteT(1000, 1000))
		}, []string{"a@2000=200"}},
		// A file's mods delete from that file alone: the sequence copy the
		// unsequence one hid shows again.
		{"mods file created", func(t *testing.T, dir, seq, unseq string) {
			appendMods(t, unseq, deleteT(0, 5000))
		}, []string{"a@1000=10", "a@2000=20", "b@1000=100"}},
		{"file flushed", func(t *testing.T, dir, seq, unseq string) {
			writeIoTDBFile(t, dir, "unsequence", dataset.Name{Time: 6, Version: 3}, dsPoint{id: "b", time: 1000, s1: 111})
		}, []string{"a@1000=10", "a@2000=200", "b@1000=111"}},
		{"file compacted away", func(t *testing.T, dir, seq, unseq string) {
			for _, p := range []string{unseq, unseq + dataset.ResourceSuffix} {
				require.NoError(t, os.Remove(p))
			}
		}, []string{"a@1000=10", "a@2000=20", "b@1000=100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "data")
			seq, unseq := buildDataDir(t, dir)
			srv := startServer(t, Options{Root: root})
			c := dial(t, srv.addr)
			fi := getInfo(t, c, pathDesc("data", "t"))
			tree := getInfo(t, c, pathDesc("data", "root.db"))

			tc.change(t, dir, seq, unseq)
			for _, f := range []*arrowflight.FlightInfo{fi, tree} {
				err := redeemErr(t, c, f.Endpoint[0].Ticket)
				require.Error(t, err)
				assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
				msg := status.Convert(err).Message()
				assert.Contains(t, msg, "data directory data changed")
				assert.Contains(t, msg, "call GetFlightInfo again")
				assert.NotContains(t, msg, root, "a client sees no server path")
			}
			assert.Equal(t, tc.want, tRows(t, c, getInfo(t, c, pathDesc("data", "t"))))
		})
	}
}

// TestDatasetTicketDigestSigned checks that the digest is what DoGet
// compares: a ticket validly signed for other versions is stale, and one
// whose digest was altered is refused as forged.
func TestDatasetTicketDigestSigned(t *testing.T) {
	root := t.TempDir()
	buildDataDir(t, root)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("t"))
	tk := fi.Endpoint[0].Ticket.Ticket
	require.Equal(t, byte(ticketVersionDataset), tk[0])
	g, err := srv.sign.verify(tk)
	require.NoError(t, err)
	require.NotNil(t, g.Dataset)
	require.Len(t, g.Dataset.Versions, 64)

	other := *g
	other.Dataset = &datasetGrant{Dir: g.Dataset.Dir, Versions: strings.Repeat("0", 64)}
	signed, err := srv.sign.sign(&other)
	require.NoError(t, err)
	err = redeemErr(t, c, &arrowflight.Ticket{Ticket: signed})
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)

	forged := bytes.Replace(tk, []byte(g.Dataset.Versions), []byte(strings.Repeat("0", 64)), 1)
	err = redeemErr(t, c, &arrowflight.Ticket{Ticket: forged})
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)

	// The version byte must match the content, even under a valid MAC: a
	// data directory's grant under the file tickets' version (which an
	// older server would read as no parts, no rows), or parts under the
	// data directories' version, are refused.
	err = redeemErr(t, c, &arrowflight.Ticket{Ticket: signAs(t, srv.opts.TicketKey, ticketVersion, g)})
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	withParts := *g
	withParts.Parts = []part{{File: "sequence/root.db/1/0/1-1-0-0.tsfile", Lo: 0, Hi: 1}}
	err = redeemErr(t, c, &arrowflight.Ticket{Ticket: signAs(t, srv.opts.TicketKey, ticketVersionDataset, &withParts)})
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	// And the server's own signing gives each its version.
	assert.NoError(t, redeemErr(t, c, &arrowflight.Ticket{Ticket: signAs(t, srv.opts.TicketKey, ticketVersionDataset, g)}))
}

// signAs signs a grant under key with the given version byte.
func signAs(t *testing.T, key []byte, version byte, g *grant) []byte {
	t.Helper()
	body, err := json.Marshal(g)
	require.NoError(t, err)
	out := append([]byte{version}, body...)
	m := hmac.New(sha256.New, key)
	m.Write(out)
	return m.Sum(out)
}

func TestDatasetRescan(t *testing.T) {
	root := t.TempDir()
	buildDataDir(t, filepath.Join(root, "a"))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	assert.Equal(t, []string{"a"}, srv.DataDirs())

	buildDataDir(t, filepath.Join(root, "b", "data"))
	require.NoError(t, srv.Rescan(context.Background()))
	assert.Equal(t, []string{"a", "b/data"}, srv.DataDirs())
	assert.Equal(t, []string{"a | root.db", "a | t", "b/data | root.db", "b/data | t"}, listed(t, c))

	require.NoError(t, os.RemoveAll(filepath.Join(root, "a")))
	require.NoError(t, srv.Rescan(context.Background()))
	assert.Equal(t, []string{"b/data"}, srv.DataDirs())
	_, err := c.GetFlightInfo(context.Background(), pathDesc("a", "t"))
	assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)
}

func TestDatasetErrChangedIsStale(t *testing.T) {
	srv := &Server{cat: &catalog{root: "/srv/root"}}
	err := srv.datasetErr(&dsEntry{rel: "data"}, fmt.Errorf("reading /srv/root/data/sequence/x.tsfile: %w", dataset.ErrChanged))
	st := status.Convert(toStatus(err))
	assert.Equal(t, codes.FailedPrecondition, st.Code())
	assert.Contains(t, st.Message(), "call GetFlightInfo again")
	assert.NotContains(t, st.Message(), "/srv/root")

	err = srv.datasetErr(&dsEntry{rel: "data"}, fmt.Errorf("/srv/root/data/sequence/x.tsfile: %w", tsfile.ErrCorrupt))
	st = status.Convert(toStatus(err))
	assert.Equal(t, codes.DataLoss, st.Code())
	assert.Equal(t, "data/sequence/x.tsfile: "+tsfile.ErrCorrupt.Error(), st.Message())
}

// TestDatasetPutRefused checks that DoPut never writes into a data
// directory, nor makes one.
func TestDatasetPutRefused(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "iotdb", "data", "sequence"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plain"), 0o755))
	c := &catalog{root: root}
	for rel, refused := range map[string]bool{
		"plain/x.tsfile":      false,
		"new/dir/x.tsfile":    false,
		"x.tsfile":            false,
		"iotdb/data/x.tsfile": true,
		"iotdb/data/sequence/db/1/0/1-1-0-0.tsfile": true,
		"iotdb/data/other/x.tsfile":                 true,
		"new/unsequence/db/1/0/1-1-0-0.tsfile":      true,
	} {
		err := c.checkPutTarget(rel)
		if !refused {
			assert.NoError(t, err, rel)
			continue
		}
		require.Error(t, err, rel)
		assert.Equal(t, codes.PermissionDenied, status.Code(toStatus(err)), "%s: %v", rel, err)
	}
	// A root that is a data directory takes no file at all.
	c = &catalog{root: filepath.Join(root, "iotdb", "data")}
	assert.ErrorIs(t, c.checkPutTarget("x.tsfile"), errDisabled)
}

// TestDatasetChangedDuringRead checks that a compaction removing a file
// after DoGet checked the versions, before it reads, gives either the
// snapshot the ticket was planned on (the reader already holds the file
// open) or FAILED_PRECONDITION, never rows of a mix of states.
func TestDatasetChangedDuringRead(t *testing.T) {
	root := t.TempDir()
	_, unseq := buildDataDir(t, root)
	var once sync.Once
	testHookDatasetChecked = func(string) {
		once.Do(func() {
			for _, p := range []string{unseq, unseq + dataset.ResourceSuffix} {
				require.NoError(t, os.Remove(p))
			}
		})
	}
	t.Cleanup(func() { testHookDatasetChecked = nil })
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("t"))
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	r, err := arrowflight.NewRecordReader(s)
	if err == nil {
		var rows []string
		rows, err = readRows(r)
		r.Release()
		if err == nil {
			// The snapshot planned on: the unsequence copy of a@2000, not
			// the sequence one the removal would uncover.
			var tails []string
			for _, row := range rows {
				tails = append(tails, row[strings.Index(row, "|"):])
			}
			assert.Equal(t, []string{"|a|10", "|a|200", "|b|100"}, tails)
			return
		}
	}
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), "call GetFlightInfo again")
}

// TestDatasetEndpointsByTime checks that a data directory's flight is cut
// into endpoints at time partitions when their files exceed
// PartitionBytes, and that the endpoints together read the rows one
// endpoint reads, each once.
func TestDatasetEndpointsByTime(t *testing.T) {
	root := t.TempDir()
	buildDataDir(t, root) // partition 0: times 1000..3000
	const day = 86_400_000
	p1 := writeIoTDBFileIn(t, root, "sequence", "1", dataset.Name{Time: 3, Version: 3},
		dsPoint{id: "a", time: 7 * day, s1: 70}, dsPoint{id: "b", time: 7*day + 5, s1: 71})
	writeIoTDBFileIn(t, root, "unsequence", "1", dataset.Name{Time: 4, Version: 4},
		dsPoint{id: "a", time: 7 * day, s1: 700})
	writeIoTDBFileIn(t, root, "sequence", "2", dataset.Name{Time: 5, Version: 5},
		dsPoint{id: "c", time: 14 * day, s1: 140})
	appendMods(t, p1, deleteT(7*day+5, 7*day+5))
	want := []string{"a@1000=10", "a@2000=200", "a@604800000=700", "b@1000=100", "c@1209600000=140"}

	whole := startServer(t, Options{Root: root})
	c := dial(t, whole.addr)
	fi := getInfo(t, c, pathDesc("t"))
	require.Len(t, fi.Endpoint, 1, "the default PartitionBytes holds every file")
	assert.Equal(t, want, tRows(t, c, fi))

	cut := startServer(t, Options{Root: root, PartitionBytes: 1})
	c = dial(t, cut.addr)
	fi = getInfo(t, c, pathDesc("t"))
	require.Len(t, fi.Endpoint, 3, "one endpoint per partition")
	var bounds [][2]int64
	for _, ep := range fi.Endpoint {
		var m datasetMeta
		require.NoError(t, json.Unmarshal(ep.AppMetadata, &m))
		require.NotNil(t, m.Start)
		bounds = append(bounds, [2]int64{*m.Start, *m.End})
	}
	assert.Equal(t, [][2]int64{{math.MinInt64, 7*day - 1}, {7 * day, 14*day - 1}, {14 * day, math.MaxInt64}}, bounds)
	assert.Equal(t, want, tRows(t, c, fi))
	for i, ep := range fi.Endpoint {
		one := &arrowflight.FlightInfo{Endpoint: []*arrowflight.FlightEndpoint{ep}}
		assert.Len(t, tRows(t, c, one), []int{3, 1, 1}[i], "endpoint %d", i)
	}

	// A time range narrows the endpoints; a limit keeps one.
	fi = getInfo(t, c, cmdDesc(t, Query{Table: "t", Start: Int(1500), End: Int(7 * day)}))
	require.Len(t, fi.Endpoint, 2)
	assert.Equal(t, []string{"a@2000=200", "a@604800000=700"}, tRows(t, c, fi))
	fi = getInfo(t, c, cmdDesc(t, Query{Table: "t", Start: Int(7 * day), End: Int(8 * day)}))
	require.Len(t, fi.Endpoint, 1)
	assert.Equal(t, []string{"a@604800000=700"}, tRows(t, c, fi))
	fi = getInfo(t, c, cmdDesc(t, Query{Table: "t", Limit: 10}))
	require.Len(t, fi.Endpoint, 1)
	assert.Equal(t, want, tRows(t, c, fi))
}

// TestDatasetTestdataMatchesReader serves testdata/iotdb (two databases,
// two time partitions, v1 and v2 mods, a compaction temporary) and checks
// every table's flight, whole and cut by time, against the resolved reader
// in process.
func TestDatasetTestdataMatchesReader(t *testing.T) {
	const dir = "../testdata/iotdb"
	ds, err := dataset.Open([]string{dir}, nil)
	require.NoError(t, err)
	defer ds.Close()
	tables, err := ds.Tables()
	require.NoError(t, err)
	require.NotEmpty(t, tables)

	for _, pb := range []int64{0, 1} {
		srv := startServer(t, Options{Root: dir, PartitionBytes: pb})
		c := dial(t, srv.addr)
		for _, tbl := range tables {
			r, err := ds.NewReader(tbl.Name, nil)
			require.NoError(t, err)
			want := rowsOf(t, r)
			r.Release()
			require.NotEmpty(t, want, tbl.Name)

			fi := getInfo(t, c, pathDesc(tbl.Name))
			if pb == 1 && tbl.Name == "weather" {
				require.Greater(t, len(fi.Endpoint), 1, "weather spans two time partitions")
			}
			got := readFlight(t, context.Background(), c, fi)
			if len(fi.Endpoint) == 1 {
				assert.Equal(t, want, got, tbl.Name)
				continue
			}
			slices.Sort(want)
			slices.Sort(got)
			assert.Equal(t, want, got, tbl.Name)
		}
	}
}

// TestDatasetLiveDirectory plans and reads while deletions are recorded
// and files flushed: every stream either reads one whole state of the
// directory or fails with FAILED_PRECONDITION.
func TestDatasetLiveDirectory(t *testing.T) {
	root := t.TempDir()
	seq, _ := buildDataDir(t, root)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			// Deletions of times no row has, and files of rows that
			// overwrite b@1000 with its own value: every state reads alike.
			if i%5 == 4 {
				writeIoTDBFile(t, root, "unsequence", dataset.Name{Time: int64(10 + i), Version: int64(10 + i)}, dsPoint{id: "b", time: 1000, s1: 100})
			} else {
				appendMods(t, seq, deleteT(int64(1e9+i), int64(1e9+i)))
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	want := []string{"a@1000=10", "a@2000=200", "b@1000=100"}
	var ok, stale int
	for {
		select {
		case <-done:
			t.Logf("%d streams read, %d refused as stale", ok, stale)
			// Once the directory is still, a plan reads.
			assert.Equal(t, want, tRows(t, c, getInfo(t, c, pathDesc("t"))))
			return
		default:
		}
		fi, err := c.GetFlightInfo(context.Background(), pathDesc("t"))
		if err != nil {
			// Planning may meet the directory changing too.
			require.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
			stale++
			continue
		}
		s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
		require.NoError(t, err)
		r, err := arrowflight.NewRecordReader(s)
		if err == nil {
			var rows []string
			rows, err = readRows(r)
			r.Release()
			if err == nil {
				var tails []string
				for _, row := range rows {
					tails = append(tails, row[strings.Index(row, "|"):])
				}
				assert.Equal(t, []string{"|a|10", "|a|200", "|b|100"}, tails)
				ok++
				continue
			}
		}
		require.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
		stale++
	}
}

// TestDatasetUnsealedFile checks that the file IoTDB is writing (no
// .resource yet) does not make tickets stale as it grows, since the reader
// skips it, and that they are once it is sealed.
func TestDatasetUnsealedFile(t *testing.T) {
	root := t.TempDir()
	buildDataDir(t, root)
	open := writeIoTDBFile(t, root, "sequence", dataset.Name{Time: 9, Version: 9}, dsPoint{id: "c", time: 5000, s1: 1})
	res, err := os.ReadFile(open + dataset.ResourceSuffix)
	require.NoError(t, err)
	require.NoError(t, os.Remove(open+dataset.ResourceSuffix))
	// Being written: no tail magic yet (a complete file without .resource
	// is read, as IoTDB rebuilds the resource).
	f, err := os.OpenFile(open, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte("more of a chunk group"))
	require.NoError(t, errors.Join(err, f.Close()))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("t"))
	assert.Equal(t, []string{"a@1000=10", "a@2000=200", "b@1000=100"}, tRows(t, c, fi))
	// The directory changes and is opened again, twice: the warning about
	// the unsealed file is logged once.
	seq := filepath.Join(root, "sequence", "root.db", "1", "0", "1-1-0-0.tsfile")
	appendMods(t, seq, deleteT(1e9, 1e9))
	getInfo(t, c, pathDesc("t"))
	appendMods(t, seq, deleteT(1e9, 1e9))
	fi = getInfo(t, c, pathDesc("t"))
	assert.Equal(t, 1, strings.Count(srv.log.String(), "9-9-0-0.tsfile: no .resource beside it"), srv.log.String())

	// Sealed: it holds data now, which the ticket was not planned on. (A
	// sealed file is rewritten whole by IoTDB; the test puts back the
	// bytes the resource describes.)
	b, err := os.ReadFile(open)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(open, b[:len(b)-len("more of a chunk group")], 0o644))
	require.NoError(t, os.WriteFile(open+dataset.ResourceSuffix, res, 0o644))
	err = redeemErr(t, c, fi.Endpoint[0].Ticket)
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	assert.Equal(t, []string{"a@1000=10", "a@2000=200", "b@1000=100", "c@5000=1"}, tRows(t, c, getInfo(t, c, pathDesc("t"))))
}

// TestDatasetUnreadable checks that a data directory that does not open
// is reported, refused with FAILED_PRECONDITION and a client-safe message,
// and served as soon as it opens again, without waiting for a rescan.
func TestDatasetUnreadable(t *testing.T) {
	root := t.TempDir()
	seq, _ := buildDataDir(t, filepath.Join(root, "data"))
	good, err := os.ReadFile(seq + dataset.ResourceSuffix)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(seq+dataset.ResourceSuffix, []byte{9, 9, 9}, 0o644))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)

	assert.Empty(t, srv.DataDirs())
	assert.Contains(t, srv.Problems(), "data")
	assert.Contains(t, srv.log.String(), `msg="data directory not served" dir=data`)
	assert.Empty(t, listed(t, c))
	_, err = c.GetFlightInfo(context.Background(), pathDesc("data", "t"))
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), "data directory data cannot be read")
	assert.NotContains(t, status.Convert(err).Message(), root)

	require.NoError(t, os.WriteFile(seq+dataset.ResourceSuffix, good, 0o644))
	assert.Equal(t, []string{"a@1000=10", "a@2000=200", "b@1000=100"}, tRows(t, c, getInfo(t, c, pathDesc("data", "t"))))
	assert.Equal(t, []string{"data"}, srv.DataDirs())
	assert.NotContains(t, srv.Problems(), "data")
}

// TestDatasetRaw checks that Options.Raw serves a data directory's files
// one by one, as they are.
func TestDatasetRaw(t *testing.T) {
	root := t.TempDir()
	buildDataDir(t, root)
	srv := startServer(t, Options{Root: root, Raw: true})
	c := dial(t, srv.addr)
	assert.Empty(t, srv.DataDirs())
	assert.Equal(t, []string{"sequence/root.db/1/0/1-1-0-0.tsfile", "unsequence/root.db/1/0/5-2-0-0.tsfile"}, srv.Files())
	assert.Equal(t, []string{"a@1000=10", "a@2000=20", "a@2000=200", "a@3000=30", "b@1000=100"}, tRows(t, c, getInfo(t, c, pathDesc("t"))))
	assert.NotContains(t, srv.log.String(), "inside an IoTDB data directory")
}

// TestDatasetTicketAcrossServers checks that servers sharing a root
// (Options.Advertise) agree on a data directory's digest even when they
// mount it at different paths: a ticket of one is redeemed at the other.
func TestDatasetTicketAcrossServers(t *testing.T) {
	a := t.TempDir()
	buildDataDir(t, filepath.Join(a, "data"))
	b := t.TempDir()
	require.NoError(t, filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(a, p)
		to := filepath.Join(b, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		st, err := os.Stat(p)
		require.NoError(t, err)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(to, data, 0o644))
		return os.Chtimes(to, st.ModTime(), st.ModTime())
	}))
	key := bytes.Repeat([]byte("k"), 32)
	sa := startServer(t, Options{Root: a, TicketKey: key})
	sb := startServer(t, Options{Root: b, TicketKey: key})
	fi := getInfo(t, dial(t, sa.addr), pathDesc("data", "t"))
	cb := dial(t, sb.addr)
	assert.Equal(t, []string{"a@1000=10", "a@2000=200", "b@1000=100"}, tRows(t, cb, fi))

	// A file of b's copy changes: b refuses the ticket, a still honours it.
	appendMods(t, filepath.Join(b, "data", "sequence", "root.db", "1", "0", "1-1-0-0.tsfile"), deleteT(1e9, 1e9))
	err := redeemErr(t, cb, fi.Endpoint[0].Ticket)
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	assert.NoError(t, redeemErr(t, dial(t, sa.addr), fi.Endpoint[0].Ticket))
}

// TestDatasetRenames checks that a data directory whose partition holds a
// schema-evolution log of table or column renames (apache/iotdb #17079,
// unmerged) is not served, the client told why (the unsettled feature, the
// log, --raw) without the server's paths, and that Options.Raw serves its
// files under their stored names.
func TestDatasetRenames(t *testing.T) {
	root := t.TempDir()
	seq, _ := buildDataDir(t, filepath.Join(root, "data"))
	sevo := filepath.Join(filepath.Dir(seq), "filesets", "5", "7.sevo")
	require.NoError(t, os.MkdirAll(filepath.Dir(sevo), 0o755))
	require.NoError(t, os.WriteFile(sevo, []byte{0, 1, 't', 1, 'u'}, 0o644))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)

	assert.Empty(t, srv.DataDirs())
	assert.Contains(t, srv.Problems()["data"], "apache/iotdb pull request #17079")
	assert.Contains(t, srv.log.String(), `msg="data directory not served" dir=data`)
	_, err := c.GetFlightInfo(context.Background(), pathDesc("data", "t"))
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	msg := status.Convert(err).Message()
	for _, want := range []string{"sequence/root.db/1/0/filesets/5/7.sevo", "ALTER TABLE ... RENAME", "#17079", "in no IoTDB release", "--raw"} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, root)

	raw := startServer(t, Options{Root: root, Raw: true})
	rc := dial(t, raw.addr)
	assert.Equal(t, []string{"a@1000=10", "a@2000=20", "a@2000=200", "a@3000=30", "b@1000=100"}, tRows(t, rc, getInfo(t, rc, pathDesc("t"))))
}
