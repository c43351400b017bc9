package tsfile

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/tsarrow/tsarrow/internal/sample"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// The sweeps damage files of every layout the writer produces, and the
// sample and interop files, and require that reading them fails with a
// FormatError of the right kind or succeeds: never a panic, a hang or an
// error of another kind. Truncations cut a file at every byte (a dense
// sample for large files); corruptions replace single bytes.

// sweepFile is one file of the sweeps.
type sweepFile struct {
	name string
	data []byte
}

// sweepWriter writes one file for sweepLayouts, failing t on any error.
type sweepWriter struct {
	t   testing.TB
	out bytes.Buffer
	w   *Writer
	r   *rand.Rand
	// tree writes the layouts as the tree model alone, as TsFile v3 holds
	// them (see sweepLayoutsTree).
	tree   bool
	tables map[string]bool // tree: the tables not registered
}

func newSweepWriter(t testing.TB, wrap func(*WriteOptions) *WriteOptions, seed uint64, opts *WriteOptions) *sweepWriter {
	sw := &sweepWriter{t: t, r: rand.New(rand.NewPCG(seed, 99))}
	if wrap != nil {
		opts = wrap(opts)
	}
	var err error
	sw.w, err = NewWriter(&sw.out, opts)
	require.NoError(t, err)
	return sw
}

func (sw *sweepWriter) table(name string, tags []string, fields ...SeriesSchema) {
	if sw.tree {
		sw.tables[name] = true
		return
	}
	s := TableSchema{Name: name}
	for _, tg := range tags {
		s.Columns = append(s.Columns, Column{Name: tg, DataType: String, Category: Tag})
	}
	s.Columns = append(s.Columns, Column{Name: "attr", DataType: String, Category: Attribute})
	for _, f := range fields {
		s.Columns = append(s.Columns, Column{Name: f.Name, DataType: f.DataType, Encoding: f.Encoding, Compression: f.Compression, Category: Field})
	}
	require.NoError(sw.t, sw.w.RegisterTable(s))
}

// times returns n increasing timestamps after t0; irregular unless regular.
func (sw *sweepWriter) times(t0 int64, n int, regular bool) []int64 {
	out := make([]int64, n)
	for i := range out {
		if regular {
			t0 += 10
		} else {
			t0 += 1 + int64(sw.r.IntN(50))
		}
		out[i] = t0
	}
	return out
}

// values makes n values the series' encoding can store exactly enough.
func (sw *sweepWriter) values(s SeriesSchema, n int, nullRate float64) Values {
	v := codecValues(sw.r, s.DataType, s.Encoding, n, nullRate)
	if s.DataType == Date {
		for i := range v.Int32s {
			if !v.IsNull(i) {
				v.Int32s[i] = 20240101 + int32(sw.r.IntN(28))
			}
		}
	}
	return v
}

// aligned writes one chunk group of dev with the given columns.
func (sw *sweepWriter) aligned(dev DeviceID, times []int64, cols ...AlignedColumn) {
	if sw.tree {
		kept := cols[:0:0]
		for _, c := range cols {
			if treeSeries(c.SeriesSchema) {
				kept = append(kept, c)
			}
		}
		dev, cols = sw.treeDevice(dev), kept
	}
	require.NoError(sw.t, sw.w.WriteAligned(dev, times, cols))
}

// treeSeries reports whether s can be written to TsFile v3, which
// predates OBJECT, CAMEL and the TsFile 2.3 integer encodings.
func treeSeries(s SeriesSchema) bool {
	switch s.Encoding {
	case encoding.Camel, encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar:
		return false
	}
	return s.DataType != Object
}

// treeDevice maps a device of a table-model table to the tree path
// root.<table>.<tags>, for the tree-only layouts.
func (sw *sweepWriter) treeDevice(dev DeviceID) DeviceID {
	if !sw.tables[dev.Table()] {
		return dev
	}
	return ParseTreePath("root." + dev.String())
}

func (sw *sweepWriter) col(s SeriesSchema, n int, nullRate float64) AlignedColumn {
	return AlignedColumn{SeriesSchema: s, Values: sw.values(s, n, nullRate)}
}

func (sw *sweepWriter) nonAligned(dev DeviceID, t0 int64, n int, series ...SeriesSchema) {
	var batch []NonAlignedSeries
	for i, s := range series {
		if sw.tree && !treeSeries(s) {
			continue
		}
		k := max(1, n-i*3)
		batch = append(batch, NonAlignedSeries{SeriesSchema: s, Times: sw.times(t0+int64(i), k, i%2 == 0), Values: sw.values(s, k, 0)})
	}
	if sw.tree {
		dev = sw.treeDevice(dev)
	}
	require.NoError(sw.t, sw.w.WriteNonAligned(dev, batch))
}

func (sw *sweepWriter) done(name string) sweepFile {
	require.NoError(sw.t, sw.w.Close())
	return sweepFile{name: name, data: append([]byte(nil), sw.out.Bytes()...)}
}

func ser(name string, t DataType, e Encoding, c Compression) SeriesSchema {
	return SeriesSchema{Name: name, DataType: t, Encoding: e, Compression: c}
}

// plainSer is a PLAIN, UNCOMPRESSED series.
func plainSer(name string, t DataType) SeriesSchema {
	return ser(name, t, encoding.Plain, encoding.Uncompressed)
}

// sweepLayouts writes a small file of every layout: single-page and
// multi-page aligned chunks, nulls (scattered, a whole page, a whole
// column), every data type, tree-model non-aligned and aligned devices, a
// mixed file, every compression, every encoding, every time encoding,
// operation index ranges, internal device and measurement index nodes, and
// footers without a Bloom filter or with extra properties.
func sweepLayouts(t testing.TB) []sweepFile { return sweepLayoutsWith(t, nil) }

// sweepLayoutsWith is sweepLayouts with each file's WriteOptions passed
// through wrap (when not nil), to write the same layouts encrypted.
func sweepLayoutsWith(t testing.TB, wrap func(*WriteOptions) *WriteOptions) []sweepFile {
	return sweepLayoutsMode(t, wrap, wrap != nil && wrap(nil).Version == VersionV3)
}

// sweepLayoutsTree is sweepLayoutsWith writing every layout as the tree
// model, as TsFile v3 (WriteOptions.Version) requires and as a v4 twin of
// a v3 file is written: a table's devices become the tree devices
// root.<table>.<tags> (a null tag as "null"), no table is registered, no
// footer properties, and OBJECT columns and CAMEL series are left out.
// The layouts and their order are the same as sweepLayouts'.
func sweepLayoutsTree(t testing.TB, wrap func(*WriteOptions) *WriteOptions) []sweepFile {
	return sweepLayoutsMode(t, wrap, true)
}

func sweepLayoutsMode(t testing.TB, wrap func(*WriteOptions) *WriteOptions, tree bool) []sweepFile {
	var files []sweepFile
	newSweepWriter := func(t testing.TB, wrap func(*WriteOptions) *WriteOptions, seed uint64, opts *WriteOptions) *sweepWriter {
		if tree && opts != nil {
			cp := *opts
			cp.Properties, cp.NoEncryptionProperties = nil, false
			opts = &cp
		}
		sw := newSweepWriter(t, wrap, seed, opts)
		sw.tree, sw.tables = tree, map[string]bool{}
		return sw
	}

	{ // Table model, single-page chunks.
		sw := newSweepWriter(t, wrap, 1, nil)
		fields := []SeriesSchema{plainSer("temp", Double), ser("cnt", Int64, encoding.TS2Diff, encoding.Uncompressed), plainSer("note", String)}
		sw.table("t", []string{"region", "station"}, fields...)
		for d, dev := range []DeviceID{NewDeviceID("t", "north", "s1"), NewDeviceID("t", "north", "s2"), NewDeviceID("t", "south")} {
			sw.aligned(dev, sw.times(int64(d), 20, d == 0), sw.col(fields[0], 20, 0), sw.col(fields[1], 20, 0.1), sw.col(fields[2], 20, 0.2))
		}
		files = append(files, sw.done("table-single-page"))
	}
	{ // Table model, multi-page chunks with nulls: scattered, an empty
		// page, an all-null column (a chunk without pages), a column absent
		// from a chunk group, a null TAG and an operation index range.
		sw := newSweepWriter(t, wrap, 2, &WriteOptions{MaxPointsPerPage: 4})
		i32, allNull, gap := plainSer("i32", Int32), plainSer("allnull", Float), plainSer("gap", Int64)
		s, b := plainSer("s", String), ser("b", Boolean, encoding.RLE, encoding.Uncompressed)
		sw.table("t", []string{"k1", "k2"}, i32, allNull, gap, s, b)
		devs := []DeviceID{NewDeviceID("t", "a", "x"), NewDeviceID("t", "b"), DeviceIDFromSegments([]Segment{{Value: "t"}, {Null: true}, {Value: "z"}})}
		for d, dev := range devs {
			n := 10
			gapCol := sw.col(gap, n, 0)
			gapCol.Values.Null = make([]bool, n)
			for i := 4; i < 8; i++ {
				gapCol.Values.Null[i] = true // the second page entirely null
			}
			sw.aligned(dev, sw.times(int64(d), n, d == 1), sw.col(i32, n, 0.3), sw.col(allNull, n, 1), gapCol, sw.col(b, n, 0.25), sw.col(s, n, 0.3))
		}
		require.NoError(t, sw.w.WriteOperationIndexRange(1, 99))
		// A second chunk group of one device, without column s.
		sw.aligned(devs[0], sw.times(1000, 6, false), sw.col(i32, 6, 0.3), sw.col(gap, 6, 0.5), sw.col(b, 6, 0))
		files = append(files, sw.done("table-multipage-nulls"))
	}
	{ // Every data type, multi-page, with nulls.
		sw := newSweepWriter(t, wrap, 3, &WriteOptions{MaxPointsPerPage: 5})
		var fields []SeriesSchema
		for _, dt := range allValueTypes {
			fields = append(fields, plainSer("c_"+strings.ToLower(dt.String()), dt))
		}
		sw.table("types", []string{"id"}, fields...)
		for d := 0; d < 2; d++ {
			var cols []AlignedColumn
			for _, f := range fields {
				cols = append(cols, sw.col(f, 11, 0.2))
			}
			sw.aligned(NewDeviceID("types", fmt.Sprint(d)), sw.times(0, 11, false), cols...)
		}
		files = append(files, sw.done("all-types"))
	}
	{ // Tree model, non-aligned, two chunk groups a device, multi-page
		// chunks and an operation index range between the groups.
		sw := newSweepWriter(t, wrap, 4, &WriteOptions{MaxPointsPerPage: 5})
		series := []SeriesSchema{
			ser("s_int32", Int32, encoding.TS2Diff, encoding.Uncompressed), ser("s_double", Double, encoding.Gorilla, encoding.Uncompressed),
			plainSer("s_text", Text), ser("s_bool", Boolean, encoding.RLE, encoding.Uncompressed), plainSer("s_int64", Int64),
		}
		for _, dev := range []DeviceID{NewDeviceID("root.sg1", "d1"), NewDeviceID("root.sg1", "d2"), NewDeviceID("root.sg2", "d1")} {
			sw.nonAligned(dev, 0, 9, series...)
		}
		require.NoError(t, sw.w.WriteOperationIndexRange(5, 7))
		sw.nonAligned(NewDeviceID("root.sg1", "d1"), 10000, 7, series[:3]...)
		files = append(files, sw.done("tree-nonaligned"))
	}
	{ // Mixed: a table-model table, tree-model non-aligned and aligned
		// devices.
		sw := newSweepWriter(t, wrap, 5, &WriteOptions{MaxPointsPerPage: 4})
		v, s := plainSer("v", Int64), plainSer("s", String)
		sw.table("tab", []string{"k"}, v, s)
		sw.aligned(NewDeviceID("tab", "a"), sw.times(0, 9, true), sw.col(v, 9, 0.2), sw.col(s, 9, 0.3))
		sw.nonAligned(NewDeviceID("root.na", "d1"), 0, 7, plainSer("x", Int32), plainSer("y", Text))
		sw.aligned(NewDeviceID("root.al", "d1"), sw.times(0, 6, false), sw.col(plainSer("p", Double), 6, 0.3), sw.col(plainSer("q", Boolean), 6, 0))
		sw.aligned(NewDeviceID("tab", "b"), sw.times(5, 5, false), sw.col(v, 5, 0))
		sw.nonAligned(NewDeviceID("root.na", "d2"), 100, 4, plainSer("x", Int32))
		files = append(files, sw.done("mixed"))
	}
	for _, c := range allCompressions { // Every compression.
		sw := newSweepWriter(t, wrap, 6, &WriteOptions{MaxPointsPerPage: 8, TimeCompression: c})
		a, b := ser("a", Int64, encoding.TS2Diff, c), ser("b", Text, encoding.Plain, c)
		sw.aligned(NewDeviceID("root.c", "al"), sw.times(0, 20, false), sw.col(a, 20, 0.1), sw.col(b, 20, 0.3))
		sw.nonAligned(NewDeviceID("root.c", "na"), 0, 12, ser("x", Double, encoding.Gorilla, c), ser("y", String, encoding.Dictionary, c))
		files = append(files, sw.done("compression-"+c.String()))
	}
	{ // Every (type, encoding) pair, aligned and non-aligned.
		var fields []SeriesSchema
		for _, dt := range []DataType{Boolean, Int32, Int64, Float, Double, Text, String, Blob} {
			for _, e := range allEncodings {
				if encodingAllowed(dt, e) {
					fields = append(fields, ser(fmt.Sprintf("%s_%s", dt, e), dt, e, encoding.Uncompressed))
				}
			}
		}
		sw := newSweepWriter(t, wrap, 7, &WriteOptions{MaxPointsPerPage: 6})
		var cols []AlignedColumn
		for _, f := range fields {
			cols = append(cols, sw.col(f, 10, 0.2))
		}
		sw.aligned(NewDeviceID("root.enc", "al"), sw.times(0, 10, false), cols...)
		sw.nonAligned(NewDeviceID("root.enc", "na"), 0, 8, fields...)
		files = append(files, sw.done("encodings"))
	}
	for _, te := range []Encoding{encoding.Plain, encoding.RLE, encoding.Gorilla, encoding.ZigZag, encoding.Chimp, encoding.Sprintz, encoding.RLBE} {
		// Every time encoding of aligned time chunks (the time encoding of
		// non-aligned pages is not recorded in the file).
		sw := newSweepWriter(t, wrap, 8, &WriteOptions{MaxPointsPerPage: 7, ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(te)})
		sw.aligned(NewDeviceID("root.te", "d"), sw.times(1700000000000, 16, false), sw.col(plainSer("v", Int32), 16, 0.2))
		files = append(files, sw.done("time-"+te.String()))
	}
	{ // Internal device nodes (table and tree model) and internal
		// measurement nodes (non-aligned and aligned).
		sw := newSweepWriter(t, wrap, 9, &WriteOptions{MaxDegree: 2, MaxPointsPerPage: 4})
		v := plainSer("v", Int32)
		sw.table("deep", []string{"id"}, v)
		for d := 0; d < 9; d++ {
			sw.aligned(NewDeviceID("deep", fmt.Sprintf("dev%02d", d)), sw.times(0, 3, true), sw.col(v, 3, 0))
		}
		var many []SeriesSchema
		for i := 0; i < 7; i++ {
			many = append(many, plainSer(fmt.Sprintf("m%d", i), Int64))
		}
		sw.nonAligned(NewDeviceID("root.deep", "na"), 0, 5, many...)
		var cols []AlignedColumn
		for _, s := range many {
			cols = append(cols, sw.col(s, 5, 0.3))
		}
		sw.aligned(NewDeviceID("root.deep", "al"), sw.times(0, 5, false), cols...)
		for d := 0; d < 5; d++ {
			sw.nonAligned(NewDeviceID("root.deep", fmt.Sprintf("t%d", d)), 0, 2, v)
		}
		files = append(files, sw.done("deep-index"))
	}
	{ // No Bloom filter, no encryption properties, extra properties (one
		// null).
		sw := newSweepWriter(t, wrap, 10, &WriteOptions{NoBloomFilter: true, NoEncryptionProperties: true,
			Properties: []Property{{Key: "k", Value: []byte("v")}, {Key: "n", Null: true}, {Key: "", Value: []byte{}}}})
		sw.aligned(NewDeviceID("root.p", "d"), sw.times(0, 5, false), sw.col(plainSer("v", Float), 5, 0))
		files = append(files, sw.done("properties"))
	}
	return files
}

// interopFiles returns the upstream-written files that are present.
func interopFiles(t testing.TB) []sweepFile {
	var out []sweepFile
	paths, _ := filepath.Glob("../../shared/interop/*.tsfile")
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out = append(out, sweepFile{name: filepath.Base(p), data: b})
	}
	if len(out) == 0 {
		t.Log("interop files not present; sweeping the generated files and the sample only")
	}
	return out
}

func sampleFile(t testing.TB) sweepFile {
	b, err := os.ReadFile(samplePath)
	require.NoError(t, err)
	return sweepFile{name: "sample.tsfile", data: b}
}

// fullScan opens b and reads everything the public API reaches: every
// table's schema, devices, series (by walk and by name), every chunk (by
// ReadChunk through ReadAligned or ReadNonAligned, and by ReadChunkPages)
// and the Bloom filter.
func fullScan(b []byte, opts *ReadOptions) error {
	f, err := Open(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return err
	}
	for _, tb := range f.Tables() {
		f.SchemaOf(tb)
		devs, err := f.Devices(tb)
		if err != nil {
			return err
		}
		for _, d := range devs {
			series, err := f.Series(d)
			if err != nil {
				return err
			}
			if series == nil {
				return fmt.Errorf("device %s is listed by Devices but not found by Series", d)
			}
			aligned := false
			for i := range series {
				s := &series[i]
				// Value columns without a time column are an aligned
				// device without rows.
				aligned = aligned || s.IsTimeColumn() || s.IsValueColumn()
				// A lookup reads the whole leaf range it lands in; a few
				// per device keep the scan linear.
				if i == 0 || i == len(series)/2 || i == len(series)-1 {
					one, err := f.SeriesByName(d, s.Measurement)
					if err != nil {
						return err
					}
					if one == nil || one.Offset != s.Offset {
						return fmt.Errorf("SeriesByName(%s, %q) disagrees with Series", d, s.Measurement)
					}
				}
				f.Metadata.Bloom.MayContain(seriesPath(d, s.Measurement))
				for _, cm := range s.Chunks {
					if _, err := f.ReadChunkPages(cm.Offset, func(i int, _ *PageHeader) bool { return i%2 == 0 }); err != nil {
						return err
					}
				}
			}
			if aligned {
				if _, err := f.ReadAligned(series); err != nil {
					return err
				}
				continue
			}
			for i := range series {
				if _, _, err := f.ReadNonAligned(&series[i]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// scanState is a Scanner's position before a record, from a scan of the
// whole file, so that a scan of a prefix can resume shortly before the cut.
type scanState struct {
	rec   Record // the record that follows
	dev   DeviceID
	inGrp bool
}

// scanRecords scans the data section of a complete file.
func scanRecords(t testing.TB, b []byte) []scanState {
	s, err := NewScanner(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	var out []scanState
	for {
		st := scanState{dev: s.dev, inGrp: s.inGrp}
		if !s.Next() {
			break
		}
		st.rec = s.Record()
		st.rec.Chunk = nil
		out = append(out, st)
	}
	require.NoError(t, s.Err())
	require.Equal(t, SeparatorRecord, out[len(out)-1].rec.Kind)
	return out
}

// scanPrefix scans b[:n] from record from on (0 scans from the start) and
// returns how many records it produced and the scan error.
func scanPrefix(b []byte, n int, recs []scanState, from int) (int, error) {
	s, err := NewScanner(bytes.NewReader(b[:n]), int64(n), nil)
	if err != nil {
		return 0, err
	}
	if from > 0 {
		st := recs[from]
		s.pos, s.dev, s.inGrp = st.rec.Offset, st.dev, st.inGrp
	}
	k := from
	for s.Next() {
		r := s.Record()
		if k >= len(recs) || r.Offset != recs[k].rec.Offset || r.End != recs[k].rec.End || r.Kind != recs[k].rec.Kind {
			return k, fmt.Errorf("record %d of the prefix is %s [%d, %d), not the full file's", k, r.Kind, r.Offset, r.End)
		}
		k++
	}
	return k, s.Err()
}

// sweepTimeout bounds one case; a case taking longer counts as a hang.
const sweepTimeout = 20 * time.Second

// runCase runs fn with a deadline, turning a panic into an error that
// carries the stack.
func runCase(fn func() error) (panicked, hung bool, err error) {
	type result struct {
		err      error
		panicked bool
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- result{fmt.Errorf("panic: %v\n%s", p, debug.Stack()), true}
			}
		}()
		ch <- result{err: fn()}
	}()
	timer := time.NewTimer(sweepTimeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r.panicked, false, r.err
	case <-timer.C:
		return false, true, fmt.Errorf("no result after %v", sweepTimeout)
	}
}

// sweepCounts tallies the cases of a sweep.
type sweepCounts struct {
	files, offsets, cases, errs, oks int
	slowest                          time.Duration
	slowCase                         string
}

func (c sweepCounts) String() string {
	s := fmt.Sprintf("%d files, %d offsets, %d cases: %d errors, %d successes", c.files, c.offsets, c.cases, c.errs, c.oks)
	if c.slowCase != "" {
		s += fmt.Sprintf("; slowest case %s took %v", c.slowCase, c.slowest.Round(time.Microsecond))
	}
	return s
}

// timed records how long a case took.
func (c *sweepCounts) timed(start time.Time, what string) {
	if d := time.Since(start); d > c.slowest {
		c.slowest, c.slowCase = d, what
	}
}

// failures stops a sweep after a few reported failures.
type failures struct {
	t *testing.T
	n int
}

func (f *failures) report(format string, args ...any) {
	f.t.Helper()
	f.n++
	f.t.Errorf(format, args...)
	if f.n >= 10 {
		f.t.Fatalf("stopping after %d failures", f.n)
	}
}

// truncationOffsets returns the prefix lengths to try: all of a file up to
// 100 KiB; for a larger one every byte of the first and last 4 KiB, about
// 2000 evenly spread lengths, and every record and page boundary ±2.
func truncationOffsets(t testing.TB, b []byte, recs []scanState) []int {
	if len(b) <= 100<<10 {
		out := make([]int, len(b))
		for i := range out {
			out[i] = i
		}
		return out
	}
	set := map[int]bool{}
	add := func(n int) {
		if n >= 0 && n < len(b) {
			set[n] = true
		}
	}
	for i := 0; i < 4096; i++ {
		add(i)
		add(len(b) - 1 - i)
	}
	for i := 0; i < 2000; i++ {
		add(i * len(b) / 2000)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	for _, st := range recs {
		marks := []int64{st.rec.Offset, st.rec.End}
		if st.rec.Kind == ChunkRecord {
			c, err := f.ReadChunk(st.rec.Offset)
			require.NoError(t, err)
			marks = append(marks, c.Header.DataOffset())
			for _, p := range c.Pages {
				marks = append(marks, p.Header.Offset, p.Header.BodyOffset())
			}
		}
		for _, m := range marks {
			for d := -2; d <= 2; d++ {
				add(int(m) + d)
			}
		}
	}
	out := make([]int, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// TestTruncationSweep cuts every file at every byte (or a dense sample of
// a large file's bytes). A strict prefix never opens, since its tail magic
// is gone, and Open reports corruption, not an unsupported feature. The
// data-section Scanner reads the prefix: it returns exactly the records
// wholly inside the prefix, and then either reaches the separator (when
// the prefix holds it) or stops with an error wrapping ErrCorrupt.
func TestTruncationSweep(t *testing.T) {
	t.Parallel()
	files := append(sweepLayouts(t), sampleFile(t))
	files = append(files, interopFiles(t)...)
	t.Logf("truncation sweep: %s", truncationSweep(t, files))
}

// truncationSweep runs the truncation sweep over files and returns its
// tally.
func truncationSweep(t *testing.T, files []sweepFile) sweepCounts {
	var total sweepCounts
	for _, sf := range files {
		t.Run(sf.name, func(t *testing.T) {
			b := sf.data
			require.NoError(t, fullScan(b, nil), "the intact file must read")
			recs := scanRecords(t, b)
			sepEnd := int(recs[len(recs)-1].rec.End)
			// -short: about 400 cuts a file (see shortSample).
			offsets := sample.Short(truncationOffsets(t, b, recs), 400, uint64(len(b)))
			fail := &failures{t: t}
			var c sweepCounts
			c.files = 1
			for _, n := range offsets {
				c.offsets++
				// Scanning a large file from its start at every cut would
				// be quadratic: resume two records before the first
				// record the cut damages. The records before it parse the
				// same in the prefix as in the whole file.
				from := 0
				if len(b) > 32<<10 {
					from = sort.Search(len(recs), func(i int) bool { return recs[i].rec.End > int64(n) })
					from = max(0, from-2)
				}
				wantRecs := sort.Search(len(recs), func(i int) bool { return recs[i].rec.End > int64(n) })
				var got int
				var scanErr error
				panicked, hung, err := runCase(func() error {
					got, scanErr = scanPrefix(b, n, recs, from)
					return fullScan(b[:n], nil)
				})
				c.cases += 2
				switch {
				case hung: // the case still runs: stop before reusing its input
					t.Fatalf("prefix %d: %v", n, err)
				case panicked:
					fail.report("prefix %d: %v", n, err)
					continue
				case err == nil:
					fail.report("prefix %d of %d bytes opened", n, len(b))
				case !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported):
					fail.report("prefix %d: Open error is not ErrCorrupt: %v", n, err)
				default:
					c.errs++
				}
				switch {
				case scanErr == nil && n < sepEnd:
					fail.report("prefix %d: the scanner reached a separator at %d", n, sepEnd)
				case scanErr == nil:
					c.oks++
				case n >= sepEnd:
					fail.report("prefix %d holds the separator at %d, but the scan failed: %v", n, sepEnd-1, scanErr)
				case !errors.Is(scanErr, ErrCorrupt) || errors.Is(scanErr, ErrUnsupported):
					fail.report("prefix %d: scanner error is not ErrCorrupt: %v", n, scanErr)
				default:
					c.errs++
				}
				if got != wantRecs && n >= 7 {
					fail.report("prefix %d: the scanner returned %d records, %d lie wholly inside it (scan error %v)", n, got, wantRecs, scanErr)
				}
			}
			t.Logf("%s (%d bytes): %s", sf.name, len(b), c)
			total.files++
			total.offsets += c.offsets
			total.cases += c.cases
			total.errs += c.errs
			total.oks += c.oks
		})
	}
	return total
}

// corruptionOpts are the read options of the corruption sweep. One
// damaged byte of a TS_2DIFF time stream of regular timestamps can make a
// 24-byte page claim as many as MaxPagePoints allows (1 Mi by default,
// 8 MiB of timestamps to decode); a lower limit keeps each of the many
// cases fast without changing what is checked. TestDefaultPagePointsCost
// measures what a larger limit costs.
var corruptionOpts = &ReadOptions{MaxPagePoints: 1 << 16}

// lenientOpts are corruptionOpts with Lenient: a case damaged in the
// index or footer that fails strictly is read again leniently, which
// retries the footer with writer quirks and turns disagreeing series
// statistics into warnings. (Lenient changes nothing else in tsfile.)
var lenientOpts = &ReadOptions{MaxPagePoints: 1 << 16, Lenient: true}

// corruptionValues are the replacements tried at each offset.
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

// sampledCorruption names the layouts whose every-offset sweep would cost
// too much for every test run (many series make each full scan slow); they
// are corrupted at about sampledOffsets offsets spread over the file
// instead, with every replacement value.
var sampledCorruption = map[string]bool{"all-types": true, "encodings": true, "deep-index": true, "v3-deep-index": true,
	// Its structures are those of the multi-page and mixed files.
	"table-single-page": true,
	// Damage to a compressed payload mostly stops in the codec, which
	// the encoding package's fuzz targets cover.
	"compression-UNCOMPRESSED": true, "compression-SNAPPY": true, "compression-GZIP": true,
	"compression-LZ4": true, "compression-ZSTD": true, "compression-LZMA2": true}

const sampledOffsets = 700

// corruptionOffsets returns the offsets to corrupt in a file of n bytes.
func corruptionOffsets(name string, n int) []int {
	stride := 1
	if sampledCorruption[name] {
		stride = max(1, n/sampledOffsets)
	}
	var out []int
	for i := 0; i*stride < n; i++ {
		// The phase varies so that a stride does not keep hitting the
		// same byte of repeated structures.
		if off := i*stride + (i*7)%stride; off < n {
			out = append(out, off)
		}
	}
	return out
}

// TestCorruptionSweep replaces every byte of each generated file (a spread
// sample of the bytes of those in sampledCorruption) with a few values and
// reads the result through Open and a full scan, and through the Scanner.
// Each succeeds (the format has no checksums) or fails with an error
// wrapping ErrCorrupt or ErrUnsupported (an unknown encoding or
// compression byte); none panics or hangs. The logged errors and
// successes count both the read and the scan of each case.
func TestCorruptionSweep(t *testing.T) {
	t.Parallel()
	files := sweepLayouts(t)
	total, names := corruptionSweep(t, files)
	for _, must := range []string{"table-multipage-nulls", "tree-nonaligned", "mixed"} {
		require.True(t, names[must] && !sampledCorruption[must], "%s must be corrupted at every offset", must)
	}
	t.Logf("corruption sweep: %s", total)
}

// corruptionSweep runs the corruption sweep over files and returns its
// tally and the names of the files it swept.
func corruptionSweep(t *testing.T, files []sweepFile) (sweepCounts, map[string]bool) {
	var total sweepCounts
	names := map[string]bool{}
	for _, sf := range files {
		names[sf.name] = true
		t.Run(sf.name, func(t *testing.T) {
			good := sf.data
			buf := make([]byte, len(good))
			fail := &failures{t: t}
			var c sweepCounts
			c.files = 1
			lenientOK := 0
			f, err := Open(bytes.NewReader(good), int64(len(good)), nil)
			require.NoError(t, err)
			metaOffset := int(f.metaOffset)
			check := func(what string, off int, v byte, err error) {
				switch {
				case err == nil:
					c.oks++
				case errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported):
					c.errs++
				default:
					fail.report("offset %d = 0x%02x: %s error is neither ErrCorrupt nor ErrUnsupported: %v", off, v, what, err)
				}
			}
			// -short: about 300 offsets a file (see shortSample).
			for _, off := range sample.Short(corruptionOffsets(sf.name, len(good)), 300, uint64(len(good))) {
				c.offsets++
				for _, v := range corruptionValues(good[off]) {
					copy(buf, good)
					buf[off] = v
					var scanErr error
					start := time.Now()
					c.cases++
					panicked, hung, err := runCase(func() error {
						s, err := NewScanner(bytes.NewReader(buf), int64(len(buf)), corruptionOpts)
						if err == nil {
							for s.Next() {
							}
							err = s.Err()
						}
						scanErr = err
						if err := fullScan(buf, corruptionOpts); err != nil {
							if off < metaOffset {
								return err
							}
							if lerr := fullScan(buf, lenientOpts); lerr != nil && !errors.Is(lerr, ErrCorrupt) && !errors.Is(lerr, ErrUnsupported) {
								return fmt.Errorf("lenient read: %w", lerr)
							} else if lerr == nil {
								lenientOK++
							}
							return err
						}
						return nil
					})
					c.timed(start, fmt.Sprintf("offset %d = 0x%02x", off, v))
					if hung { // the case still runs: stop before reusing buf
						t.Fatalf("offset %d = 0x%02x: %v", off, v, err)
					}
					if panicked {
						fail.report("offset %d = 0x%02x: %v", off, v, err)
						continue
					}
					check("read", off, v, err)
					check("scan", off, v, scanErr)
				}
			}
			t.Logf("%s (%d bytes): %s (%d failed reads succeed leniently)", sf.name, len(good), c, lenientOK)
			total.files++
			total.offsets += c.offsets
			total.cases += c.cases
			total.errs += c.errs
			total.oks += c.oks
		})
	}
	return total, names
}
