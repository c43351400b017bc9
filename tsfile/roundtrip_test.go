package tsfile

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

var allValueTypes = []DataType{Boolean, Int32, Int64, Float, Double, Text, String, Blob, Date, Timestamp, Object}

// randomValues makes n values of type t with nulls at rate nullRate.
func randomValues(r *rand.Rand, t DataType, n int, nullRate float64) Values {
	v := NewValues(t, n)
	if nullRate > 0 {
		v.Null = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		if nullRate > 0 && r.Float64() < nullRate {
			v.Null[i] = true
			continue
		}
		switch t {
		case Boolean:
			v.Bools[i] = r.IntN(2) == 1
		case Int32:
			v.Int32s[i] = int32(r.Uint32())
		case Date:
			v.Int32s[i] = int32(19700101 + r.IntN(500000))
		case Int64, Timestamp:
			v.Int64s[i] = int64(r.Uint64())
		case Float:
			v.Float32s[i] = math.Float32frombits(r.Uint32())
		case Double:
			v.Float64s[i] = math.Float64frombits(r.Uint64())
		default:
			b := make([]byte, r.IntN(20))
			for j := range b {
				b[j] = byte('a' + r.IntN(26))
			}
			v.Binaries[i] = b
		}
	}
	return v
}

// sameValues compares two columns position by position, floats by bits.
func sameValues(t *testing.T, want, got *Values, what string) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len(), "%s: length", what)
	for i := 0; i < want.Len(); i++ {
		require.Equal(t, want.IsNull(i), got.IsNull(i), "%s: null at %d", what, i)
		if want.IsNull(i) {
			continue
		}
		switch want.Type {
		case Boolean:
			require.Equal(t, want.Bools[i], got.Bools[i], "%s[%d]", what, i)
		case Int32, Date:
			require.Equal(t, want.Int32s[i], got.Int32s[i], "%s[%d]", what, i)
		case Int64, Timestamp:
			require.Equal(t, want.Int64s[i], got.Int64s[i], "%s[%d]", what, i)
		case Float:
			require.Equal(t, math.Float32bits(want.Float32s[i]), math.Float32bits(got.Float32s[i]), "%s[%d]", what, i)
		case Double:
			require.Equal(t, math.Float64bits(want.Float64s[i]), math.Float64bits(got.Float64s[i]), "%s[%d]", what, i)
		default:
			require.Equal(t, string(want.Binaries[i]), string(got.Binaries[i]), "%s[%d]", what, i)
		}
	}
}

func sliceValues(v *Values, lo, hi int) Values {
	out := Values{Type: v.Type}
	if v.Null != nil {
		out.Null = v.Null[lo:hi]
	}
	switch v.Type {
	case Boolean:
		out.Bools = v.Bools[lo:hi]
	case Int32, Date:
		out.Int32s = v.Int32s[lo:hi]
	case Int64, Timestamp:
		out.Int64s = v.Int64s[lo:hi]
	case Float:
		out.Float32s = v.Float32s[lo:hi]
	case Double:
		out.Float64s = v.Float64s[lo:hi]
	default:
		out.Binaries = v.Binaries[lo:hi]
	}
	return out
}

func TestRoundTripTableModel(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rows      int
		groups    int // chunk groups per device
		devices   int
		pagePts   int
		maxDegree int
		timeEnc   Encoding
	}{
		{"single-page", 50, 1, 3, 10000, 256, encoding.TS2Diff},
		{"multi-page", 1000, 1, 2, 97, 256, encoding.TS2Diff},
		{"groups-and-deep-index", 400, 3, 40, 64, 2, encoding.TS2Diff},
		{"plain-time", 300, 2, 5, 128, 3, encoding.Plain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.rows)))
			schema := TableSchema{Name: "t1", Columns: []Column{{Name: "region", DataType: String, Category: Tag}, {Name: "id", DataType: String, Category: Tag}}}
			for _, dt := range allValueTypes {
				schema.Columns = append(schema.Columns, Column{Name: "c_" + strings.ToLower(dt.String()), DataType: dt, Category: Field})
			}
			var out bytes.Buffer
			w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: tc.pagePts, MaxDegree: tc.maxDegree, ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(tc.timeEnc)})
			require.NoError(t, err)
			require.NoError(t, w.RegisterTable(schema))
			type devData struct {
				id    DeviceID
				times []int64
				cols  map[string]*Values
			}
			var devs []devData
			for d := 0; d < tc.devices; d++ {
				id := NewDeviceID("t1", fmt.Sprintf("r%d", d%3), fmt.Sprintf("dev-%03d", d))
				if d%7 == 6 {
					id = DeviceIDFromSegments([]Segment{{Value: "t1"}, {Null: true}, {Value: fmt.Sprintf("dev-%03d", d)}})
				}
				dd := devData{id: id, cols: map[string]*Values{}}
				t0 := int64(1700000000000 + d)
				for i := 0; i < tc.rows; i++ {
					t0 += int64(1 + r.IntN(1000))
					dd.times = append(dd.times, t0)
				}
				for _, dt := range allValueTypes {
					nullRate := 0.2
					if dt == Float && d == 1 {
						nullRate = 1 // an all-null column
					}
					v := randomValues(r, dt, tc.rows, nullRate)
					if dt == Int64 && d == 0 {
						// One page in the middle entirely null.
						for i := tc.rows / 3; i < tc.rows/3+tc.pagePts && i < tc.rows; i++ {
							v.Null[i] = true
						}
					}
					dd.cols["c_"+strings.ToLower(dt.String())] = &v
				}
				devs = append(devs, dd)
			}
			for g := 0; g < tc.groups; g++ {
				for _, dd := range devs {
					lo, hi := g*tc.rows/tc.groups, (g+1)*tc.rows/tc.groups
					var cols []AlignedColumn
					for i, dt := range allValueTypes {
						if g == 1 && i == 2 {
							continue // an absent value chunk in the second group
						}
						name := "c_" + strings.ToLower(dt.String())
						cols = append(cols, AlignedColumn{SeriesSchema: SeriesSchema{Name: name, DataType: dt}, Values: sliceValues(dd.cols[name], lo, hi)})
					}
					require.NoError(t, w.WriteAligned(dd.id, dd.times[lo:hi], cols))
				}
				if g == 0 {
					require.NoError(t, w.WriteOperationIndexRange(1, 99))
				}
			}
			require.NoError(t, w.Close())

			f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
			require.NoError(t, err)
			require.Equal(t, []string{"t1"}, f.Tables())
			if tc.devices > tc.maxDegree {
				// Enough devices for internal device nodes.
				require.Equal(t, InternalDevice, f.Metadata.TableIndexes["t1"].Type)
			}
			got, err := f.Devices("t1")
			require.NoError(t, err)
			require.Len(t, got, tc.devices)
			for i := 1; i < len(got); i++ {
				require.Negative(t, got[i-1].Compare(got[i]))
			}
			for _, dd := range devs {
				series, err := f.Series(dd.id)
				require.NoError(t, err)
				require.Len(t, series, len(allValueTypes)+1)
				cols, err := f.ReadAligned(series)
				require.NoError(t, err)
				require.Equal(t, dd.times, cols.Times)
				for name, want := range dd.cols {
					w := *want
					if tc.groups > 1 && name == "c_"+strings.ToLower(allValueTypes[2].String()) {
						// Group 1 omitted this column: nulls there.
						w = Values{Type: want.Type}
						appendValues(&w, sliceValues(want, 0, tc.rows/tc.groups))
						appendValues(&w, nullValues(want.Type, (2*tc.rows/tc.groups)-tc.rows/tc.groups))
						appendValues(&w, sliceValues(want, 2*tc.rows/tc.groups, tc.rows))
					}
					sameValues(t, &w, cols.Columns[name], dd.id.String()+"."+name)
				}
				// Single-series lookup agrees with the full walk.
				for _, s := range series {
					one, err := f.SeriesByName(dd.id, s.Measurement)
					require.NoError(t, err)
					require.NotNil(t, one, s.Measurement)
					require.Equal(t, s.Offset, one.Offset)
					require.True(t, f.Metadata.Bloom.MayContain(seriesPath(dd.id, s.Measurement)))
				}
				none, err := f.SeriesByName(dd.id, "nope")
				require.NoError(t, err)
				require.Nil(t, none)
			}
		})
	}
}

func TestRoundTripTreeModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var out bytes.Buffer
	// MaxDegree 2 with 11 series per device forces internal measurement
	// nodes; pages of 50 points make multi-page chunks.
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 50, MaxDegree: 2})
	require.NoError(t, err)
	type series struct {
		times []int64
		vals  Values
	}
	want := map[string]map[string]*series{}
	devs := []DeviceID{NewDeviceID("root.sg1", "d1"), NewDeviceID("root.sg1", "d2"), NewDeviceID("root.sg2", "d1")}
	for g := 0; g < 2; g++ {
		for di, dev := range devs {
			var batch []NonAlignedSeries
			for _, dt := range allValueTypes {
				name := "s_" + dt.String()
				n := 1 + r.IntN(200)
				base := int64(g*1_000_000 + di)
				times := make([]int64, n)
				for i := range times {
					base += int64(1 + r.IntN(9))
					times[i] = base
				}
				v := randomValues(r, dt, n, 0)
				batch = append(batch, NonAlignedSeries{SeriesSchema: SeriesSchema{Name: name, DataType: dt}, Times: times, Values: v})
				if want[dev.String()] == nil {
					want[dev.String()] = map[string]*series{}
				}
				s := want[dev.String()][name]
				if s == nil {
					s = &series{vals: Values{Type: dt}}
					want[dev.String()][name] = s
				}
				s.times = append(s.times, times...)
				appendValues(&s.vals, v)
			}
			require.NoError(t, w.WriteNonAligned(dev, batch))
		}
	}
	require.NoError(t, w.Close())
	f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	require.NoError(t, err)
	require.Equal(t, []string{"root.sg1", "root.sg2"}, f.Tables())
	require.Empty(t, f.Metadata.TableSchemas)
	for _, dev := range devs {
		ss, err := f.Series(dev)
		require.NoError(t, err)
		require.Len(t, ss, len(allValueTypes))
		for i := range ss {
			s := &ss[i]
			require.False(t, s.IsTimeColumn() || s.IsValueColumn())
			require.Len(t, s.Chunks, 2)
			times, vals, err := f.ReadNonAligned(s)
			require.NoError(t, err)
			exp := want[dev.String()][s.Measurement]
			require.Equal(t, exp.times, times)
			sameValues(t, &exp.vals, &vals, dev.String()+"."+s.Measurement)
			require.Equal(t, int64(len(times)), s.Statistics.Count)
			require.Equal(t, times[0], s.Statistics.StartTime)
			require.Equal(t, times[len(times)-1], s.Statistics.EndTime)
		}
		root, err := f.measurementRootOf(dev)
		require.NoError(t, err)
		require.Equal(t, InternalMeasurement, root.Type)
	}
}

// measurementRootOf is a test helper exposing a device's measurement root.
func (f *File) measurementRootOf(dev DeviceID) (*IndexNode, error) {
	e, _, err := f.deviceEntry(dev)
	if err != nil {
		return nil, err
	}
	return f.measurementRoot(e)
}

// TestStatisticsAreCorrect checks chunk and series Statistics of a written
// file against values computed here.
func TestStatisticsAreCorrect(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 2})
	require.NoError(t, err)
	times := []int64{10, 20, 30, 40, 50}
	require.NoError(t, w.WriteAligned(NewDeviceID("t", "x"), times, []AlignedColumn{
		{SeriesSchema: SeriesSchema{Name: "i", DataType: Int32}, Values: Values{Type: Int32, Int32s: []int32{5, -3, 0, 9, 1}, Null: []bool{false, false, true, false, false}}},
		{SeriesSchema: SeriesSchema{Name: "s", DataType: String}, Values: Values{Type: String, Binaries: [][]byte{[]byte("m"), []byte("a"), []byte("z"), nil, []byte("b")}, Null: []bool{false, false, false, true, false}}},
		{SeriesSchema: SeriesSchema{Name: "b", DataType: Boolean}, Values: Values{Type: Boolean, Bools: []bool{true, false, true, true, false}}},
	}))
	require.NoError(t, w.Close())
	f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	require.NoError(t, err)
	ss, err := f.Series(NewDeviceID("t", "x"))
	require.NoError(t, err)
	byName := map[string]*TimeseriesMetadata{}
	for i := range ss {
		byName[ss[i].Measurement] = &ss[i]
	}
	require.Equal(t, Statistics{Type: Vector, Count: 5, StartTime: 10, EndTime: 50}, byName[""].Statistics)
	require.Equal(t, Statistics{Type: Int32, Count: 4, StartTime: 10, EndTime: 50, MinInt: -3, MaxInt: 9, FirstInt: 5, LastInt: 1, SumInt: 12}, byName["i"].Statistics)
	require.Equal(t, Statistics{Type: String, Count: 4, StartTime: 10, EndTime: 50, First: []byte("m"), Last: []byte("b"), Min: []byte("a"), Max: []byte("z")}, byName["s"].Statistics)
	require.Equal(t, Statistics{Type: Boolean, Count: 5, StartTime: 10, EndTime: 50, FirstBool: true, LastBool: false, TrueCount: 3}, byName["b"].Statistics)
	// Three pages of at most two rows: page Statistics in each header.
	c, err := f.ReadChunk(byName["i"].Chunks[0].Offset)
	require.NoError(t, err)
	require.Len(t, c.Pages, 3)
	require.False(t, c.Header.SinglePage())
	require.Equal(t, int64(1), c.Pages[1].Header.Statistics.Count) // rows 30 (null) and 40
	require.Equal(t, int64(40), c.Pages[1].Header.Statistics.StartTime)
}

// TestWriterDeviceWithoutPoints: a WriteNonAligned call with no series
// (every value of a device null) used to index the device with a
// measurement node without children, and every reader, ours included,
// refused the whole file.
func TestWriterDeviceWithoutPoints(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, nil)
	require.NoError(t, err)
	empty := ParseTreePath("root.sg.empty")
	full := ParseTreePath("root.sg.full")
	require.NoError(t, w.WriteNonAligned(empty, nil))
	require.NoError(t, w.WriteNonAligned(full, []NonAlignedSeries{{
		SeriesSchema: SeriesSchema{Name: "s", DataType: Int64},
		Times:        []int64{1, 2},
		Values:       Values{Type: Int64, Int64s: []int64{10, 20}},
	}}))
	require.NoError(t, w.Close())
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	require.NoError(t, err)
	devs, err := f.Devices("root.sg")
	require.NoError(t, err)
	require.Len(t, devs, 1)
	require.True(t, devs[0].Equal(full), devs[0].String())
	ts, err := f.SeriesByName(full, "s")
	require.NoError(t, err)
	times, _, err := f.ReadNonAligned(ts)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, times)
}
