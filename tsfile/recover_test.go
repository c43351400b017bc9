package tsfile

import (
	"bytes"
	"github.com/tsarrow/tsarrow/internal/sample"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
)

// recoverLayouts are files whose groups Recover must get back: table
// model with multi-page chunks and nulls, tree model non-aligned, and a
// mixed file with an operation index range.
func recoverLayouts(t testing.TB) map[string][]byte {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 9))
	out := map[string][]byte{}

	var tb bytes.Buffer
	w, err := NewWriter(&tb, &WriteOptions{MaxPointsPerPage: 5, MaxDegree: 3})
	require.NoError(t, err)
	schema := TableSchema{Name: "t", Columns: []Column{{Name: "k", DataType: String, Category: Tag}}}
	for _, typ := range allValueTypes {
		schema.Columns = append(schema.Columns, Column{Name: "c_" + strings.ToLower(typ.String()), DataType: typ, Category: Field})
	}
	require.NoError(t, w.RegisterTable(schema))
	for g := 0; g < 3; g++ {
		for _, k := range []string{"a", "b", "c"} {
			n := 3 + r.IntN(12)
			times := make([]int64, n)
			for i := range times {
				times[i] = int64(g*1000 + i*3)
			}
			var cols []AlignedColumn
			for _, typ := range allValueTypes {
				cols = append(cols, AlignedColumn{SeriesSchema: SeriesSchema{Name: "c_" + strings.ToLower(typ.String()), DataType: typ, Compression: encoding.LZ4}, Values: randomValues(r, typ, n, 0.3)})
			}
			require.NoError(t, w.WriteAligned(NewDeviceID("t", k), times, cols))
		}
	}
	require.NoError(t, w.Close())
	out["table"] = tb.Bytes()

	var tr bytes.Buffer
	w, err = NewWriter(&tr, &WriteOptions{MaxPointsPerPage: 4})
	require.NoError(t, err)
	for g := 0; g < 4; g++ {
		for _, dev := range []string{"root.sg.d1", "root.sg.d2"} {
			var series []NonAlignedSeries
			for j, typ := range []DataType{Int64, Double, Text} {
				n := 2 + r.IntN(9)
				times := make([]int64, n)
				for i := range times {
					times[i] = int64(g*100 + i*(j+1))
				}
				series = append(series, NonAlignedSeries{SeriesSchema: SeriesSchema{Name: "s" + typ.String(), DataType: typ, Encoding: encoding.Plain}, Times: times, Values: randomValues(r, typ, n, 0)})
			}
			require.NoError(t, w.WriteNonAligned(NewDeviceID(dev), series))
		}
	}
	require.NoError(t, w.Close())
	out["tree"] = tr.Bytes()

	var mx bytes.Buffer
	w, err = NewWriter(&mx, &WriteOptions{MaxPointsPerPage: 3})
	require.NoError(t, err)
	for g := 0; g < 3; g++ {
		times := []int64{int64(g*10 + 1), int64(g*10 + 2), int64(g*10 + 5), int64(g*10 + 7)}
		require.NoError(t, w.WriteAligned(NewDeviceID("root.m.al"), times, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int32}, Values: randomValues(r, Int32, 4, 0.25)}}))
		require.NoError(t, w.WriteNonAligned(NewDeviceID("root.m.na"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "x", DataType: Float}, Times: times[:3], Values: randomValues(r, Float, 3, 0)}}))
		require.NoError(t, w.WriteOperationIndexRange(int64(g), int64(g+1)))
	}
	require.NoError(t, w.Close())
	out["mixed"] = mx.Bytes()
	return out
}

// deviceData is every row of one device, read through the index.
type deviceData struct {
	aligned *AlignedColumns
	series  map[string]struct {
		times []int64
		vals  Values
	}
}

func readDevices(t *testing.T, f *File) map[string]deviceData {
	t.Helper()
	out := map[string]deviceData{}
	for _, tb := range f.Tables() {
		devs, err := f.Devices(tb)
		require.NoError(t, err)
		for _, d := range devs {
			ss, err := f.Series(d)
			require.NoError(t, err)
			dd := deviceData{series: map[string]struct {
				times []int64
				vals  Values
			}{}}
			if len(ss) > 0 && (ss[0].IsTimeColumn() || ss[0].IsValueColumn()) {
				dd.aligned, err = f.ReadAligned(ss)
				require.NoError(t, err)
			} else {
				for i := range ss {
					times, vals, err := f.ReadNonAligned(&ss[i])
					require.NoError(t, err)
					dd.series[ss[i].Measurement] = struct {
						times []int64
						vals  Values
					}{times, vals}
				}
			}
			out[d.String()] = dd
		}
	}
	return out
}

func prefixValues(v *Values, n int) Values {
	p := *v
	if p.Null != nil {
		p.Null = p.Null[:n]
	}
	switch v.Type {
	case Boolean:
		p.Bools = p.Bools[:n]
	case Int32, Date:
		p.Int32s = p.Int32s[:n]
	case Int64, Timestamp:
		p.Int64s = p.Int64s[:n]
	case Float:
		p.Float32s = p.Float32s[:n]
	case Double:
		p.Float64s = p.Float64s[:n]
	default:
		p.Binaries = p.Binaries[:n]
	}
	return p
}

// checkRecovered opens the rebuilt file and requires each device to hold
// exactly the first rows of the original's, as many as its recovered
// groups hold, and every chunk's statistics to equal the original index's.
func checkRecovered(t *testing.T, orig []byte, rec *Recovery, rebuilt []byte) {
	t.Helper()
	of, err := Open(bytes.NewReader(orig), int64(len(orig)), nil)
	require.NoError(t, err)
	rf, err := Open(bytes.NewReader(rebuilt), int64(len(rebuilt)), nil)
	require.NoError(t, err)
	want, got := readDevices(t, of), readDevices(t, rf)

	rows := map[string]int{}
	points := map[string]int{}
	for _, g := range rec.Groups {
		rows[g.Device.String()] += int(g.Rows)
		for _, c := range g.Chunks {
			points[g.Device.String()+"."+c.Header.Measurement] += int(c.Statistics.Count)
		}
	}
	require.Len(t, got, len(rows))
	for dev, g := range got {
		w, ok := want[dev]
		require.True(t, ok, dev)
		if w.aligned != nil {
			n := rows[dev]
			require.Equal(t, w.aligned.Times[:n], g.aligned.Times, dev)
			for name, col := range g.aligned.Columns {
				wc := prefixValues(w.aligned.Columns[name], n)
				sameValues(t, &wc, col, dev+"."+name)
			}
			continue
		}
		for name, s := range g.series {
			ws := w.series[name]
			n := points[dev+"."+name]
			require.Equal(t, ws.times[:n], s.times, dev+"."+name)
			wv := prefixValues(&ws.vals, n)
			sameValues(t, &wv, &s.vals, dev+"."+name)
		}
	}
	// Chunk statistics equal the original index's, chunk by chunk.
	for _, tb := range rf.Tables() {
		devs, err := rf.Devices(tb)
		require.NoError(t, err)
		for _, d := range devs {
			rs, err := rf.Series(d)
			require.NoError(t, err)
			os, err := of.Series(d)
			require.NoError(t, err)
			byName := map[string]TimeseriesMetadata{}
			for _, s := range os {
				byName[s.Measurement] = s
			}
			for _, s := range rs {
				o := byName[s.Measurement]
				require.Equal(t, o.DataType, s.DataType)
				require.Equal(t, o.Type&0xc0, s.Type&0xc0)
				require.LessOrEqual(t, len(s.Chunks), len(o.Chunks))
				require.Equal(t, o.Chunks[:len(s.Chunks)], s.Chunks, "%s.%s chunk metadata", d, s.Measurement)
				if len(s.Chunks) == len(o.Chunks) {
					require.Equal(t, o.Statistics, s.Statistics, "%s.%s series statistics", d, s.Measurement)
				}
			}
		}
	}
}

func TestRecoverCompleteFile(t *testing.T) {
	for name, b := range recoverLayouts(t) {
		t.Run(name, func(t *testing.T) {
			rec, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			require.True(t, rec.Complete)
			require.NoError(t, rec.Cause)
			require.Zero(t, rec.Lost())
			var out bytes.Buffer
			_, err = rec.Rebuild(&out, bytes.NewReader(b), nil)
			require.NoError(t, err)
			checkRecovered(t, b, rec, out.Bytes())
			// Every row of the original survives and table schemas are kept.
			of, _ := Open(bytes.NewReader(b), int64(len(b)), nil)
			rf, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
			require.NoError(t, err)
			require.Equal(t, readDevices(t, of), readDevices(t, rf))
			require.Equal(t, of.Metadata.TableSchemas, rf.Metadata.TableSchemas)
		})
	}
}

// TestRecoverEveryCut cuts each layout at every offset of its data section
// and its footer: the groups before the cut that are followed by another
// structure come back with every row, and nothing else does.
func TestRecoverEveryCut(t *testing.T) {
	t.Parallel()
	for name, b := range recoverLayouts(t) {
		t.Run(name, func(t *testing.T) {
			full, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			var tables []TableSchema
			of, _ := Open(bytes.NewReader(b), int64(len(b)), nil)
			for _, n := range sortedTableNames(of.Metadata.TableSchemas) {
				tables = append(tables, *of.Metadata.TableSchemas[n])
			}
			// Group i is complete once the top-level structure after it
			// (next group header, operation index range, separator) is.
			var follow []int64
			sc, err := NewScanner(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			inGroup := false
			for sc.Next() {
				r := sc.Record()
				if r.Kind != ChunkRecord && inGroup {
					follow = append(follow, r.End)
				}
				inGroup = r.Kind == ChunkGroupRecord || r.Kind == ChunkRecord
			}
			require.NoError(t, sc.Err())
			require.Len(t, follow, len(full.Groups))
			last := int64(-1)
			cuts := 0
			// Every offset of a small file; a stride that still lands
			// everywhere in a group over the larger one.
			step := int64(1 + len(b)/8000)
			var every []int64
			for cut := int64(7); cut < int64(len(b)); cut += step {
				every = append(every, cut)
			}
			// -short: about 300 cuts a layout (see shortSample).
			for _, cut := range sample.Short(every, 300, uint64(len(b))) {
				cb := b[:cut]
				rec, err := Recover(bytes.NewReader(cb), cut, &RecoverOptions{Tables: tables})
				require.NoError(t, err, "cut %d", cut)
				require.False(t, rec.Complete)
				if cut > full.ValidEnd {
					// Only the footer is cut: the data section is whole.
					require.NoError(t, rec.Cause, "cut %d", cut)
				} else {
					require.ErrorIs(t, rec.Cause, ErrCorrupt, "cut %d", cut)
				}
				// Groups whose successor began before the cut are all back.
				wantGroups := 0
				for i, end := range follow {
					if end <= cut {
						wantGroups = i + 1
					}
				}
				require.Len(t, rec.Groups, wantGroups, "cut %d", cut)
				require.GreaterOrEqual(t, rec.ValidEnd, last)
				last = rec.ValidEnd
				require.LessOrEqual(t, rec.ValidEnd, cut)
				var out bytes.Buffer
				_, err = rec.Rebuild(&out, bytes.NewReader(cb), nil)
				require.NoError(t, err, "cut %d", cut)
				if cuts%7 == 0 || cut > int64(len(b))-40 {
					checkRecovered(t, b, rec, out.Bytes())
				}
				cuts++
			}
			t.Logf("%s: %d cuts, %d groups", name, cuts, len(full.Groups))
		})
	}
}

func TestRecoverWithoutSchemasIsTreeModel(t *testing.T) {
	b := recoverLayouts(t)["table"]
	cut := int64(len(b)) * 2 / 3
	rec, err := Recover(bytes.NewReader(b[:cut]), cut, nil)
	require.NoError(t, err)
	require.NotEmpty(t, rec.Groups)
	f, err := rec.Open(bytes.NewReader(b[:cut]), nil)
	require.NoError(t, err)
	_, ok := f.SchemaOf("t")
	require.False(t, ok, "a table schema was invented")
	checkRecoveredOpen(t, b, rec, f)
}

func checkRecoveredOpen(t *testing.T, orig []byte, rec *Recovery, f *File) {
	t.Helper()
	var out bytes.Buffer
	_, err := rec.Rebuild(&out, bytes.NewReader(orig[:rec.ValidEnd]), nil)
	require.NoError(t, err)
	rf, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	require.NoError(t, err)
	require.Equal(t, readDevices(t, rf), readDevices(t, f))
	checkRecovered(t, orig, rec, out.Bytes())
}

// TestRecoverDropsCorruptGroup: a page that no longer decodes drops its
// group, with the cause naming the page, and the groups after it are kept.
// With the file's index the dropped rows are counted; without it (the
// footer cut off) they are not, and the scan still goes on.
func TestRecoverDropsCorruptGroup(t *testing.T) {
	b := append([]byte(nil), recoverLayouts(t)["tree"]...)
	full, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.True(t, full.Complete)
	g := full.Groups[3]
	c := g.Chunks[0].Header
	// The time stream's first timestamp: PLAIN int64 after the
	// time_stream_size varint, in the first page.
	s, err := NewScanner(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	var pageBody int64
	for s.Next() {
		if r := s.Record(); r.Kind == ChunkRecord && r.Offset == c.Offset {
			pageBody = r.Chunk.Pages[0].Header.BodyOffset()
		}
	}
	require.NotZero(t, pageBody)
	// Raise the TS_2DIFF block's value count (after the time_stream_size
	// varint) so the time and value streams no longer agree.
	b[pageBody+1+3]++
	rec, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.False(t, rec.Complete)
	require.True(t, rec.Indexed)
	require.Len(t, rec.Groups, len(full.Groups)-1)
	require.Len(t, rec.Dropped, 1)
	d := rec.Dropped[0]
	require.ErrorIs(t, d.Cause, ErrCorrupt)
	require.Equal(t, g.Offset, d.Offset)
	require.Equal(t, full.Groups[4].Offset, d.End)
	require.Equal(t, g.Rows, d.Rows)
	require.Equal(t, int64(len(g.Chunks)), d.Chunks)
	require.True(t, g.Device.Equal(d.Device))
	require.Equal(t, full.Points(), rec.Points()+rec.DroppedRows())
	require.Equal(t, full.Points(), rec.IndexRows)

	// The footer cut off: no index, the group is still dropped and the
	// others kept, its rows unknown.
	cut := full.ValidEnd + 1
	rec, err = Recover(bytes.NewReader(b[:cut]), cut, nil)
	require.NoError(t, err)
	require.False(t, rec.Indexed)
	require.Len(t, rec.Groups, len(full.Groups)-1)
	require.Len(t, rec.Dropped, 1)
	require.Equal(t, int64(-1), rec.Dropped[0].Rows)
	require.Equal(t, g.Offset, rec.Dropped[0].Offset)
	var out bytes.Buffer
	_, err = rec.Rebuild(&out, bytes.NewReader(b[:cut]), nil)
	require.NoError(t, err)
	rf, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	require.NoError(t, err)
	rows := 0
	for _, dd := range readDevices(t, rf) {
		for _, s := range dd.series {
			rows += len(s.times)
		}
	}
	require.Equal(t, int(full.Points()-g.Rows), rows)
}

func TestRecoverInterop(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"j01_table_all_types_plain", "j02_table_multipage_default_encodings", "j10_tree_nonaligned"} {
		b, err := os.ReadFile("../../shared/interop/" + name + ".tsfile")
		if os.IsNotExist(err) {
			need.Skipf(t, "shared interop files not present")
		}
		require.NoError(t, err)
		t.Run(name, func(t *testing.T) {
			full, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			require.True(t, full.Complete)
			var out bytes.Buffer
			_, err = full.Rebuild(&out, bytes.NewReader(b), nil)
			require.NoError(t, err)
			checkRecovered(t, b, full, out.Bytes())

			// Cut in the middle of the middle group.
			g := full.Groups[len(full.Groups)/2]
			cut := (g.Offset + g.End) / 2
			of, _ := Open(bytes.NewReader(b), int64(len(b)), nil)
			var tables []TableSchema
			for _, n := range sortedTableNames(of.Metadata.TableSchemas) {
				tables = append(tables, *of.Metadata.TableSchemas[n])
			}
			rec, err := Recover(bytes.NewReader(b[:cut]), cut, &RecoverOptions{Tables: tables})
			require.NoError(t, err)
			require.Len(t, rec.Groups, len(full.Groups)/2)
			require.Equal(t, g.Offset, rec.ValidEnd)
			out.Reset()
			_, err = rec.Rebuild(&out, bytes.NewReader(b[:cut]), nil)
			require.NoError(t, err)
			checkRecovered(t, b, rec, out.Bytes())
			var want int64
			for _, fg := range full.Groups[:len(full.Groups)/2] {
				want += fg.Rows
			}
			require.Equal(t, want, rec.Points())
			t.Logf("%s: cut at %d of %d inside group %d of %d: %d of %d rows recovered", name, cut, len(b), len(full.Groups)/2, len(full.Groups), rec.Points(), full.Points())
		})
	}
}
