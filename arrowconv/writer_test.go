package arrowconv

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/bitmap"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// fileBuilder writes small TsFiles for tests, PLAIN and uncompressed, with
// the structures the interop corpus lacks so far: multi-page and
// multi-chunk-group aligned devices, empty value pages, absent value
// chunks, and tree-model devices both aligned and not. It also records the
// rows each device should read back as, in canonical form.
//
// It follows the layout of the spec (Chunks.md, Metadata.md) closely enough
// for tsfile.Open, with one index entry per node and no Bloom filter.
type fileBuilder struct {
	t       testing.TB
	b       []byte
	devices map[string]*devInfo // by DeviceID.String()
	schemas []*tsfile.TableSchema
	// want holds each device's expected rows: time -> column -> cell.
	want map[string]map[int64]map[string]string
}

type devInfo struct {
	id     tsfile.DeviceID
	series map[string]*seriesInfo
}

type seriesInfo struct {
	name   string
	typ    byte // timeseries_type role bits
	dt     tsfile.DataType
	chunks []tsfile.ChunkMetadata
	stats  tsfile.Statistics
}

func newFileBuilder(t testing.TB) *fileBuilder {
	w := &fileBuilder{t: t, devices: map[string]*devInfo{}, want: map[string]map[int64]map[string]string{}}
	w.b = append([]byte(tsfile.Magic), tsfile.Version)
	return w
}

// col is the data of one series: values by type as in tsfile.Values, with
// Null marking absent positions of aligned columns.
type col struct {
	name string
	v    tsfile.Values
}

func (w *fileBuilder) device(id tsfile.DeviceID) *devInfo {
	d, ok := w.devices[id.String()]
	if !ok {
		d = &devInfo{id: id, series: map[string]*seriesInfo{}}
		w.devices[id.String()] = d
	}
	return d
}

func (w *fileBuilder) note(id tsfile.DeviceID, ts int64, name, cell string) {
	m := w.want[id.String()]
	if m == nil {
		m = map[int64]map[string]string{}
		w.want[id.String()] = m
	}
	row := m[ts]
	if row == nil {
		row = map[string]string{}
		m[ts] = row
	}
	row[name] = cell
}

func (w *fileBuilder) addChunk(d *devInfo, name string, typ byte, dt tsfile.DataType, off int64, times []int64, count int) {
	s, ok := d.series[name]
	if !ok {
		s = &seriesInfo{name: name, typ: typ, dt: dt, stats: tsfile.Statistics{Type: dt, StartTime: math.MaxInt64, EndTime: math.MinInt64}}
		d.series[name] = s
	}
	st := tsfile.Statistics{Type: dt, Count: int64(count), StartTime: times[0], EndTime: times[len(times)-1]}
	for _, t := range times {
		st.StartTime, st.EndTime = min(st.StartTime, t), max(st.EndTime, t)
	}
	s.chunks = append(s.chunks, tsfile.ChunkMetadata{Offset: off, Statistics: st})
	s.stats.Count += st.Count
	s.stats.StartTime = min(s.stats.StartTime, st.StartTime)
	s.stats.EndTime = max(s.stats.EndTime, st.EndTime)
}

// nonAligned writes one chunk group of single-page non-aligned chunks, all
// series sharing nothing but the device. Each series has its own times.
func (w *fileBuilder) nonAligned(id tsfile.DeviceID, series map[string][]int64, cols ...col) {
	d := w.device(id)
	w.b = append(w.b, tsfile.MarkerChunkGroupHeader)
	w.b = appendDeviceID(w.b, id)
	for _, c := range cols {
		times := series[c.name]
		require.Equal(w.t, len(times), c.v.Len(), c.name)
		ts, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, times)
		require.NoError(w.t, err)
		payload := appendUVarint(nil, uint32(len(ts)))
		payload = append(payload, ts...)
		payload = append(payload, encodePresent(w.t, c.v, nil)...)
		off := int64(len(w.b))
		w.chunk(tsfile.MarkerOnlyOnePageChunkHeader, c.name, c.v.Type, [][]byte{payload}, nil)
		w.addChunk(d, c.name, 0x00, c.v.Type, off, times, len(times))
		for i, t := range times {
			w.note(id, t, c.name, canonValue(c.v, i))
		}
	}
}

// aligned writes one chunk group of an aligned device whose time chunk has
// one page per element of pages; each column's values cover all the rows.
// A column whose rows in a page are all null gets an empty page there, and
// a column with no value at all a chunk with no pages.
func (w *fileBuilder) aligned(id tsfile.DeviceID, pages [][]int64, cols ...col) {
	d := w.device(id)
	var times []int64
	for _, p := range pages {
		times = append(times, p...)
	}
	multi := len(pages) > 1
	w.b = append(w.b, tsfile.MarkerChunkGroupHeader)
	w.b = appendDeviceID(w.b, id)
	var payloads [][]byte
	var stats []*tsfile.Statistics
	for _, p := range pages {
		ts, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, p)
		require.NoError(w.t, err)
		payloads = append(payloads, ts)
		stats = append(stats, &tsfile.Statistics{Type: tsfile.Vector, Count: int64(len(p)), StartTime: p[0], EndTime: p[len(p)-1]})
	}
	marker := tsfile.MarkerOnlyOnePageTimeChunk
	if multi {
		marker = tsfile.MarkerTimeChunkHeader
	} else {
		stats = nil
	}
	off := int64(len(w.b))
	w.chunkEnc(marker, "", tsfile.Vector, encoding.TS2Diff, payloads, stats)
	w.addChunk(d, "", 0x80, tsfile.Vector, off, times, len(times))
	for _, t := range times {
		w.note(id, t, "", "")
	}
	for _, c := range cols {
		require.Equal(w.t, len(times), c.v.Len(), c.name)
		payloads, stats = nil, nil
		start, present := 0, 0
		for _, p := range pages {
			n := len(p)
			bm := make([]byte, bitmap.Bytes(n))
			k := 0
			for i := range n {
				if !c.v.IsNull(start + i) {
					bitmap.SetMSB(bm, i)
					k++
				}
			}
			if k == 0 {
				payloads = append(payloads, nil) // empty page
				stats = append(stats, nil)
			} else {
				pl := binary.BigEndian.AppendUint32(nil, uint32(n))
				pl = append(pl, bm...)
				pl = append(pl, encodePresent(w.t, c.v, &[2]int{start, start + n})...)
				payloads = append(payloads, pl)
				stats = append(stats, &tsfile.Statistics{Type: c.v.Type, Count: int64(k), StartTime: p[0], EndTime: p[n-1]})
			}
			present += k
			start += n
		}
		marker := tsfile.MarkerOnlyOnePageValueChunk
		if multi {
			marker = tsfile.MarkerValueChunkHeader
		} else {
			stats = nil
		}
		if present == 0 {
			payloads, stats = nil, nil
			marker = tsfile.MarkerOnlyOnePageValueChunk
		}
		off := int64(len(w.b))
		w.chunk(marker, c.name, c.v.Type, payloads, stats)
		w.addChunk(d, c.name, 0x40, c.v.Type, off, times, present)
		for i, t := range times {
			w.note(id, t, c.name, canonValue(c.v, i))
		}
	}
}

func (w *fileBuilder) chunk(marker byte, name string, dt tsfile.DataType, payloads [][]byte, stats []*tsfile.Statistics) {
	w.chunkEnc(marker, name, dt, encoding.Plain, payloads, stats)
}

func (w *fileBuilder) chunkEnc(marker byte, name string, dt tsfile.DataType, enc encoding.Encoding, payloads [][]byte, stats []*tsfile.Statistics) {
	var data []byte
	for i, p := range payloads {
		if p == nil {
			data = appendUVarint(data, 0)
			continue
		}
		data = appendUVarint(data, uint32(len(p)))
		data = appendUVarint(data, uint32(len(p)))
		if stats != nil {
			data = stats[i].AppendTo(data)
		}
		data = append(data, p...)
	}
	w.b = append(w.b, marker)
	w.b = appendVarString(w.b, name)
	w.b = appendUVarint(w.b, uint32(len(data)))
	w.b = append(w.b, byte(dt), byte(encoding.Uncompressed), byte(enc))
	w.b = append(w.b, data...)
}

// table declares a table schema.
func (w *fileBuilder) table(name string, cols ...tsfile.Column) {
	w.schemas = append(w.schemas, &tsfile.TableSchema{Name: name, Columns: cols})
}

// bytes finishes the file: separator, series metadata and index nodes per
// device, then the footer.
func (w *fileBuilder) bytes() []byte {
	b := append([]byte(nil), w.b...)
	metaOffset := int64(len(b))
	b = append(b, tsfile.MarkerSeparator)
	var devs []*devInfo
	for _, d := range w.devices {
		devs = append(devs, d)
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].id.Compare(devs[j].id) < 0 })
	type entry struct {
		id  tsfile.DeviceID
		off int64
	}
	roots := map[string][]entry{}
	var tables []string
	var rootEnd = map[string]int64{}
	for _, d := range devs {
		var names []string
		for n := range d.series {
			names = append(names, n)
		}
		sort.Strings(names)
		first := int64(len(b))
		for _, n := range names {
			s := d.series[n]
			typ := s.typ
			var list []byte
			for _, c := range s.chunks {
				list = binary.BigEndian.AppendUint64(list, uint64(c.Offset))
				if len(s.chunks) > 1 {
					list = c.Statistics.AppendTo(list)
				}
			}
			if len(s.chunks) > 1 {
				typ |= 1
			}
			b = append(b, typ)
			b = appendVarString(b, s.name)
			b = append(b, byte(s.dt))
			b = appendUVarint(b, uint32(len(list)))
			b = s.stats.AppendTo(b)
			b = append(b, list...)
		}
		node := int64(len(b))
		b = appendUVarint(b, 1)
		b = appendVarString(b, names[0])
		b = binary.BigEndian.AppendUint64(b, uint64(first))
		b = binary.BigEndian.AppendUint64(b, uint64(node))
		b = append(b, byte(tsfile.LeafMeasurement))
		tbl := d.id.Table()
		if _, ok := roots[tbl]; !ok {
			tables = append(tables, tbl)
		}
		roots[tbl] = append(roots[tbl], entry{d.id, node})
		rootEnd[tbl] = int64(len(b))
	}
	metaPos := len(b)
	b = appendUVarint(b, uint32(len(tables)))
	for _, tbl := range tables {
		b = appendVarString(b, tbl)
		b = appendUVarint(b, uint32(len(roots[tbl])))
		for _, e := range roots[tbl] {
			b = appendDeviceID(b, e.id)
			b = binary.BigEndian.AppendUint64(b, uint64(e.off))
		}
		b = binary.BigEndian.AppendUint64(b, uint64(rootEnd[tbl]))
		b = append(b, byte(tsfile.LeafDevice))
	}
	b = appendUVarint(b, uint32(len(w.schemas)))
	for _, s := range w.schemas {
		b = appendVarString(b, s.Name)
		b = appendUVarint(b, uint32(len(s.Columns)))
		for _, c := range s.Columns {
			b = binary.BigEndian.AppendUint32(b, uint32(len(c.Name)))
			b = append(b, c.Name...)
			b = append(b, byte(c.DataType), byte(c.Encoding), byte(c.Compression))
			b = binary.BigEndian.AppendUint32(b, 0)
			b = binary.BigEndian.AppendUint32(b, uint32(c.Category))
		}
	}
	b = binary.BigEndian.AppendUint64(b, uint64(metaOffset))
	b = appendUVarint(b, 0) // no Bloom filter
	b = appendUVarint(b, 0) // no properties
	b = binary.BigEndian.AppendUint32(b, uint32(len(b)-metaPos))
	return append(b, tsfile.Magic...)
}

// open finishes the file and opens it.
func (w *fileBuilder) open() *tsfile.File {
	b := w.bytes()
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(w.t, err)
	return f
}

// rows returns the expected rows of the given devices, in order, as
// canonical cells under header; prefix computes the device columns.
func (w *fileBuilder) rows(header []string, devs []tsfile.DeviceID, prefix func(tsfile.DeviceID) []string) [][]string {
	var out [][]string
	for _, id := range devs {
		m := w.want[id.String()]
		var times []int64
		for t := range m {
			times = append(times, t)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		for _, t := range times {
			row := []string{strconv.FormatInt(t, 10)}
			row = append(row, prefix(id)...)
			for _, h := range header[len(row):] {
				c, ok := m[t][h]
				if !ok {
					c = nullCell
				}
				row = append(row, c)
			}
			out = append(out, row)
		}
	}
	return out
}

// encodePresent PLAIN-encodes the non-null values of v in [r[0], r[1]), or
// all of v when r is nil.
func encodePresent(t testing.TB, v tsfile.Values, r *[2]int) []byte {
	lo, hi := 0, v.Len()
	if r != nil {
		lo, hi = r[0], r[1]
	}
	var keep []int
	for i := lo; i < hi; i++ {
		if !v.IsNull(i) {
			keep = append(keep, i)
		}
	}
	var out []byte
	var err error
	switch v.Type {
	case tsfile.Boolean:
		var s []bool
		for _, i := range keep {
			s = append(s, v.Bools[i])
		}
		out, err = encoding.AppendEncodedBool(encoding.Plain, nil, s)
	case tsfile.Int32, tsfile.Date:
		var s []int32
		for _, i := range keep {
			s = append(s, v.Int32s[i])
		}
		out, err = encoding.AppendEncodedInt32(encoding.Plain, nil, s)
	case tsfile.Int64, tsfile.Timestamp:
		var s []int64
		for _, i := range keep {
			s = append(s, v.Int64s[i])
		}
		out, err = encoding.AppendEncodedInt64(encoding.Plain, nil, s)
	case tsfile.Float:
		var s []float32
		for _, i := range keep {
			s = append(s, v.Float32s[i])
		}
		out, err = encoding.AppendEncodedFloat32(encoding.Plain, nil, s)
	case tsfile.Double:
		var s []float64
		for _, i := range keep {
			s = append(s, v.Float64s[i])
		}
		out, err = encoding.AppendEncodedFloat64(encoding.Plain, nil, s)
	default:
		var s [][]byte
		for _, i := range keep {
			s = append(s, v.Binaries[i])
		}
		out, err = encoding.AppendEncodedBinary(encoding.Plain, nil, s)
	}
	require.NoError(t, err)
	return out
}

// canonValue is canonArrow for a value written by the builder.
func canonValue(v tsfile.Values, i int) string {
	if v.IsNull(i) {
		return nullCell
	}
	switch v.Type {
	case tsfile.Boolean:
		return strconv.FormatBool(v.Bools[i])
	case tsfile.Int32:
		return strconv.FormatInt(int64(v.Int32s[i]), 10)
	case tsfile.Date:
		d := v.Int32s[i]
		return fmt.Sprintf("%04d-%02d-%02d", d/10000, d/100%100, d%100)
	case tsfile.Int64, tsfile.Timestamp:
		return strconv.FormatInt(v.Int64s[i], 10)
	case tsfile.Float:
		return fmt.Sprintf("f32:%08x", math.Float32bits(v.Float32s[i]))
	case tsfile.Double:
		return fmt.Sprintf("f64:%016x", math.Float64bits(v.Float64s[i]))
	case tsfile.Blob, tsfile.Object:
		return "0x" + hex.EncodeToString(v.Binaries[i])
	}
	return string(v.Binaries[i])
}

func appendUVarint(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func appendVarint(dst []byte, v int32) []byte {
	return appendUVarint(dst, uint32(v<<1)^uint32(v>>31))
}

func appendVarString(dst []byte, s string) []byte {
	dst = appendVarint(dst, int32(len(s)))
	return append(dst, s...)
}

func appendDeviceID(dst []byte, id tsfile.DeviceID) []byte {
	segs := id.Segments()
	dst = appendUVarint(dst, uint32(len(segs)))
	for _, s := range segs {
		if s.Null {
			dst = appendVarint(dst, -1)
		} else {
			dst = appendVarString(dst, s.Value)
		}
	}
	return dst
}

// Value constructors for tests; a nil entry of null marks a null.
func int64s(v ...int64) tsfile.Values { return tsfile.Values{Type: tsfile.Int64, Int64s: v} }
func doubles(v ...float64) tsfile.Values {
	return tsfile.Values{Type: tsfile.Double, Float64s: v}
}
func texts(t tsfile.DataType, v ...string) tsfile.Values {
	out := tsfile.Values{Type: t}
	for _, s := range v {
		out.Binaries = append(out.Binaries, []byte(s))
	}
	return out
}

// withNulls marks positions null (their slots are ignored).
func withNulls(v tsfile.Values, null ...int) tsfile.Values {
	v.Null = make([]bool, v.Len())
	for _, i := range null {
		v.Null[i] = true
	}
	return v
}
