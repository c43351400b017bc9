package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// The tests of this file cover the streaming merge of non-aligned
// (tree-model) devices in tree.go. Every result is compared with a
// reference outer join computed independently, from a map of what the test
// wrote: time -> column -> cell, where a later write of a point replaces an
// earlier one.

// treeRows turns the reference of the given devices into canonical rows
// under header ("time", "device", then measurements), in time order.
func treeRows(want map[string]map[int64]map[string]string, header []string, devs []tsfile.DeviceID) [][]string {
	var out [][]string
	for _, id := range devs {
		m := want[id.String()]
		times := make([]int64, 0, len(m))
		for ts := range m {
			times = append(times, ts)
		}
		slices.Sort(times)
		for _, ts := range times {
			row := []string{strconv.FormatInt(ts, 10), id.String()}
			for _, h := range header[2:] {
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

// treeDevices lists the devices of the tree tables of f in the order a
// tree reader visits them.
func treeDevices(t testing.TB, f *tsfile.File) []tsfile.DeviceID {
	var out []tsfile.DeviceID
	tables := slices.Clone(f.Tables())
	sort.Strings(tables)
	for _, tb := range tables {
		if _, ok := f.SchemaOf(tb); ok {
			continue
		}
		devs, err := f.Devices(tb)
		require.NoError(t, err)
		out = append(out, devs...)
	}
	return out
}

// treeFilter keeps the rows whose time lies in tr.
func treeFilter(t testing.TB, rows [][]string, tr TimeRange) [][]string {
	var out [][]string
	for _, row := range rows {
		ts, err := strconv.ParseInt(row[0], 10, 64)
		require.NoError(t, err)
		if ts >= tr.Start && ts <= tr.End {
			out = append(out, row)
		}
	}
	return out
}

func treeOpener(f *tsfile.File) func(*Options) (*Reader, error) {
	return func(o *Options) (*Reader, error) { return NewTreeReader(f, "", o) }
}

// treeSkewBase makes out-of-order files with tsfile.Writer, which only
// writes the points of a series in increasing time. treeWriter writes the
// k-th point of a series (counting from 0 over the whole file) at
// treeSkewBase + k<<33 + t, which increases whatever the order of the t
// (below 1<<32), with PLAIN time streams, so that every timestamp, in
// pages and in Statistics, is a big-endian int64 that open shifts back. So
// pages may go back in time and repeat timestamps, and chunks may overlap,
// as in files flushed out of order. Statistics keep their first and last
// timestamps, so the generators make those the smallest and the largest.
// The base is two bytes, 0x6d 0x5a, with k in the 15 bits under them: a
// single 0x6d byte also began windows of 8 bytes that were not times (the
// low byte of an INT64 statistic followed by a small one), whose shifting
// damaged the statistics, which page verification then refused.
const treeSkewBase = int64(0x6d5a) << 48

// treeWriter writes tree-model files whose non-aligned series are written in
// any time order.
type treeWriter struct {
	t     testing.TB
	buf   bytes.Buffer
	w     *tsfile.Writer
	count map[string]int64 // points written per series
	most  int64            // the largest count
	late  int64            // the largest timestamp
	// want is the reference: device -> time -> column -> cell.
	want map[string]map[int64]map[string]string
	// chunks are the timestamps of each series in file order.
	chunks map[string][]int64
	ids    int64 // makes every value unique
}

func newTreeWriter(t testing.TB, pagePoints int) *treeWriter {
	w := &treeWriter{t: t, count: map[string]int64{}, want: map[string]map[int64]map[string]string{}, chunks: map[string][]int64{}}
	var err error
	w.w, err = tsfile.NewWriter(&w.buf, &tsfile.WriteOptions{
		MaxPointsPerPage: pagePoints, PageSizeTarget: 1 << 30, MaxDegree: 3,
		ConfiguredTimeEncoding: true, TimeEncoding: tsfile.TimeEncodingOf(encoding.Plain),
		// Nothing but skewed times may look like one: no Bloom filter
		// bits, no property strings.
		NoBloomFilter: true, NoEncryptionProperties: true,
	})
	require.NoError(t, err)
	return w
}

// treeValues returns n values of type dt, each unique in the file; none of
// their bytes can pass for a skewed time.
func (w *treeWriter) treeValues(dt tsfile.DataType, n int) tsfile.Values {
	v := tsfile.Values{Type: dt}
	for range n {
		w.ids++
		id := w.ids
		switch dt {
		case tsfile.Boolean:
			v.Bools = append(v.Bools, id%3 == 0)
		case tsfile.Int32:
			v.Int32s = append(v.Int32s, int32(id))
		case tsfile.Date:
			v.Int32s = append(v.Int32s, int32(20240101+id%28))
		case tsfile.Int64:
			v.Int64s = append(v.Int64s, id*7)
		case tsfile.Float:
			v.Float32s = append(v.Float32s, float32(id)+0.5)
		case tsfile.Double:
			v.Float64s = append(v.Float64s, float64(id)+0.25)
		default:
			v.Binaries = append(v.Binaries, []byte("v"+strconv.FormatInt(id, 10)))
		}
	}
	return v
}

// treeSeries is one chunk of a series to write.
type treeSeries struct {
	name  string
	dt    tsfile.DataType
	times []int64
}

// group writes one chunk group of dev, a chunk per series.
func (w *treeWriter) group(dev tsfile.DeviceID, series ...treeSeries) {
	var ns []tsfile.NonAlignedSeries
	m := w.want[dev.String()]
	if m == nil {
		m = map[int64]map[string]string{}
		w.want[dev.String()] = m
	}
	for _, s := range series {
		k := dev.String() + "\x00" + s.name
		v := w.treeValues(s.dt, len(s.times))
		skewed := make([]int64, len(s.times))
		for i, ts := range s.times {
			require.True(w.t, ts >= 0 && ts < 1<<32)
			w.late = max(w.late, ts)
			skewed[i] = treeSkewBase + w.count[k]<<33 + ts
			w.count[k]++
			row := m[ts]
			if row == nil {
				row = map[string]string{}
				m[ts] = row
			}
			row[s.name] = canonValue(v, i)
		}
		w.most = max(w.most, w.count[k])
		require.Less(w.t, w.most, int64(1)<<15, "k must stay under treeSkewBase's bytes")
		w.chunks[k] = append(w.chunks[k], s.times...)
		ns = append(ns, tsfile.NonAlignedSeries{SeriesSchema: tsfile.SeriesSchema{Name: s.name, DataType: s.dt}, Times: skewed, Values: v})
	}
	require.NoError(w.t, w.w.WriteNonAligned(dev, ns))
}

// bytes finishes the file and shifts the skewed times back.
func (w *treeWriter) bytes() []byte {
	require.NoError(w.t, w.w.Close())
	b := bytes.Clone(w.buf.Bytes())
	limit := uint64(w.most+1) << 33
	for i := 0; i+8 <= len(b); i++ {
		v := binary.BigEndian.Uint64(b[i:])
		if d := v - uint64(treeSkewBase); v >= uint64(treeSkewBase) && d < limit && d&(1<<33-1) <= uint64(w.late) {
			binary.BigEndian.PutUint64(b[i:], d&(1<<32-1))
			i += 7
		}
	}
	return b
}

// treePlainTimes reads files whose non-aligned time streams are PLAIN.
// Lenient, since pages of the out-of-order files go back in time, which
// no upstream writer writes and a default read refuses as a damaged time
// stream (TestTreeOutOfOrderPageRefused); a lenient read sorts them.
var treePlainTimes = &tsfile.ReadOptions{NonAlignedTimeEncoding: tsfile.TimeEncodingOf(encoding.Plain), Lenient: true}

// open finishes the file, opens it and checks that every series reads
// back, whole, as written.
func (w *treeWriter) open() *tsfile.File {
	b := w.bytes()
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), treePlainTimes)
	require.NoError(w.t, err)
	for _, dev := range treeDevices(w.t, f) {
		series, err := f.Series(dev)
		require.NoError(w.t, err)
		for i := range series {
			times, _, err := f.ReadNonAligned(&series[i])
			require.NoError(w.t, err)
			require.Equal(w.t, w.chunks[dev.String()+"\x00"+series[i].Measurement], times)
		}
	}
	return f
}

// treePage returns n timestamps in [a, b] that start with a and end with b
// (a == b when n is 1), the others anywhere between.
func treePage(rng *rand.Rand, a, b int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = a + rng.Int64N(b-a+1)
	}
	out[0], out[n-1] = a, b
	return out
}

// treeChunk returns the timestamps of a chunk of n points from lo, cut in
// pages of p points: in increasing order (mode 0), with each page going
// back and repeating timestamps within its range (mode 1), or with pages
// whose ranges overlap (mode 2). Pages and the chunk start at their
// smallest and end at their largest timestamp.
func treeChunk(rng *rand.Rand, lo int64, n, p, mode int) []int64 {
	if mode == 2 {
		hi := lo + int64(2*n-2)
		var out []int64
		for start := 0; start < n; start += p {
			m := min(p, n-start)
			a, b := lo+rng.Int64N(hi-lo+1), lo+rng.Int64N(hi-lo+1)
			a, b = min(a, b), max(a, b)
			first, last := start == 0, start+m == n
			switch {
			case first && last:
				a, b = lo, hi
			case m == 1 && first:
				a, b = lo, lo
			case m == 1 && last:
				a, b = hi, hi
			case m == 1:
				b = a
			case first:
				a = lo
			case last:
				b = hi
			}
			out = append(out, treePage(rng, a, b, m)...)
		}
		return out
	}
	out := make([]int64, n)
	t := lo
	for i := range out {
		out[i] = t
		t += []int64{1, 1, 1, 2, 5}[rng.IntN(5)]
	}
	if mode == 1 {
		for start := 0; start < n; start += p {
			page := out[start:min(start+p, n)]
			copy(page, treePage(rng, page[0], page[len(page)-1], len(page)))
		}
	}
	return out
}

// treeChunks returns the chunks of a series written out of order: the
// first from 0 and the last after all the others, as the series
// Statistics keep the first and last timestamps, and in between chunks
// that either follow or go back over earlier ones.
func treeChunks(rng *rand.Rand, nchunks, p int) [][]int64 {
	var out [][]int64
	next := int64(0)
	for k := range nchunks {
		lo := next
		if k > 0 && k < nchunks-1 && rng.IntN(3) > 0 {
			lo = rng.Int64N(next + 1)
		}
		mode := rng.IntN(3)
		if k == nchunks-1 && mode == 2 {
			mode = 0 // its last timestamp must be the largest
		}
		c := treeChunk(rng, lo, 1+rng.IntN(4*p), p, mode)
		out = append(out, c)
		next = max(next, slices.Max(c)+1+rng.Int64N(4))
	}
	return out
}

var treeTypes = []tsfile.DataType{tsfile.Int64, tsfile.Double, tsfile.Text, tsfile.Boolean, tsfile.Int32, tsfile.Float, tsfile.Date, tsfile.Blob, tsfile.String}

// treeOutOfOrder writes devices whose series are written out of order,
// with chunk groups of one device interleaved with others'.
func treeOutOfOrder(t testing.TB, seed uint64, pagePoints int) *treeWriter {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := newTreeWriter(t, pagePoints)
	type plan struct {
		dev    tsfile.DeviceID
		name   string
		dt     tsfile.DataType
		chunks [][]int64
	}
	var plans []*plan
	for d := range 3 {
		dev := tsfile.NewDeviceID("root.sg", fmt.Sprintf("d%d", d))
		// A measurement has one type in every device.
		for _, k := range rng.Perm(len(treeTypes))[:2+rng.IntN(4)] {
			plans = append(plans, &plan{dev: dev, name: fmt.Sprintf("s%d", k), dt: treeTypes[k], chunks: treeChunks(rng, 1+rng.IntN(7), pagePoints)})
		}
	}
	for len(plans) > 0 {
		// A chunk group of a random device, holding the next chunk of
		// some of its series.
		dev := plans[rng.IntN(len(plans))].dev
		var ss []treeSeries
		for _, p := range plans {
			if p.dev.Compare(dev) == 0 && (len(ss) == 0 || rng.IntN(2) == 0) {
				ss = append(ss, treeSeries{p.name, p.dt, p.chunks[0]})
				p.chunks = p.chunks[1:]
			}
		}
		w.group(dev, ss...)
		plans = slices.DeleteFunc(plans, func(p *plan) bool { return len(p.chunks) == 0 })
	}
	return w
}

// TestTreeStreamShapes covers devices whose series have different
// timestamps: gaps, a series much longer than the others, series that
// share every timestamp, a series that ends before the others start, many
// pages, several chunk groups, every value type, in batches of every size
// around the page and run boundaries.
func TestTreeStreamShapes(t *testing.T) {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 7, MaxDegree: 2})
	rng := rand.New(rand.NewPCG(5, 6))
	seq := func(from, step int64, n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = from + int64(i)*step
		}
		return out
	}
	gappy := func(from int64, n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			from += 1 + rng.Int64N(3)
			if rng.IntN(20) == 0 {
				from += 100
			}
			out[i] = from
		}
		return out
	}
	vals := func(dt tsfile.DataType, n int) tsfile.Values {
		v := tsfile.Values{Type: dt}
		for i := range n {
			switch dt {
			case tsfile.Boolean:
				v.Bools = append(v.Bools, rng.IntN(2) == 0)
			case tsfile.Int32:
				v.Int32s = append(v.Int32s, rng.Int32())
			case tsfile.Date:
				v.Int32s = append(v.Int32s, int32(19990101+rng.IntN(28)))
			case tsfile.Int64, tsfile.Timestamp:
				v.Int64s = append(v.Int64s, rng.Int64())
			case tsfile.Float:
				v.Float32s = append(v.Float32s, rng.Float32())
			case tsfile.Double:
				v.Float64s = append(v.Float64s, rng.NormFloat64())
			default:
				v.Binaries = append(v.Binaries, []byte(strconv.Itoa(i*i)+"é"[:rng.IntN(2)*2]))
			}
		}
		return v
	}
	d1 := tsfile.NewDeviceID("root.a", "shared")
	d2 := tsfile.NewDeviceID("root.a", "mixed")
	d3 := tsfile.NewDeviceID("root.b", "apart")
	// d1: every series shares its timestamps, in two chunk groups.
	for g := range 2 {
		ts := seq(int64(g)*1000, 3, 200)
		w.nonAligned(d1, map[string][]int64{"i64": ts, "dbl": ts, "str": ts, "flag": ts},
			col{"i64", vals(tsfile.Int64, 200)}, col{"dbl", vals(tsfile.Double, 200)},
			col{"str", vals(tsfile.String, 200)}, col{"flag", vals(tsfile.Boolean, 200)})
	}
	// d2: a long series, a sparse one on a subset of its timestamps, one
	// with gaps and one with a different period.
	long := seq(0, 1, 3000)
	var sparse []int64
	for _, ts := range long {
		if ts%97 == 0 {
			sparse = append(sparse, ts)
		}
	}
	g := gappy(500, 400)
	w.nonAligned(d2, map[string][]int64{"i64": long, "i32": sparse, "f32": g, "date": seq(1, 2, 700), "blob": seq(2990, 5, 40), "txt": seq(0, 1, 3000)},
		col{"i64", vals(tsfile.Int64, len(long))}, col{"i32", vals(tsfile.Int32, len(sparse))},
		col{"f32", vals(tsfile.Float, len(g))}, col{"date", vals(tsfile.Date, 700)},
		col{"blob", vals(tsfile.Blob, 40)}, col{"txt", vals(tsfile.Text, 3000)})
	// d3: series that do not overlap at all, then one point of each.
	w.nonAligned(d3, map[string][]int64{"i64": seq(0, 1, 50), "dbl": seq(100, 1, 50), "ts": seq(200, 10, 30)},
		col{"i64", vals(tsfile.Int64, 50)}, col{"dbl", vals(tsfile.Double, 50)}, col{"ts", vals(tsfile.Timestamp, 30)})
	w.nonAligned(d3, map[string][]int64{"i64": {1000}, "dbl": {1000}, "ts": {1001}},
		col{"i64", vals(tsfile.Int64, 1)}, col{"dbl", vals(tsfile.Double, 1)}, col{"ts", vals(tsfile.Timestamp, 1)})

	f := w.open()
	s, err := TreeArrowSchema(f, "", nil)
	require.NoError(t, err)
	header := fieldNames(s)
	devs := treeDevices(t, f)
	want := treeRows(w.want, header, devs)
	require.Len(t, want, 400+ /* d1 */ 3000+ /* d2 */ 50+50+30+2 /* d3 */ +
		treeCountOutside(append(append(g, seq(1, 2, 700)...), seq(2990, 5, 40)...), 0, 2999))
	require.Greater(t, len(chunks(t, f, d2, "i64")[0].Pages), 400)
	requireBatches(t, want, []int{1, 2, 7, 16, 17, 100, 4096, 1 << 20}, treeOpener(f))
	for _, workers := range []int{1, 4} {
		r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t), BatchSize: 33, Workers: workers})
		require.NoError(t, err)
		require.Equal(t, want, drain(t, r).rows)
	}
}

// treeCountOutside counts the distinct timestamps of ts outside [lo, hi].
func treeCountOutside(ts []int64, lo, hi int64) int {
	seen := map[int64]bool{}
	for _, t := range ts {
		if t < lo || t > hi {
			seen[t] = true
		}
	}
	return len(seen)
}

// TestTreeStreamOutOfOrder: chunks of a series out of time order, either
// apart or overlapping others, pages that overlap within a chunk, pages
// that go back in time and repeat timestamps; the later write of a
// timestamp wins.
func TestTreeStreamOutOfOrder(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(strconv.Itoa(int(seed)), func(t *testing.T) {
			w := treeOutOfOrder(t, seed, 1+int(seed%5)*3)
			f := w.open()
			s, err := TreeArrowSchema(f, "", nil)
			require.NoError(t, err)
			want := treeRows(w.want, fieldNames(s), treeDevices(t, f))
			requireBatches(t, want, []int{1, 7, 64, 1 << 16}, treeOpener(f))
			r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t), BatchSize: 5, Workers: 1})
			require.NoError(t, err)
			require.Equal(t, want, drain(t, r).rows)
		})
	}
}

// TestTreeStreamDuplicates pins the rules on small cases: a chunk that
// rewrites points of an earlier one wins where they meet, and within a
// page the later of equal timestamps wins.
func TestTreeStreamDuplicates(t *testing.T) {
	w := newTreeWriter(t, 3)
	dev := tsfile.NewDeviceID("root.sg", "d")
	w.group(dev, treeSeries{"a", tsfile.Int64, []int64{0, 10, 11, 12, 13, 14, 15}}, treeSeries{"b", tsfile.Text, []int64{5, 10, 12, 14}})
	// Overlaps a's first chunk, repeating 12 in its page.
	w.group(dev, treeSeries{"a", tsfile.Int64, []int64{12, 12, 13}})
	// b's pages [5 5 9] and [9 9 16] overlap each other and its first chunk.
	w.group(dev, treeSeries{"a", tsfile.Int64, []int64{20, 21}}, treeSeries{"b", tsfile.Text, []int64{5, 5, 9, 9, 9, 16}})
	f := w.open()
	s, err := TreeArrowSchema(f, "", nil)
	require.NoError(t, err)
	header := fieldNames(s)
	require.Equal(t, []string{"time", "device", "a", "b"}, header)
	want := treeRows(w.want, header, []tsfile.DeviceID{dev})
	var times []string
	for _, row := range want {
		times = append(times, row[0])
	}
	require.Equal(t, []string{"0", "5", "9", "10", "11", "12", "13", "14", "15", "16", "20", "21"}, times)
	// Values are ids in write order (a's times 7 each): a's 12 is the
	// second 12 of its second chunk (id 13), b's 5 and 9 the last of its
	// second chunk (ids 18 and 21); b's 10 only in its first (id 9).
	require.Equal(t, []string{"12", "root.sg.d", "91", "v10"}, want[5])
	require.Equal(t, []string{"v18", "v21", "v9"}, []string{want[1][3], want[2][3], want[3][3]})
	requireBatches(t, want, []int{1, 2, 3, 100}, treeOpener(f))
}

// TestTreeStreamTimeRange: a time range gives the rows of the full read
// that lie in it, for many ranges, in files in and out of order.
func TestTreeStreamTimeRange(t *testing.T) {
	small := []int{1, 7, 1 << 16}
	type file struct {
		name   string
		f      *tsfile.File
		ranges int
		sizes  []int
	}
	tw, _ := syntheticTree(t)
	files := []file{
		{"out of order", treeOutOfOrder(t, 99, 4).open(), 80, small},
		{"overlapping", treeOutOfOrder(t, 17, 2).open(), 80, small},
		{"synthetic", tw.open(), 40, small},
		{"mixed", treeMixed(t).open(), 40, small},
	}
	if _, err := os.Stat(filepath.Join(interopDir, "j10_tree_nonaligned.tsfile")); err == nil {
		files = append(files, file{"j10", openInterop(t, "j10_tree_nonaligned"), 20, []int{7, 4096, 1 << 16}})
	}
	mem := checkedMem(t)
	rng := rand.New(rand.NewPCG(8, 9))
	for _, fc := range files {
		f := fc.f
		t.Run(fc.name, func(t *testing.T) {
			r, err := NewTreeReader(f, "", &Options{Allocator: mem})
			require.NoError(t, err)
			all := drain(t, r).rows
			require.NotEmpty(t, all)
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for _, row := range all {
				ts, _ := strconv.ParseInt(row[0], 10, 64)
				lo, hi = min(lo, ts), max(hi, ts)
			}
			ranges := []TimeRange{{lo, hi}, {lo - 100, lo - 1}, {hi + 1, hi + 100}, {lo, lo}, {hi, hi}, {math.MinInt64, math.MaxInt64}, {lo + 1, hi - 1}}
			for range fc.ranges {
				a, b := lo+rng.Int64N(hi-lo+1), lo+rng.Int64N(hi-lo+1)
				if rng.IntN(4) == 0 {
					b = a + rng.Int64N(5)
				}
				ranges = append(ranges, TimeRange{min(a, b), max(a, b)})
			}
			for i, tr := range ranges {
				size := fc.sizes[i%len(fc.sizes)]
				r, err := NewTreeReader(f, "", &Options{Allocator: mem, BatchSize: size, Time: &tr, Workers: 1 + i%2})
				require.NoError(t, err)
				got := drain(t, r)
				require.Equal(t, treeFilter(t, all, tr), got.rows, "range %v batch size %d", tr, size)
			}
		})
	}
}

// treeCountingReader records the byte ranges read through it.
type treeCountingReader struct {
	r      *bytes.Reader
	mu     sync.Mutex
	ranges [][2]int64
}

func (c *treeCountingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.mu.Lock()
	c.ranges = append(c.ranges, [2]int64{off, off + int64(n)})
	c.mu.Unlock()
	return n, err
}

// TestTreeStreamSkips: a time range reads no chunk whose statistics lie
// outside it, and decodes no page whose statistics do: pages outside the
// range are damaged here, and reading still succeeds.
func TestTreeStreamSkips(t *testing.T) {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 10})
	dev := tsfile.NewDeviceID("root.sg", "d")
	for g := range 5 {
		ts := make([]int64, 50)
		v := make([]int64, 50)
		for i := range ts {
			ts[i] = int64(g*1000 + i)
			v[i] = int64(g*100 + i)
		}
		w.nonAligned(dev, map[string][]int64{"a": ts, "b": ts[10:]}, col{"a", int64s(v...)}, col{"b", int64s(v[10:]...)})
	}
	b := w.bytes()
	f := openBytes(t, b)
	tr := TimeRange{2015, 2034} // pages 1..3 of the third chunk of a, 0..2 of b
	r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t)})
	require.NoError(t, err)
	want := treeFilter(t, drain(t, r).rows, tr)
	require.Len(t, want, 20)

	// Only the index and the third chunk group are read.
	cr := &treeCountingReader{r: bytes.NewReader(b)}
	f2, err := tsfile.Open(cr, int64(len(b)), nil)
	require.NoError(t, err)
	cr.ranges = nil
	r, err = NewTreeReader(f2, "", &Options{Allocator: checkedMem(t), Time: &tr})
	require.NoError(t, err)
	require.Equal(t, want, drain(t, r).rows)
	var inRange, outside []int64
	for _, name := range []string{"a", "b"} {
		s, err := f.SeriesByName(dev, name)
		require.NoError(t, err)
		for _, cm := range s.Chunks {
			if cm.Statistics.Overlaps(tr.Start, tr.End) {
				inRange = append(inRange, cm.Offset)
			} else {
				outside = append(outside, cm.Offset)
			}
		}
	}
	require.Len(t, inRange, 2)
	for _, rg := range cr.ranges {
		for _, off := range outside {
			require.False(t, rg[0] <= off && off < rg[1], "read [%d, %d) holds the chunk at %d", rg[0], rg[1], off)
		}
	}
	read := func(off int64) bool {
		for _, rg := range cr.ranges {
			if rg[0] <= off && off < rg[1] {
				return true
			}
		}
		return false
	}
	for _, off := range inRange {
		require.True(t, read(off))
	}

	// Damage every page of those chunks that lies outside the range: a
	// time_stream_size past the payload.
	damaged := bytes.Clone(b)
	n := 0
	for _, off := range inRange {
		c, err := f.ReadChunk(off)
		require.NoError(t, err)
		for _, p := range c.Pages {
			if st := p.Header.Statistics; !st.Overlaps(tr.Start, tr.End) {
				damaged[p.Header.BodyOffset()] = 0x7f
				n++
			}
		}
	}
	require.Equal(t, 2+1, n)
	fd := openBytes(t, damaged)
	r, err = NewTreeReader(fd, "", &Options{Allocator: checkedMem(t), Time: &tr})
	require.NoError(t, err)
	require.Equal(t, want, drain(t, r).rows)
	r, err = NewTreeReader(fd, "", &Options{Allocator: checkedMem(t)})
	require.NoError(t, err)
	defer r.Release()
	for r.Next() {
	}
	require.ErrorIs(t, r.Err(), tsfile.ErrCorrupt)
	require.ErrorContains(t, r.Err(), "time_stream_size")
}

// treeMixed writes a tree-model file holding aligned and non-aligned
// devices, their chunk groups interleaved, with measurements shared
// between both kinds.
func treeMixed(t testing.TB) *fileBuilder {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 4, MaxDegree: 2})
	al := tsfile.NewDeviceID("root.m", "aligned")
	na := tsfile.NewDeviceID("root.m", "nonaligned")
	other := tsfile.NewDeviceID("root.n", "x")
	seq := func(from int64, n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = from + int64(i)*2
		}
		return out
	}
	w.nonAligned(na, map[string][]int64{"t": seq(0, 9), "h": seq(1, 5)},
		col{"t", doubles(1, 2, 3, 4, 5, 6, 7, 8, 9)}, col{"h", int64s(1, 2, 3, 4, 5)})
	w.aligned(al, seq(0, 10),
		col{"t", withNulls(doubles(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 3, 4)},
		col{"s", texts(tsfile.String, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")})
	w.aligned(other, seq(5, 3), col{"h", int64s(7, 8, 9)})
	w.nonAligned(na, map[string][]int64{"t": seq(100, 6), "s": seq(0, 3)},
		col{"t", doubles(10, 20, 30, 40, 50, 60)}, col{"s", texts(tsfile.String, "x", "y", "z")})
	w.aligned(al, seq(20, 6), col{"s", texts(tsfile.String, "k", "l", "m", "n", "o", "p")})
	return w
}

// TestTreeStreamMixed: aligned and non-aligned devices in one tree file.
func TestTreeStreamMixed(t *testing.T) {
	w := treeMixed(t)
	f := w.open()
	s, err := TreeArrowSchema(f, "", nil)
	require.NoError(t, err)
	header := fieldNames(s)
	require.Equal(t, []string{"time", "device", "t", "h", "s"}, header)
	devs := treeDevices(t, f)
	require.Len(t, devs, 3)
	want := treeRows(w.want, header, devs)
	require.Len(t, want, 16+20+3)
	requireBatches(t, want, []int{1, 2, 7, 1000}, treeOpener(f))
	for _, tr := range []TimeRange{{3, 13}, {21, 104}, {0, 0}, {50, 60}} {
		r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t), BatchSize: 3, Time: &tr})
		require.NoError(t, err)
		require.Equal(t, treeFilter(t, want, tr), drain(t, r).rows, "range %v", tr)
	}
}

// TestTreeStreamBadStatistics: timestamps outside the statistics the merge
// relies on are reported as corruption at their page, not merged out of
// order.
func TestTreeStreamBadStatistics(t *testing.T) {
	w := newFileBuilder(t, nil)
	dev := tsfile.NewDeviceID("root.sg", "d")
	ts := []int64{1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009}
	w.nonAligned(dev, map[string][]int64{"a": ts, "b": {1000, 2000}}, col{"a", int64s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}, col{"b", int64s(1, 2)})
	w.nonAligned(dev, map[string][]int64{"a": {3000}}, col{"a", int64s(11)})
	b := w.bytes()
	// 1009 is stored only as end_time in the chunk metadata of a's first
	// chunk; claim 1005.
	var end []byte
	end = binary.BigEndian.AppendUint64(end, 1009)
	i := bytes.LastIndex(b, end)
	require.Equal(t, i, bytes.Index(b, end))
	binary.BigEndian.PutUint64(b[i:], 1005)
	f := openBytes(t, b)
	r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t)})
	require.NoError(t, err)
	defer r.Release()
	for r.Next() {
	}
	err = r.Err()
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.ErrorContains(t, err, "1006")
	var fe *tsfile.FormatError
	require.True(t, errors.As(err, &fe))
	a, err := f.SeriesByName(dev, "a")
	require.NoError(t, err)
	c, err := f.ReadChunk(a.Chunks[0].Offset)
	require.NoError(t, err)
	require.Equal(t, c.Pages[0].Header.BodyOffset(), fe.Offset)
}

// TestTreeStreamRelease: releasing a reader in the middle of a device frees
// everything its cursors hold.
func TestTreeStreamRelease(t *testing.T) {
	w := treeOutOfOrder(t, 3, 3)
	f := w.open()
	for _, k := range []int{0, 1, 2, 5} {
		r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t), BatchSize: 3})
		require.NoError(t, err)
		for range k {
			require.True(t, r.Next())
		}
		r.Release()
	}
}

// treePeakMem tracks the most memory held at once.
type treePeakMem struct {
	*memory.CheckedAllocator
	mu   sync.Mutex
	peak int
}

func (m *treePeakMem) note() {
	m.mu.Lock()
	m.peak = max(m.peak, m.CurrentAlloc())
	m.mu.Unlock()
}

func (m *treePeakMem) Allocate(n int) []byte {
	b := m.CheckedAllocator.Allocate(n)
	m.note()
	return b
}

func (m *treePeakMem) Reallocate(n int, b []byte) []byte {
	b = m.CheckedAllocator.Reallocate(n, b)
	m.note()
	return b
}

// TestTreeStreamMemory: a non-aligned device of four series of two million
// points each is read holding a small fraction of the Arrow memory that
// decoding the series whole takes. Three series share their timestamps
// (runs copied in bulk), the fourth interleaves with them and then runs on
// alone. Every cell is checked against the formula it was written from.
func TestTreeStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB file")
	}
	const n = 2_000_000
	const off = 1_000_000 // s3: t = off + 3i
	var file bytes.Buffer
	w, err := tsfile.NewWriter(&file, nil)
	require.NoError(t, err)
	dev := tsfile.NewDeviceID("root.big", "d")
	const group = 100_000
	for g := 0; g < n; g += group {
		ts := make([]int64, group)
		ts3 := make([]int64, group)
		i64 := make([]int64, group)
		dbl := make([]float64, group)
		i32 := make([]int32, group)
		txt := make([][]byte, group)
		for k := range group {
			i := int64(g + k)
			ts[k], ts3[k] = i, off+3*i
			i64[k], dbl[k], i32[k] = i*5, float64(i)/4, int32(i%1000)
			txt[k] = []byte("t" + strconv.FormatInt(i, 36))
		}
		require.NoError(t, w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s0", DataType: tsfile.Int64}, Times: ts, Values: int64s(i64...)},
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Double}, Times: ts, Values: doubles(dbl...)},
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int32}, Times: ts, Values: int32s(i32...)},
			{SeriesSchema: tsfile.SeriesSchema{Name: "s3", DataType: tsfile.String}, Times: ts3, Values: tsfile.Values{Type: tsfile.String, Binaries: txt}},
		}))
	}
	require.NoError(t, w.Close())
	f := openBytes(t, file.Bytes())

	// What the series take decoded whole: timestamps and values, and for
	// s3 its offsets and bytes.
	materialised := n * (8 + 8 + 8 + 8 + 8 + 4 + 8 + 4)
	for i := range int64(n) {
		materialised += len(strconv.FormatInt(i, 36)) + 1
	}
	s3, err := f.SeriesByName(dev, "s3")
	require.NoError(t, err)
	c, err := f.ReadChunk(s3.Chunks[0].Offset)
	require.NoError(t, err)
	require.Greater(t, len(c.Pages), 10)

	for _, size := range []int{DefaultBatchSize, 4096} {
		mem := &treePeakMem{CheckedAllocator: checkedMem(t)}
		r, err := NewTreeReader(f, "", &Options{Allocator: mem, BatchSize: size})
		require.NoError(t, err)
		sc := r.Schema()
		col := func(name string) int {
			i := sc.FieldIndices(name)
			require.Len(t, i, 1)
			return i[0]
		}
		c0, c1, c2, c3 := col("s0"), col("s1"), col("s2"), col("s3")
		rows, prev := 0, int64(-1)
		for r.Next() {
			rec := r.RecordBatch()
			times := rec.Column(0).(*array.Timestamp)
			a0 := rec.Column(c0).(*array.Int64)
			a1 := rec.Column(c1).(*array.Float64)
			a2 := rec.Column(c2).(*array.Int32)
			a3 := rec.Column(c3).(*array.String)
			for k := range int(rec.NumRows()) {
				ts := int64(times.Value(k))
				if ts <= prev {
					t.Fatalf("time %d after %d", ts, prev)
				}
				prev = ts
				in := ts < n
				if a0.IsValid(k) != in || a1.IsValid(k) != in || a2.IsValid(k) != in {
					t.Fatalf("time %d: s0..s2 valid %v %v %v", ts, a0.IsValid(k), a1.IsValid(k), a2.IsValid(k))
				}
				if in && (a0.Value(k) != ts*5 || a1.Value(k) != float64(ts)/4 || a2.Value(k) != int32(ts%1000)) {
					t.Fatalf("time %d: s0..s2 hold %d %v %d", ts, a0.Value(k), a1.Value(k), a2.Value(k))
				}
				i3 := (ts - off) / 3
				in3 := ts >= off && (ts-off)%3 == 0 && i3 < n
				if a3.IsValid(k) != in3 || (in3 && a3.Value(k) != "t"+strconv.FormatInt(i3, 36)) {
					t.Fatalf("time %d: s3 valid %v", ts, a3.IsValid(k))
				}
				rows++
			}
		}
		require.NoError(t, r.Err())
		r.Release()
		// The union: every t below n, and s3's timestamps past it.
		want := n
		for i := int64(0); i < n; i++ {
			if off+3*i >= n {
				want++
			}
		}
		require.Equal(t, want, rows)
		t.Logf("batch size %d: peak Arrow memory %d bytes, %.2f%% of the %d bytes of the series decoded whole", size, mem.peak, 100*float64(mem.peak)/float64(materialised), materialised)
		require.Less(t, mem.peak*10, materialised)
	}
}

// TestTreeStreamTypes: the bulk copy of runs and the gather, mixed, give
// the rows they copy for every builder kind, with nulls, at any offset; a
// reset builder starts again from row 0.
func TestTreeStreamTypes(t *testing.T) {
	mem := checkedMem(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dt := range treeTypes {
		t.Run(dt.String(), func(t *testing.T) {
			const n = 100
			tw := newTreeWriter(t, 1)
			values := tw.treeValues(dt, n)
			var nulls []int
			for i := range n {
				if rng.IntN(4) == 0 {
					nulls = append(nulls, i)
				}
			}
			ts := make([]int64, n)
			for i := range ts {
				ts[i] = int64(i)
			}
			// An aligned value page has a present bitmap, which gives the
			// builders nulls.
			dev := tsfile.NewDeviceID("root.t", "d")
			fb := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 1000})
			fb.aligned(dev, ts, col{"v", withNulls(values, nulls...)})
			c := chunks(t, fb.open(), dev, "v")[0]
			var pd tsfile.PayloadDecoder
			payload, err := pd.Payload(c, 0)
			require.NoError(t, err)
			count, present, vs, err := tsfile.SplitValuePage(payload, 0)
			require.NoError(t, err)
			require.Equal(t, n, count)
			at, err := arrowType(dt, arrow.Millisecond)
			require.NoError(t, err)
			decoded := func(limit int) valueBuilder {
				b := newValueBuilder(mem, dt, at, limit)
				require.NoError(t, b.appendPage(c.Header.Encoding, present, n, vs, nil))
				return b
			}
			want := treeDrainBuilder(t, decoded(n), n)
			for i := range n {
				require.Equal(t, canonValue(withNulls(values, nulls...), i), want[i])
			}
			src := decoded(64)
			for range 40 {
				dst := newValueBuilder(mem, dt, at, 7)
				exp := []string{}
				for range 1 + rng.IntN(6) {
					switch rng.IntN(3) {
					case 0:
						a := rng.IntN(n + 1)
						b := a + rng.IntN(n+1-a)
						require.NoError(t, appendRowRange(dst, src, a, b))
						exp = append(exp, want[a:b]...)
					case 1:
						idx := make([]int32, rng.IntN(10))
						for i := range idx {
							idx[i] = int32(rng.IntN(n+1) - 1)
							if idx[i] < 0 {
								exp = append(exp, nullCell)
							} else {
								exp = append(exp, want[idx[i]])
							}
						}
						require.NoError(t, dst.gather(src, idx))
					default:
						k := rng.IntN(3)
						dst.appendNulls(k)
						for range k {
							exp = append(exp, nullCell)
						}
					}
				}
				require.Equal(t, exp, treeDrainBuilder(t, dst, dst.Len()))
				dst.release()
			}
			require.True(t, resetRows(src))
			require.Zero(t, src.Len())
			k := n - len(nulls)
			require.NoError(t, src.appendPage(c.Header.Encoding, nil, k, vs, nil))
			var valid []string
			for _, cell := range want {
				if cell != nullCell {
					valid = append(valid, cell)
				}
			}
			require.Equal(t, valid, treeDrainBuilder(t, src, k))
			src.release()
		})
	}
}

// treeDrainBuilder returns the canonical cells of the first n rows of b, which
// keeps the rest.
func treeDrainBuilder(t testing.TB, b valueBuilder, n int) []string {
	d := b.finish(n, 0)
	a := array.MakeFromData(d)
	d.Release()
	defer a.Release()
	checkArray(t, a)
	out := make([]string, a.Len())
	for i := range out {
		out[i] = canonArrow(a, i)
	}
	return out
}

// TestTreeStreamOptions: the other pushdowns through the merge. A
// projection reads only the listed series, so a timestamp that only
// unlisted series hold has no row; a row limit cuts the stream; a device
// filter keeps its devices' rows; string views change no value.
func TestTreeStreamOptions(t *testing.T) {
	f := treeOutOfOrder(t, 5, 3).open()
	mem := checkedMem(t)
	r, err := NewTreeReader(f, "", &Options{Allocator: mem})
	require.NoError(t, err)
	full := drain(t, r)
	all, header := full.rows, full.header
	rng := rand.New(rand.NewPCG(13, 14))
	for i := range 20 {
		cols := []string{"time"}
		for _, h := range header[1:] {
			if rng.IntN(2) == 0 {
				cols = append(cols, h)
			}
		}
		var keep []int
		for c, h := range header {
			if slices.Contains(cols, h) {
				keep = append(keep, c)
			}
		}
		var exp [][]string
		for _, row := range all {
			var out []string
			held := false
			for _, c := range keep {
				out = append(out, row[c])
				held = held || (c >= 2 && row[c] != nullCell)
			}
			if held {
				exp = append(exp, out)
			}
		}
		r, err := NewTreeReader(f, "", &Options{Allocator: mem, BatchSize: 1 + i*5, Columns: cols, StringView: i%2 == 0})
		require.NoError(t, err)
		got := drain(t, r)
		require.Equal(t, cols, got.header)
		require.Equal(t, exp, got.rows, "columns %v", cols)
	}
	for _, limit := range []int64{1, 2, 10, 137, int64(len(all)), 1 << 40} {
		for _, size := range []int{1, 7, 1000} {
			r, err := NewTreeReader(f, "", &Options{Allocator: mem, BatchSize: size, Limit: limit})
			require.NoError(t, err)
			require.Equal(t, all[:min(int(limit), len(all))], drain(t, r).rows, "limit %d batch size %d", limit, size)
		}
	}
	for _, dev := range treeDevices(t, f) {
		var exp [][]string
		for _, row := range all {
			if row[1] == dev.String() {
				exp = append(exp, row)
			}
		}
		r, err := NewTreeReader(f, "", &Options{Allocator: mem, BatchSize: 4, Devices: []tsfile.DeviceID{dev}})
		require.NoError(t, err)
		require.Equal(t, exp, drain(t, r).rows, "device %s", dev)
	}
}

// BenchmarkTreeStream reads a non-aligned device of four series of 500,000
// points: two share their timestamps, one has every other of them and one
// lies between them.
func BenchmarkTreeStream(b *testing.B) {
	const n = 500_000
	var file bytes.Buffer
	w, err := tsfile.NewWriter(&file, nil)
	require.NoError(b, err)
	dev := tsfile.NewDeviceID("root.bench", "d")
	ts, half, mid := make([]int64, n), make([]int64, n), make([]int64, n)
	v := make([]int64, n)
	for i := range n {
		ts[i], half[i], mid[i], v[i] = int64(2*i), int64(4*i), int64(2*i+1), int64(i)
	}
	require.NoError(b, w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{
		{SeriesSchema: tsfile.SeriesSchema{Name: "a", DataType: tsfile.Int64}, Times: ts, Values: int64s(v...)},
		{SeriesSchema: tsfile.SeriesSchema{Name: "b", DataType: tsfile.Int64}, Times: ts, Values: int64s(v...)},
		{SeriesSchema: tsfile.SeriesSchema{Name: "c", DataType: tsfile.Int64}, Times: half, Values: int64s(v...)},
		{SeriesSchema: tsfile.SeriesSchema{Name: "d", DataType: tsfile.Int64}, Times: mid, Values: int64s(v...)},
	}))
	require.NoError(b, w.Close())
	f := openBytes(b, file.Bytes())
	for _, cols := range [][]string{{"a", "b"}, nil} {
		name := "shared"
		if cols == nil {
			name = "all"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o := &Options{}
				if cols != nil {
					o.Columns = cols
				}
				r, err := NewTreeReader(f, "", o)
				if err != nil {
					b.Fatal(err)
				}
				rows := 0
				for r.Next() {
					rows += int(r.RecordBatch().NumRows())
				}
				if r.Err() != nil {
					b.Fatal(r.Err())
				}
				r.Release()
			}
		})
	}
}
