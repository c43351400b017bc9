package arrowconv

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// fileBuilder writes small TsFiles for tests with tsfile.Writer, values PLAIN
// and uncompressed, and records the rows each device should read back as, in
// canonical form. The WriteOptions choose the page size and index fanout.
//
// The writer refuses a series chunk that does not start after the series'
// previous chunks, which files flushed out of order contain. nonAligned
// writes such a chunk with its times shifted by skew, and bytes shifts them
// back: the page time streams and the Statistics' start and end times all
// store a timestamp as a big-endian int64.
type fileBuilder struct {
	t    testing.TB
	buf  bytes.Buffer
	w    *tsfile.Writer
	done []byte // the finished file
	// want holds each device's expected rows: time -> column -> cell.
	want map[string]map[int64]map[string]string
	// last is the last time given to each non-aligned series, by
	// seriesKey; skewed is set once a chunk is written with skew.
	last   map[string]int64
	skewed bool
}

// skew is added to the times of an out-of-order chunk. Test timestamps stay
// far below it, so every big-endian int64 in [skew, skew+1<<32) of the file
// is a shifted time.
const skew = 0x7e57 << 48

func newFileBuilder(t testing.TB, opts *tsfile.WriteOptions) *fileBuilder {
	b := &fileBuilder{t: t, want: map[string]map[int64]map[string]string{}, last: map[string]int64{}}
	var err error
	b.w, err = tsfile.NewWriter(&b.buf, opts)
	require.NoError(t, err)
	return b
}

// col is the data of one series: values by type as in tsfile.Values, with
// Null marking absent positions of aligned columns.
type col struct {
	name string
	v    tsfile.Values
}

func schemaOf(c col) tsfile.SeriesSchema {
	return tsfile.SeriesSchema{Name: c.name, DataType: c.v.Type}
}

func (b *fileBuilder) note(id tsfile.DeviceID, times []int64, name string, v *tsfile.Values) {
	m := b.want[id.String()]
	if m == nil {
		m = map[int64]map[string]string{}
		b.want[id.String()] = m
	}
	for i, ts := range times {
		row := m[ts]
		if row == nil {
			row = map[string]string{}
			m[ts] = row
		}
		if v != nil {
			row[name] = canonValue(*v, i)
		}
	}
}

// table declares a table schema; call it before writing the table's devices.
func (b *fileBuilder) table(name string, cols ...tsfile.Column) {
	require.NoError(b.t, b.w.RegisterTable(tsfile.TableSchema{Name: name, Columns: cols}))
}

// aligned writes one chunk group of an aligned device; each column's values
// cover all the rows. The writer cuts the rows into pages, gives a column
// whose rows in a page are all null an empty page there, and a column with
// no value at all a chunk without pages.
func (b *fileBuilder) aligned(id tsfile.DeviceID, times []int64, cols ...col) {
	var ac []tsfile.AlignedColumn
	b.note(id, times, "", nil)
	for _, c := range cols {
		ac = append(ac, tsfile.AlignedColumn{SeriesSchema: schemaOf(c), Values: c.v})
		b.note(id, times, c.name, &c.v)
	}
	require.NoError(b.t, b.w.WriteAligned(id, times, ac))
}

// nonAligned writes one chunk group of non-aligned series, each with its own
// times. A series' chunk that starts at or before the end of its previous
// ones is written skewed, which only its last chunk may be.
func (b *fileBuilder) nonAligned(id tsfile.DeviceID, series map[string][]int64, cols ...col) {
	var ns []tsfile.NonAlignedSeries
	for _, c := range cols {
		times := series[c.name]
		b.note(id, times, c.name, &c.v)
		k := id.String() + "\x00" + c.name
		if last, ok := b.last[k]; ok && times[0] <= last {
			shifted := make([]int64, len(times))
			for i, ts := range times {
				shifted[i] = ts + skew
			}
			times, b.skewed = shifted, true
		}
		b.last[k] = times[len(times)-1]
		ns = append(ns, tsfile.NonAlignedSeries{SeriesSchema: schemaOf(c), Times: times, Values: c.v})
	}
	require.NoError(b.t, b.w.WriteNonAligned(id, ns))
}

// bytes finishes the file on its first call and returns a copy.
func (b *fileBuilder) bytes() []byte {
	if b.done == nil {
		require.NoError(b.t, b.w.Close())
		b.done = b.buf.Bytes()
		if b.skewed {
			for i := 0; i+8 <= len(b.done); i++ {
				if v := binary.BigEndian.Uint64(b.done[i:]); v >= skew && v-skew < 1<<32 {
					binary.BigEndian.PutUint64(b.done[i:], v-skew)
					i += 7
				}
			}
		}
	}
	return bytes.Clone(b.done)
}

// open finishes the file and opens it.
func (b *fileBuilder) open() *tsfile.File { return openBytes(b.t, b.bytes()) }

// rows returns the expected rows of the given devices, in order, as
// canonical cells under header; prefix computes the device columns.
func (b *fileBuilder) rows(header []string, devs []tsfile.DeviceID, prefix func(tsfile.DeviceID) []string) [][]string {
	var out [][]string
	for _, id := range devs {
		m := b.want[id.String()]
		var times []int64
		for ts := range m {
			times = append(times, ts)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		for _, ts := range times {
			row := []string{strconv.FormatInt(ts, 10)}
			row = append(row, prefix(id)...)
			for _, h := range header[len(row):] {
				c, ok := m[ts][h]
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
		return canonFloat32(v.Float32s[i])
	case tsfile.Double:
		return canonFloat64(v.Float64s[i])
	case tsfile.Blob, tsfile.Object:
		return "0x" + hex.EncodeToString(v.Binaries[i])
	}
	return string(v.Binaries[i])
}

// Value constructors for tests.
func bools(v ...bool) tsfile.Values     { return tsfile.Values{Type: tsfile.Boolean, Bools: v} }
func int32s(v ...int32) tsfile.Values   { return tsfile.Values{Type: tsfile.Int32, Int32s: v} }
func dates(v ...int32) tsfile.Values    { return tsfile.Values{Type: tsfile.Date, Int32s: v} }
func int64s(v ...int64) tsfile.Values   { return tsfile.Values{Type: tsfile.Int64, Int64s: v} }
func floats(v ...float32) tsfile.Values { return tsfile.Values{Type: tsfile.Float, Float32s: v} }
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
