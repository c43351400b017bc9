package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tsarrow/tsarrow/internal/sample"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// The corruption sweep of the Arrow conversion: every byte of three small
// files (table-model aligned with nulls, tree-model non-aligned, and a
// mixed file) replaced with a few values, then every table converted to
// records. Each conversion succeeds or fails with an error wrapping
// tsfile.ErrCorrupt or tsfile.ErrUnsupported, never panics or hangs, and
// returns every buffer to its allocator, on error paths too. (A strict
// prefix of a file never opens, so truncation is the tsfile sweep's.)

// sweepTimeout bounds one conversion; a longer one counts as a hang.
const sweepTimeout = 20 * time.Second

// sweepReadOpts are the read options of the sweep: a damaged count can
// make a page claim up to MaxPagePoints timestamps (1 Mi by default),
// which decode correctly but slowly; see convertAll.
var sweepReadOpts = &tsfile.ReadOptions{MaxPagePoints: 1 << 16}

type sweepWriter struct {
	t   testing.TB
	out bytes.Buffer
	w   *tsfile.Writer
	r   *rand.Rand
}

func newSweepWriter(t testing.TB, seed uint64, opts *tsfile.WriteOptions) *sweepWriter {
	sw := &sweepWriter{t: t, r: rand.New(rand.NewPCG(seed, 5))}
	var err error
	sw.w, err = tsfile.NewWriter(&sw.out, opts)
	require.NoError(t, err)
	return sw
}

func (sw *sweepWriter) times(t0 int64, n int, regular bool) []int64 {
	out := make([]int64, n)
	for i := range out {
		if regular {
			t0 += 10
		} else {
			t0 += 1 + int64(sw.r.IntN(40))
		}
		out[i] = t0
	}
	return out
}

// values makes n values of type t, a share nullRate of them null.
func (sw *sweepWriter) values(t tsfile.DataType, n int, nullRate float64) tsfile.Values {
	v := tsfile.NewValues(t, n)
	if nullRate > 0 {
		v.Null = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		if nullRate > 0 && sw.r.Float64() < nullRate {
			v.Null[i] = true
			continue
		}
		switch t {
		case tsfile.Boolean:
			v.Bools[i] = sw.r.IntN(2) == 1
		case tsfile.Int32:
			v.Int32s[i] = int32(sw.r.IntN(1000)) - 500
		case tsfile.Date:
			v.Int32s[i] = 20240101 + int32(sw.r.IntN(28))
		case tsfile.Int64, tsfile.Timestamp:
			v.Int64s[i] = sw.r.Int64N(1 << 40)
		case tsfile.Float:
			v.Float32s[i] = float32(sw.r.IntN(10000)) / 100
		case tsfile.Double:
			v.Float64s[i] = float64(sw.r.IntN(10000)) / 100
		default:
			b := make([]byte, sw.r.IntN(6))
			for j := range b {
				b[j] = byte('a' + sw.r.IntN(26))
			}
			v.Binaries[i] = b
		}
	}
	return v
}

func (sw *sweepWriter) col(name string, t tsfile.DataType, enc tsfile.Encoding, n int, nullRate float64) tsfile.AlignedColumn {
	return tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: name, DataType: t, Encoding: enc}, Values: sw.values(t, n, nullRate)}
}

func (sw *sweepWriter) aligned(dev tsfile.DeviceID, times []int64, cols ...tsfile.AlignedColumn) {
	require.NoError(sw.t, sw.w.WriteAligned(dev, times, cols))
}

func (sw *sweepWriter) nonAligned(dev tsfile.DeviceID, t0 int64, series ...tsfile.NonAlignedSeries) {
	for i := range series {
		s := &series[i]
		s.Times = sw.times(t0+int64(i), s.Values.Len(), i%2 == 0)
	}
	require.NoError(sw.t, sw.w.WriteNonAligned(dev, series))
}

func (sw *sweepWriter) series(name string, t tsfile.DataType, enc tsfile.Encoding, n int) tsfile.NonAlignedSeries {
	return tsfile.NonAlignedSeries{SeriesSchema: tsfile.SeriesSchema{Name: name, DataType: t, Encoding: enc}, Values: sw.values(t, n, 0)}
}

func (sw *sweepWriter) done() []byte {
	require.NoError(sw.t, sw.w.Close())
	return append([]byte(nil), sw.out.Bytes()...)
}

type sweepFile struct {
	name string
	data []byte
}

// sweepFiles are the three layouts of the sweep, each a few KB.
func sweepFiles(t testing.TB) []sweepFile {
	var files []sweepFile
	c := func(name string, dt tsfile.DataType, cat tsfile.ColumnCategory) tsfile.Column {
		return tsfile.Column{Name: name, DataType: dt, Category: cat}
	}
	{ // Table model, aligned: multi-page chunks, scattered nulls, an empty
		// page, an all-null column, a column absent from a chunk group, a
		// null TAG, an ATTRIBUTE, two chunk groups of a device.
		sw := newSweepWriter(t, 1, &tsfile.WriteOptions{MaxPointsPerPage: 4})
		require.NoError(t, sw.w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
			c("k1", tsfile.String, tsfile.Tag), c("k2", tsfile.String, tsfile.Tag), c("attr", tsfile.String, tsfile.Attribute),
			c("i", tsfile.Int32, tsfile.Field), c("d", tsfile.Double, tsfile.Field), c("s", tsfile.String, tsfile.Field),
			c("n", tsfile.Float, tsfile.Field), c("b", tsfile.Boolean, tsfile.Field)}}))
		devs := []tsfile.DeviceID{tsfile.NewDeviceID("t", "a", "x"), tsfile.NewDeviceID("t", "b"),
			tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t"}, {Null: true}, {Value: "z"}})}
		for di, dev := range devs {
			n := 9
			gap := sw.col("i", tsfile.Int32, encoding.TS2Diff, n, 0.2)
			for i := 4; i < 8; i++ {
				gap.Values.Null[i] = true // the second page of i is empty
			}
			cols := []tsfile.AlignedColumn{gap, sw.col("d", tsfile.Double, encoding.Gorilla, n, 0.3), sw.col("n", tsfile.Float, encoding.Plain, n, 1)}
			if di != 1 {
				cols = append(cols, sw.col("s", tsfile.String, encoding.Plain, n, 0.3), sw.col("b", tsfile.Boolean, encoding.RLE, n, 0.1))
			}
			sw.aligned(dev, sw.times(int64(di), n, di == 1), cols...)
		}
		sw.aligned(devs[0], sw.times(1000, 5, false), sw.col("i", tsfile.Int32, encoding.TS2Diff, 5, 0), sw.col("d", tsfile.Double, encoding.Gorilla, 5, 0.5))
		files = append(files, sweepFile{"table-aligned-nulls", sw.done()})
	}
	{ // Tree model, non-aligned: several series per device, multi-page
		// chunks, two chunk groups of a device, an operation index range.
		sw := newSweepWriter(t, 2, &tsfile.WriteOptions{MaxPointsPerPage: 5})
		for di, dev := range []tsfile.DeviceID{tsfile.NewDeviceID("root.sg", "d1"), tsfile.NewDeviceID("root.sg", "d2"), tsfile.NewDeviceID("root.sg2", "d1")} {
			sw.nonAligned(dev, int64(di), sw.series("v", tsfile.Int64, encoding.TS2Diff, 9), sw.series("txt", tsfile.Text, encoding.Plain, 6),
				sw.series("f", tsfile.Float, encoding.Gorilla, 7), sw.series("b", tsfile.Boolean, encoding.Plain, 3))
		}
		require.NoError(t, sw.w.WriteOperationIndexRange(1, 2))
		sw.nonAligned(tsfile.NewDeviceID("root.sg", "d1"), 1000, sw.series("v", tsfile.Int64, encoding.TS2Diff, 6), sw.series("txt", tsfile.Text, encoding.Plain, 2))
		files = append(files, sweepFile{"tree-nonaligned", sw.done()})
	}
	{ // Mixed: a table-model table, tree-model aligned and non-aligned
		// devices.
		sw := newSweepWriter(t, 3, &tsfile.WriteOptions{MaxPointsPerPage: 4})
		require.NoError(t, sw.w.RegisterTable(tsfile.TableSchema{Name: "tab", Columns: []tsfile.Column{
			c("k", tsfile.String, tsfile.Tag), c("v", tsfile.Int64, tsfile.Field), c("s", tsfile.Text, tsfile.Field)}}))
		sw.aligned(tsfile.NewDeviceID("tab", "a"), sw.times(0, 9, true), sw.col("v", tsfile.Int64, encoding.Plain, 9, 0.2), sw.col("s", tsfile.Text, encoding.Plain, 9, 0.3))
		sw.nonAligned(tsfile.NewDeviceID("root.na", "d1"), 0, sw.series("x", tsfile.Int32, encoding.Plain, 7), sw.series("y", tsfile.Double, encoding.Plain, 5))
		sw.aligned(tsfile.NewDeviceID("root.al", "d1"), sw.times(0, 6, false), sw.col("p", tsfile.Double, encoding.Plain, 6, 0.3), sw.col("q", tsfile.Date, encoding.Plain, 6, 0))
		sw.aligned(tsfile.NewDeviceID("tab", "b"), sw.times(5, 5, false), sw.col("v", tsfile.Int64, encoding.Plain, 5, 0))
		sw.nonAligned(tsfile.NewDeviceID("root.na", "d2"), 100, sw.series("x", tsfile.Int32, encoding.Plain, 4))
		files = append(files, sweepFile{"mixed", sw.done()})
	}
	return files
}

// validArray checks what checkArray does, returning an error instead of
// failing, for use off the test goroutine.
func validArray(a arrow.Array) error {
	nulls := 0
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			nulls++
		}
	}
	if nulls != a.NullN() {
		return fmt.Errorf("%s array: %d nulls by its bitmap, NullN %d", a.DataType(), nulls, a.NullN())
	}
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return fmt.Errorf("%s array: %w", a.DataType(), err)
		}
	}
	return nil
}

// leakReporter turns CheckedAllocator.AssertSize's report of where the
// leaked buffers were allocated into the result's error.
type leakReporter struct{ r *sweepResult }

func (l leakReporter) Helper() {}

func (l leakReporter) Errorf(format string, args ...any) {
	l.r.bad = errors.Join(l.r.bad, fmt.Errorf(format, args...))
}

// errNotFormat marks an error of the wrong kind; the sweep reports it.
var errNotFormat = errors.New("error is neither tsfile.ErrCorrupt nor tsfile.ErrUnsupported")

func checkKind(what string, err error) error {
	if err == nil || errors.Is(err, tsfile.ErrCorrupt) || errors.Is(err, tsfile.ErrUnsupported) {
		return nil
	}
	return fmt.Errorf("%s: %w: %v", what, errNotFormat, err)
}

// convertFile opens b and converts every table to records with opts (its
// Allocator the caller's): each table-model table with a table reader, the
// tree-model tables with one tree reader. It returns the first format
// error, or an error wrapping errNotFormat, or an invalid array's error.
func convertFile(b []byte, ropts *tsfile.ReadOptions, opts *Options) (rows int, ferr error, bad error) {
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), ropts)
	if err != nil {
		return 0, err, checkKind("Open", err)
	}
	drain := func(what string, r *Reader, err error) (error, error) {
		if err != nil {
			return err, checkKind(what, err)
		}
		defer r.Release()
		for r.Next() {
			rec := r.RecordBatch()
			rows += int(rec.NumRows())
			for _, c := range rec.Columns() {
				if err := validArray(c); err != nil {
					return nil, fmt.Errorf("%s: %w", what, err)
				}
			}
		}
		return r.Err(), checkKind(what, r.Err())
	}
	tree := false
	for _, name := range f.Tables() {
		if _, ok := f.SchemaOf(name); !ok {
			tree = true
			continue
		}
		r, err := NewTableReader(f, name, opts)
		if ferr, bad := drain("table "+name, r, err); ferr != nil || bad != nil {
			return rows, ferr, bad
		}
	}
	if tree {
		r, err := NewTreeReader(f, "", opts)
		if ferr, bad := drain("tree tables", r, err); ferr != nil || bad != nil {
			return rows, ferr, bad
		}
	}
	return rows, nil, nil
}

// sweepOptions varies the conversion by case: plain reads in small
// batches, and the pushdown paths (a time range, which reads pages by
// ReadChunkPages and skips by statistics; a row limit; two workers).
func sweepOptions(mem memory.Allocator, k int) *Options {
	if k%2 == 0 {
		return &Options{Allocator: mem, BatchSize: 5 + k%7, Workers: 1}
	}
	return &Options{Allocator: mem, BatchSize: 8, Workers: 2, Limit: 40, Time: &TimeRange{Start: 15, End: 1200}}
}

// countingAllocator counts the bytes allocated and not yet freed: the
// CheckedAllocator's zero-leak assertion without its cost (it records the
// caller of every allocation, half the time of a conversion). A case that
// leaks is converted again with a CheckedAllocator, which says where.
type countingAllocator struct {
	memory.Allocator
	held atomic.Int64
}

func (c *countingAllocator) Allocate(size int) []byte {
	c.held.Add(int64(size))
	return c.Allocator.Allocate(size)
}

func (c *countingAllocator) Reallocate(size int, b []byte) []byte {
	c.held.Add(int64(size - len(b)))
	return c.Allocator.Reallocate(size, b)
}

func (c *countingAllocator) Free(b []byte) {
	c.held.Add(-int64(len(b)))
	c.Allocator.Free(b)
}

type sweepResult struct {
	ferr, bad error
	leaked    int
	panicked  bool
	lenient   bool // the result of the lenient read
}

// runConversion converts b on another goroutine with a fresh allocator
// (a CheckedAllocator when checked) and a deadline.
func runConversion(b []byte, ropts *tsfile.ReadOptions, k int, checked bool) (res sweepResult, hung bool) {
	ch := make(chan sweepResult, 1)
	go func() {
		var mem memory.Allocator
		counting := &countingAllocator{Allocator: memory.NewGoAllocator()}
		checker := memory.NewCheckedAllocator(memory.NewGoAllocator())
		if checked {
			mem = checker
		} else {
			mem = counting
		}
		defer func() {
			if p := recover(); p != nil {
				ch <- sweepResult{bad: fmt.Errorf("panic: %v\n%s", p, debug.Stack()), panicked: true}
			}
		}()
		var r sweepResult
		_, r.ferr, r.bad = convertFile(b, ropts, sweepOptions(mem, k))
		r.leaked = int(counting.held.Load())
		if checked {
			r.leaked = checker.CurrentAlloc()
			if r.leaked != 0 {
				checker.AssertSize(leakReporter{&r}, 0)
			}
		}
		ch <- r
	}()
	timer := time.NewTimer(sweepTimeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r, false
	case <-timer.C:
		return sweepResult{}, true
	}
}

func corruptionValues(b byte) []byte {
	vals := []byte{b ^ 0xff, 0x00, 0x7f, 0x80, b + 1}
	out := vals[:0]
	for i, v := range vals {
		if v != b && bytes.IndexByte(vals[:i], v) < 0 {
			out = append(out, v)
		}
	}
	return out
}

// TestConversionCorruptionSweep: see the comment at the top of the file. A
// case that fails strictly is converted again with ReadOptions.Lenient,
// which takes the paths that work around damaged summaries.
func TestConversionCorruptionSweep(t *testing.T) {
	var totalCases, totalErrs, totalOKs int
	for _, sf := range sweepFiles(t) {
		t.Run(sf.name, func(t *testing.T) {
			good := sf.data
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			rows, ferr, bad := convertFile(good, sweepReadOpts, sweepOptions(mem, 0))
			require.NoError(t, ferr)
			require.NoError(t, bad)
			require.Positive(t, rows)
			mem.AssertSize(t, 0)

			lenient := *sweepReadOpts
			lenient.Lenient = true
			buf := make([]byte, len(good))
			failures := 0
			report := func(format string, args ...any) {
				t.Helper()
				t.Errorf(format, args...)
				if failures++; failures >= 10 {
					t.FailNow()
				}
			}
			cases, errs, oks, lenientOKs := 0, 0, 0, 0
			var slowest time.Duration
			slowCase := ""
			offsets := sample.Short(sample.Span(0, len(good)), 300, uint64(len(good)))
			for _, off := range offsets {
				for _, v := range corruptionValues(good[off]) {
					copy(buf, good)
					buf[off] = v
					k := cases
					cases++
					start := time.Now()
					res, hung := runConversion(buf, sweepReadOpts, k, false)
					if !hung && res.ferr != nil && res.bad == nil && res.leaked == 0 {
						var lres sweepResult
						if lres, hung = runConversion(buf, &lenient, k, false); !hung {
							if lres.ferr == nil && lres.bad == nil {
								lenientOKs++
							}
							if lres.bad != nil || lres.leaked != 0 {
								res = lres
								res.lenient = true
							}
						}
					}
					if d := time.Since(start); d > slowest {
						slowest, slowCase = d, fmt.Sprintf("offset %d = 0x%02x", off, v)
					}
					switch {
					case hung: // the conversion still runs: stop before reusing buf
						t.Fatalf("offset %d = 0x%02x: no result after %v", off, v, sweepTimeout)
					case res.bad != nil:
						report("offset %d = 0x%02x: %v", off, v, res.bad)
					case res.leaked != 0:
						// Again with a CheckedAllocator, for where.
						ropts := sweepReadOpts
						if res.lenient {
							ropts = &lenient
						}
						cres, _ := runConversion(buf, ropts, k, true)
						report("offset %d = 0x%02x: %d bytes not released (error %v); allocated at: %v", off, v, res.leaked, res.ferr, cres.bad)
					case res.ferr != nil:
						errs++
					default:
						oks++
					}
				}
			}
			t.Logf("%s (%d bytes): %d offsets, %d cases: %d errors (%d of them read leniently), %d successes; slowest case %s took %v",
				sf.name, len(good), len(offsets), cases, errs, lenientOKs, oks, slowCase, slowest.Round(time.Microsecond))
			totalCases += cases
			totalErrs += errs
			totalOKs += oks
		})
	}
	t.Logf("conversion corruption sweep: 3 files, %d cases: %d errors, %d successes", totalCases, totalErrs, totalOKs)
}

// The bytes of a hand-built file, for structures the writer does not
// produce.
func uvar(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func varStr(s string) []byte {
	n := int32(len(s))
	return append(binary.AppendUvarint(nil, uint64(uint32(n<<1)^uint32(n>>31))), s...)
}

func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// emptyPageFile is a tree-model file of one aligned device root.h.d: a
// time chunk of two pages of three timestamps, and an INT32 value chunk
// "v" whose first page holds three values and whose second is empty. The
// second time page's statistics claim count points; 3 is the truth.
func emptyPageFile(t testing.TB, count int64) []byte {
	out := cat([]byte("TsFile\x04"), []byte{0}, uvar(2), varStr("root.h"), varStr("d"))
	var timePages, valuePages []byte
	for p := int64(0); p < 2; p++ {
		ts, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, []int64{3*p + 1, 3*p + 2, 3*p + 3})
		require.NoError(t, err)
		n := int64(3)
		if p == 1 {
			n = count
		}
		st := tsfile.Statistics{Type: tsfile.Vector, Count: n, StartTime: 3*p + 1, EndTime: 3*p + 3}
		timePages = cat(timePages, uvar(uint64(len(ts))), uvar(uint64(len(ts))), st.AppendTo(nil), ts)
	}
	vals, err := encoding.AppendEncodedInt32(encoding.Plain, nil, []int32{7, 8, 9})
	require.NoError(t, err)
	vp := cat(binary.BigEndian.AppendUint32(nil, 3), []byte{0xe0}, vals)
	vst := tsfile.Statistics{Type: tsfile.Int32, Count: 3, StartTime: 1, EndTime: 3, MinInt: 7, MaxInt: 9, FirstInt: 7, LastInt: 9, SumInt: 24}
	valuePages = cat(uvar(uint64(len(vp))), uvar(uint64(len(vp))), vst.AppendTo(nil), vp, []byte{0}) // and an empty page
	timeAt := int64(len(out))
	out = cat(out, []byte{tsfile.MarkerTimeChunkHeader}, varStr(""), uvar(uint64(len(timePages))), []byte{byte(tsfile.Vector), 0, byte(encoding.TS2Diff)}, timePages)
	valueAt := int64(len(out))
	out = cat(out, []byte{tsfile.MarkerValueChunkHeader}, varStr("v"), uvar(uint64(len(valuePages))), []byte{byte(tsfile.Int32), 0, byte(encoding.Plain)}, valuePages)
	metaOffset := int64(len(out))
	out = append(out, tsfile.MarkerSeparator)
	tsmAt := int64(len(out))
	tst := tsfile.Statistics{Type: tsfile.Vector, Count: 3 + count, StartTime: 1, EndTime: 6}
	out = cat(out, []byte{0x80}, varStr(""), []byte{byte(tsfile.Vector)}, uvar(8), tst.AppendTo(nil), be64(timeAt))
	out = cat(out, []byte{0x40}, varStr("v"), []byte{byte(tsfile.Int32)}, uvar(8), vst.AppendTo(nil), be64(valueAt))
	leafAt := int64(len(out))
	out = cat(out, uvar(1), varStr(""), be64(tsmAt), be64(leafAt), []byte{byte(tsfile.LeafMeasurement)})
	meta := cat(uvar(1), varStr("root.h"), uvar(1), uvar(2), varStr("root.h"), varStr("d"), be64(leafAt), be64(int64(len(out))), []byte{byte(tsfile.LeafDevice)},
		uvar(0), be64(metaOffset), uvar(0), []byte{0})
	out = cat(out, meta, binary.BigEndian.AppendUint32(nil, uint32(len(meta))), []byte("TsFile"))
	return out
}

// TestEmptyPageHugeStatisticsCount: an empty value page stands for as many
// nulls as its time page has timestamps, which a reader learns from the
// time page's statistics before the time page is decoded. A count beyond
// any page (here 64 Mi, up to 2^31-1 in a file) is refused before the
// nulls are reserved, rather than allocating for it.
func TestEmptyPageHugeStatisticsCount(t *testing.T) {
	good := emptyPageFile(t, 3)
	f, err := tsfile.Open(bytes.NewReader(good), int64(len(good)), nil)
	require.NoError(t, err)
	r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t)})
	require.NoError(t, err)
	got := drain(t, r)
	require.Len(t, got.rows, 6)
	require.Equal(t, []int{0, 0, 3}, got.nulls) // time, device, v

	bad := emptyPageFile(t, 1<<26)
	for _, workers := range []int{1, 2} {
		f, err := tsfile.Open(bytes.NewReader(bad), int64(len(bad)), nil)
		require.NoError(t, err)
		mem := checkedMem(t)
		var rerr error
		n := allocatedDuring(func() {
			r, err := NewTreeReader(f, "", &Options{Allocator: mem, Workers: workers})
			require.NoError(t, err)
			for r.Next() {
			}
			rerr = r.Err()
			r.Release()
		})
		require.ErrorIs(t, rerr, tsfile.ErrCorrupt)
		require.Less(t, n, uint64(4<<20), "workers %d: %d bytes allocated: %v", workers, n, rerr)
		t.Logf("workers %d: %d bytes allocated: %v", workers, n, rerr)
	}
}

func allocatedDuring(fn func()) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	fn()
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc - before
}
