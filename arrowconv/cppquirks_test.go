package arrowconv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Files with the value-codec quirks of the C++ TsFile writer of early 2025
// (issue 30), built with our writer: pages whose bodies are byte for byte
// what that writer writes, with the statistics it writes (those of the true
// values).
//
// The bodies come out of our writer directly, because each quirk's layout
// is a conformant layout of other values or another type:
//   - INT32 PLAIN uvarint(uint32(v << 1)) is the zigzag varint of
//     w = uint32(v << 1) >> 1, so writing w gives v's bytes;
//   - FLOAT/DOUBLE TS_2DIFF over the raw bits is INT32/INT64 TS_2DIFF of
//     those bits (the same blocks), so writing the bits as INT32/INT64 and
//     then setting the type bytes to FLOAT/DOUBLE gives them.
//
// A second file of the true values, laid out alike, gives the statistics,
// whose serializations have the same length (INT32's and FLOAT's, INT64's
// and DOUBLE's), so every size and offset stays as our writer wrote it.

// cppRows are the timestamps of the quirk files: three pages of 4.
var cppRows = []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120}

// cppInt32s are INT32 values within [-2^30, 2^30), which the C++ writer's
// v << 1 keeps; with extreme, page 1 holds MinInt32 and MaxInt32, which it
// does not.
func cppInt32s(extreme bool) []int32 {
	v := []int32{5, -3, 1<<30 - 1, -1 << 30, 7, -1, 0, 12, 1, 2, 3, 4}
	if extreme {
		v[5], v[6] = math.MinInt32, math.MaxInt32
	}
	return v
}

// cppFloat32s: per page of 4, values whose raw bits differ by less than
// 2^31 up and down (the C++ encoder loses a block whose deltas span more):
// positive subnormals and zero; NaN and infinity; the negative zero, a
// negative subnormal and infinity.
func cppFloat32s() []float32 {
	return []float32{
		1e-40, math.SmallestNonzeroFloat32, 0, 1.5,
		float32(math.NaN()), float32(math.Inf(1)), math.MaxFloat32, 3e38,
		float32(math.Copysign(0, -1)), -math.SmallestNonzeroFloat32, float32(math.Inf(-1)), -math.MaxFloat32,
	}
}

func cppFloat64s() []float64 {
	return []float64{
		1e-310, math.SmallestNonzeroFloat64, 0, 1.5,
		math.NaN(), math.Inf(1), math.MaxFloat64, 3e307,
		math.Copysign(0, -1), -math.SmallestNonzeroFloat64, math.Inf(-1), -math.MaxFloat64,
	}
}

// cppQuirkFile writes an aligned device root.v.al and a non-aligned device
// root.v.na, each with series i32 (INT32 PLAIN), f32bits (FLOAT TS_2DIFF)
// and f64bits (DOUBLE TS_2DIFF) in the C++ writer's layouts, over
// cppRows. With extreme, see cppInt32s.
func cppQuirkFile(t testing.TB, extreme bool) []byte {
	trueI32 := cppInt32s(extreme)
	w := make([]int32, len(trueI32))
	for i, v := range trueI32 {
		w[i] = int32(uint32(v<<1) >> 1)
	}
	f32, f64 := cppFloat32s(), cppFloat64s()
	bits32, bits64 := make([]int32, len(f32)), make([]int64, len(f64))
	for i := range f32 {
		bits32[i], bits64[i] = int32(math.Float32bits(f32[i])), int64(math.Float64bits(f64[i]))
	}
	quirky := cppWrite(t, []tsfile.AlignedColumn{
		cppCol("i32", tsfile.Int32, encoding.Plain, tsfile.Values{Type: tsfile.Int32, Int32s: w}),
		cppCol("f32bits", tsfile.Int32, encoding.TS2Diff, tsfile.Values{Type: tsfile.Int32, Int32s: bits32}),
		cppCol("f64bits", tsfile.Int64, encoding.TS2Diff, tsfile.Values{Type: tsfile.Int64, Int64s: bits64}),
	})
	truth := cppWrite(t, []tsfile.AlignedColumn{
		cppCol("i32", tsfile.Int32, encoding.Plain, tsfile.Values{Type: tsfile.Int32, Int32s: trueI32}),
		cppCol("f32bits", tsfile.Float, encoding.Plain, tsfile.Values{Type: tsfile.Float, Float32s: f32}),
		cppCol("f64bits", tsfile.Double, encoding.Plain, tsfile.Values{Type: tsfile.Double, Float64s: f64}),
	})
	out := bytes.Clone(quirky)
	qf := cppOpen(t, quirky, tsfile.ReadOptions{})
	tf := cppOpen(t, truth, tsfile.ReadOptions{})
	for _, dev := range []string{"al", "na"} {
		id := tsfile.NewDeviceID("root", "v", dev)
		qs, err := qf.Series(id)
		require.NoError(t, err)
		ts, err := tf.Series(id)
		require.NoError(t, err)
		require.Equal(t, len(ts), len(qs))
		for k := range qs {
			q, tr := &qs[k], &ts[k]
			require.Equal(t, tr.Measurement, q.Measurement)
			if q.Measurement == "" {
				continue
			}
			out = cppReplace(t, out, q.Statistics.AppendTo(nil), tr.Statistics.AppendTo(nil))
			require.Len(t, q.Chunks, 1)
			c, err := qf.ReadChunk(q.Chunks[0].Offset)
			require.NoError(t, err)
			tc, err := tf.ReadChunk(tr.Chunks[0].Offset)
			require.NoError(t, err)
			require.Len(t, c.Pages, 3)
			for i := range c.Pages {
				out = cppReplace(t, out, c.Pages[i].Header.Statistics.AppendTo(nil), tc.Pages[i].Header.Statistics.AppendTo(nil))
				// The page body is what the C++ writer writes for the true values.
				var vals []byte
				if dev == "al" {
					_, _, vals, err = tsfile.SplitValuePage(c.Pages[i].Stored, c.Pages[i].Header.BodyOffset())
				} else {
					_, vals, err = tsfile.SplitNonAlignedPage(c.Pages[i].Stored, c.Pages[i].Header.BodyOffset())
				}
				require.NoError(t, err)
				page := func(n int) (int, int) { return 4 * i, min(4*i+4, n) }
				switch q.Measurement {
				case "i32":
					lo, hi := page(len(trueI32))
					var want []byte
					for _, v := range trueI32[lo:hi] {
						want = binary.AppendUvarint(want, uint64(uint32(v<<1))) // SerializationUtil::write_var_int
					}
					require.Equal(t, want, vals, "%s page %d", q.Measurement, i)
				case "f32bits":
					lo, hi := page(len(f32))
					require.Equal(t, encoding.AppendTS2DiffFloat32Bits(nil, f32[lo:hi]), vals, "%s page %d", q.Measurement, i)
				case "f64bits":
					lo, hi := page(len(f64))
					require.Equal(t, encoding.AppendTS2DiffFloat64Bits(nil, f64[lo:hi]), vals, "%s page %d", q.Measurement, i)
				}
			}
			if tr.DataType != q.DataType {
				// The chunk header's data type, third byte from its end.
				out[c.Header.Offset+int64(c.Header.HeaderSize)-3] = byte(tr.DataType)
				// TimeseriesMetadata: the name, then the data type.
				name := q.Measurement
				out = cppReplace(t, out, []byte(name+string(rune(q.DataType))), []byte(name+string(rune(tr.DataType))))
			}
		}
	}
	return out
}

func cppCol(name string, dt tsfile.DataType, enc tsfile.Encoding, v tsfile.Values) tsfile.AlignedColumn {
	return tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: name, DataType: dt, Encoding: enc, Compression: encoding.Uncompressed}, Values: v}
}

func cppWrite(t testing.TB, cols []tsfile.AlignedColumn) []byte {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{MaxPointsPerPage: 4, ConfiguredTimeEncoding: true, TimeEncoding: tsfile.TimeEncodingOf(encoding.Plain)})
	require.NoError(t, err)
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("root", "v", "al"), cppRows, cols))
	var series []tsfile.NonAlignedSeries
	for _, c := range cols {
		series = append(series, tsfile.NonAlignedSeries{SeriesSchema: c.SeriesSchema, Times: cppRows, Values: c.Values})
	}
	require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root", "v", "na"), series))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// cppOpen opens b with o and verifyReadOpts' time encoding.
func cppOpen(t testing.TB, b []byte, o tsfile.ReadOptions) *tsfile.File {
	t.Helper()
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), verifyReadOpts(o))
	require.NoError(t, err)
	return f
}

// cppReplace replaces every occurrence of old in b with nw of the same
// length; there must be one, unless an earlier call replaced them (the two
// devices share values).
func cppReplace(t testing.TB, b, old, nw []byte) []byte {
	require.Len(t, nw, len(old))
	require.True(t, bytes.Contains(b, old) || bytes.Contains(b, nw), "pattern % x not found", old)
	return bytes.ReplaceAll(b, old, nw)
}

// cppWantRows are the rows readTree gives for cppQuirkFile's true values:
// root.v.al then root.v.na, each row time, device, i32, f32bits, f64bits.
func cppWantRows(t testing.TB, i32 []int32) [][]string {
	f32, f64 := cppFloat32s(), cppFloat64s()
	truth := cppWrite(t, []tsfile.AlignedColumn{
		cppCol("i32", tsfile.Int32, encoding.Plain, tsfile.Values{Type: tsfile.Int32, Int32s: i32}),
		cppCol("f32bits", tsfile.Float, encoding.Gorilla, tsfile.Values{Type: tsfile.Float, Float32s: f32}),
		cppCol("f64bits", tsfile.Double, encoding.Gorilla, tsfile.Values{Type: tsfile.Double, Float64s: f64}),
	})
	rows, warns, err := readTree(t, truth, tsfile.ReadOptions{}, 1)
	require.NoError(t, err)
	require.Empty(t, warns)
	require.Len(t, rows, 2*len(cppRows))
	return rows
}

// TestCppFloatTS2DiffBits: FLOAT/DOUBLE TS_2DIFF pages over raw bits read
// bit for bit (NaN, infinities, -0, subnormals) without any option, with
// one warning naming the quirk, through arrowconv and tsfile's row
// helpers alike.
func TestCppFloatTS2DiffBits(t *testing.T) {
	b := cppQuirkFile(t, false)
	// With the INT32 column read leniently, all of the file reads.
	want := cppWantRows(t, cppInt32s(false))
	for _, workers := range []int{1, 3} {
		rows, warns, err := readTree(t, b, tsfile.ReadOptions{Lenient: true}, workers)
		require.NoError(t, err)
		require.Equal(t, want, rows)
		var msgs []string
		for _, w := range warns {
			msgs = append(msgs, w.Msg)
		}
		require.Len(t, msgs, 2, "%q", msgs)
		require.Contains(t, msgs[0]+msgs[1], "FLOAT/DOUBLE TS_2DIFF over the raw IEEE-754 bits")
		require.Contains(t, msgs[0]+msgs[1], "C++ TsFile writer of early 2025")
	}

	// tsfile's row helpers, lenient for the INT32 column.
	f := cppOpen(t, b, tsfile.ReadOptions{Lenient: true})
	check := func(what string, v *tsfile.Values) {
		for i, x := range cppFloat32s() {
			if v.Type == tsfile.Float {
				require.Equal(t, math.Float32bits(x), math.Float32bits(v.Float32s[i]), "%s value %d", what, i)
			} else {
				require.Equal(t, math.Float64bits(cppFloat64s()[i]), math.Float64bits(v.Float64s[i]), "%s value %d", what, i)
			}
		}
	}
	ss, err := f.Series(tsfile.NewDeviceID("root", "v", "al"))
	require.NoError(t, err)
	cols, err := f.ReadAligned(ss)
	require.NoError(t, err)
	check("aligned FLOAT", cols.Columns["f32bits"])
	check("aligned DOUBLE", cols.Columns["f64bits"])
	ss, err = f.Series(tsfile.NewDeviceID("root", "v", "na"))
	require.NoError(t, err)
	for k := range ss {
		if ss[k].DataType == tsfile.Float || ss[k].DataType == tsfile.Double {
			_, got, err := f.ReadNonAligned(&ss[k])
			require.NoError(t, err)
			check("non-aligned "+ss[k].Measurement, &got)
		}
	}
	require.NotZero(t, f.Quirks()&tsfile.QuirkFloatTS2DIFFBits)
}

// TestCppInt32PlainShift: INT32 PLAIN pages of the C++ writer fail
// verification naming the page and the likely writer; under Lenient they
// read as int32(u) >> 1, with one warning. Values that writer could not
// keep (MinInt32, MaxInt32) match their statistics in neither reading and
// never read silently.
func TestCppInt32PlainShift(t *testing.T) {
	b := cppQuirkFile(t, false)
	for _, workers := range []int{1, 3} {
		_, _, err := readTree(t, b, tsfile.ReadOptions{}, workers)
		require.ErrorIs(t, err, tsfile.ErrCorrupt)
		msg := err.Error()
		require.Contains(t, msg, `INT32 chunk "i32"`)
		require.Contains(t, msg, "page 0")
		require.Contains(t, msg, "read as INT32 PLAIN written as uvarint(v << 1), the page matches them: likely written by the C++ TsFile writer of early 2025")
		require.Contains(t, msg, "read with --lenient")
	}
	want := cppWantRows(t, cppInt32s(false))
	rows, warns, err := readTree(t, b, tsfile.ReadOptions{Lenient: true}, 2)
	require.NoError(t, err)
	require.Equal(t, want, rows)
	require.Len(t, warns, 2)
	require.Contains(t, warns[0].Msg+warns[1].Msg, "INT32 PLAIN written as uvarint(v << 1)")

	// tsfile's row helpers alike.
	f := cppOpen(t, b, tsfile.ReadOptions{})
	ss, err := f.Series(tsfile.NewDeviceID("root", "v", "al"))
	require.NoError(t, err)
	_, err = f.ReadAligned(ss)
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.Contains(t, err.Error(), "likely written by the C++ TsFile writer")
	f = cppOpen(t, b, tsfile.ReadOptions{Lenient: true})
	cols, err := f.ReadAligned(ss)
	require.NoError(t, err)
	require.Equal(t, cppInt32s(false), cols.Columns["i32"].Int32s)
	require.Equal(t, tsfile.QuirkInt32PlainShift|tsfile.QuirkFloatTS2DIFFBits, f.Quirks())

	// MinInt32 and MaxInt32 in page 1: the page fails in both readings,
	// strict and lenient alike never with the quirk's reading.
	x := cppQuirkFile(t, true)
	_, _, err = readTree(t, x, tsfile.ReadOptions{}, 1)
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.Contains(t, err.Error(), "page 0") // page 0 still matches the quirk
	rows, warns, err = readTree(t, x, tsfile.ReadOptions{Lenient: true}, 1)
	require.NoError(t, err)
	var page1 []string
	for _, w := range warns {
		if bytes.Contains([]byte(w.Msg), []byte("page 1")) {
			page1 = append(page1, w.Msg)
		}
	}
	require.Len(t, page1, 2, "page 1 of each device warns as damaged: %q", warns)
	require.Contains(t, page1[0], "the page body or its statistics are damaged")
	// Its rows are the format's reading, with the warning: never the
	// statistics' values, which no reading gives.
	for _, r := range rows {
		require.NotEqual(t, "-2147483648", r[2])
	}
	// tsfile's row helpers alike.
	f = cppOpen(t, x, tsfile.ReadOptions{Lenient: true})
	cols, err = f.ReadAligned(ss)
	require.NoError(t, err)
	require.Equal(t, cppInt32s(false)[:4], cols.Columns["i32"].Int32s[:4])
	require.NotEqual(t, int32(math.MinInt32), cols.Columns["i32"].Int32s[5])
	// ReadAligned visits the columns in map order, so the warnings come
	// in any order: one of them is page 1's damage.
	var damaged []string
	for _, w := range f.Warnings() {
		if strings.Contains(w.Msg, "page 1: ") {
			damaged = append(damaged, w.Msg)
		}
	}
	require.Len(t, damaged, 1, "%q", f.Warnings())
	require.Contains(t, damaged[0], "the page body or its statistics are damaged")
}

// TestCppQuirksNoFalsePositive: conformant files read exactly as before
// with no quirk noted: our writer's FLOAT/DOUBLE TS_2DIFF (the Java
// layout) and INT32 PLAIN with negative values, the interop corpus and
// sample.tsfile.
func TestCppQuirksNoFalsePositive(t *testing.T) {
	i32 := cppInt32s(true)
	f32, f64 := cppFloat32s(), cppFloat64s()
	for i := range f32 { // values the Java layout keeps: it scales by 100
		if math.IsNaN(float64(f32[i])) || math.IsInf(float64(f32[i]), 0) || math.Abs(float64(f32[i])) > 1e7 || (f32[i] != 0 && math.Abs(float64(f32[i])) < 1) {
			f32[i] = float32(i) - 5.25
		}
		if math.IsNaN(f64[i]) || math.IsInf(f64[i], 0) || math.Abs(f64[i]) > 1e15 || (f64[i] != 0 && math.Abs(f64[i]) < 1) {
			f64[i] = float64(i) - 5.75
		}
	}
	b := cppWrite(t, []tsfile.AlignedColumn{
		cppCol("i32", tsfile.Int32, encoding.Plain, tsfile.Values{Type: tsfile.Int32, Int32s: i32}),
		cppCol("f32bits", tsfile.Float, encoding.TS2Diff, tsfile.Values{Type: tsfile.Float, Float32s: f32}),
		cppCol("f64bits", tsfile.Double, encoding.TS2Diff, tsfile.Values{Type: tsfile.Double, Float64s: f64}),
	})
	rows, warns, err := readTree(t, b, tsfile.ReadOptions{Lenient: true}, 2)
	require.NoError(t, err)
	require.Empty(t, warns)
	want, _, err := readTree(t, b, tsfile.ReadOptions{NoVerify: true}, 1)
	require.NoError(t, err)
	require.Equal(t, want, rows)
	require.Equal(t, []string{"10", "root.v.al", "5", "f32:c0a80000", "f64:c017000000000000"}, rows[0]) // -5.25, -5.75
	require.Equal(t, "-2147483648", rows[5][2])
	f := cppOpen(t, b, tsfile.ReadOptions{})
	ss, err := f.Series(tsfile.NewDeviceID("root", "v", "al"))
	require.NoError(t, err)
	cols, err := f.ReadAligned(ss)
	require.NoError(t, err)
	require.Equal(t, i32, cols.Columns["i32"].Int32s)
	require.Equal(t, f32, cols.Columns["f32bits"].Float32s)
	require.Zero(t, f.Quirks())
}

// TestCppQuirksNoFalsePositiveCorpus: the upstream Java files of the
// interop corpus and sample.tsfile read with no writer quirk noted and no
// warning, even under Lenient, where the INT32 quirk would apply.
func TestCppQuirksNoFalsePositiveCorpus(t *testing.T) {
	for _, p := range sampleAndJava(t) {
		t.Run(p, func(t *testing.T) {
			f, err := tsfile.OpenFile(p, &tsfile.ReadOptions{Lenient: true})
			require.NoError(t, err)
			defer f.Close()
			mem := checkedMem(t)
			var readers []*Reader
			if tables := f.Tables(); len(tables) > 0 && !strings.Contains(p, "tree") {
				for _, tb := range tables {
					r, err := NewTableReader(f, tb, &Options{Allocator: mem})
					require.NoError(t, err)
					readers = append(readers, r)
				}
			} else {
				r, err := NewTreeReader(f, "", &Options{Allocator: mem})
				require.NoError(t, err)
				readers = append(readers, r)
			}
			rows := 0
			for _, r := range readers {
				rows += len(drain(t, r).rows)
			}
			require.NotZero(t, rows)
			require.Zero(t, f.Quirks())
			require.Empty(t, f.Warnings())
		})
	}
}

// TestCppFloatTS2DiffBitsEachPath reads each FLOAT/DOUBLE series alone,
// strictly, through each decode path: arrowconv's aligned and non-aligned
// ones and tsfile's ReadAligned and ReadNonAligned. Each notes the quirk.
func TestCppFloatTS2DiffBitsEachPath(t *testing.T) {
	b := cppQuirkFile(t, false)
	want := cppWantRows(t, cppInt32s(false))
	for _, dev := range []string{"al", "na"} {
		id := tsfile.NewDeviceID("root", "v", dev)
		for col, name := range []string{"f32bits", "f64bits"} {
			t.Run(dev+"/"+name, func(t *testing.T) {
				f := cppOpen(t, b, tsfile.ReadOptions{})
				mem := checkedMem(t)
				r, err := NewTreeReader(f, "", &Options{Allocator: mem, Columns: []string{name}, Devices: []tsfile.DeviceID{id}})
				require.NoError(t, err)
				got := drain(t, r)
				require.Len(t, got.rows, len(cppRows))
				off := 0
				if dev == "na" {
					off = len(cppRows)
				}
				for i, row := range got.rows {
					require.Equal(t, want[off+i][3+col], row[len(row)-1], "row %d", i)
				}
				require.Equal(t, tsfile.QuirkFloatTS2DIFFBits, f.Quirks())
				require.Len(t, f.Warnings(), 1)

				f = cppOpen(t, b, tsfile.ReadOptions{})
				ss, err := f.Series(id)
				require.NoError(t, err)
				var v *tsfile.Values
				for k := range ss {
					if ss[k].Measurement != name {
						continue
					}
					if dev == "al" {
						cols, err := f.ReadAligned([]tsfile.TimeseriesMetadata{ss[0], ss[k]})
						require.NoError(t, err)
						v = cols.Columns[name]
					} else {
						_, got, err := f.ReadNonAligned(&ss[k])
						require.NoError(t, err)
						v = &got
					}
				}
				require.NotNil(t, v)
				for i := range cppRows {
					if col == 0 {
						require.Equal(t, math.Float32bits(cppFloat32s()[i]), math.Float32bits(v.Float32s[i]))
					} else {
						require.Equal(t, math.Float64bits(cppFloat64s()[i]), math.Float64bits(v.Float64s[i]))
					}
				}
				require.Equal(t, tsfile.QuirkFloatTS2DIFFBits, f.Quirks())
			})
		}
	}
}

// TestCppWrittenFiles reads files the C++ writer itself wrote
// (testdata/cpp-codec): the values of codec.tsfile bit for bit, and the
// pages of codec-lossy.tsfile that writer lost are never read silently.
func TestCppWrittenFiles(t *testing.T) {
	read := func(path string, o tsfile.ReadOptions, cols ...string) (*table, *tsfile.File, error) {
		f, err := tsfile.OpenFile(path, &o)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t), Columns: cols, BatchSize: 5})
		require.NoError(t, err)
		defer r.Release()
		var got table
		for r.Next() {
			rec := r.RecordBatch()
			got.rows = appendRows(got.rows, rec)
		}
		return &got, f, r.Err()
	}
	const dir = "../testdata/cpp-codec/"
	i32 := []int32{5, -3, 1<<30 - 1, -1 << 30, 7, -1, 0, 12, 1, 2, 3, -4}
	f32, f64 := cppFloat32s(), cppFloat64s()
	f64[4] = math.Float64frombits(0x7FF8000000000000) // C's NAN, which gen.cpp wrote
	want := func(r int) []string {
		return []string{fmt.Sprint(1700000000000 + int64(r)*1000), "root.sg.d1",
			fmt.Sprintf("f32:%08x", math.Float32bits(f32[r])), fmt.Sprintf("f64:%016x", math.Float64bits(f64[r])), fmt.Sprint(i32[r])}
	}

	// The floats alone read strictly, with one warning naming the quirk.
	got, f, err := read(dir+"codec.tsfile", tsfile.ReadOptions{}, "f32", "f64")
	require.NoError(t, err)
	require.Len(t, got.rows, 12)
	for r, row := range got.rows {
		w := want(r)
		require.Equal(t, []string{w[0], w[2], w[3]}, row, "row %d", r) // projected: no device column
	}
	require.Equal(t, tsfile.QuirkFloatTS2DIFFBits, f.Quirks())
	require.Len(t, f.Warnings(), 1)

	// The INT32 column fails strictly naming the page and the writer.
	_, _, err = read(dir+"codec.tsfile", tsfile.ReadOptions{})
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.Contains(t, err.Error(), `INT32 chunk "i32" at offset 703, page 0: min is 5 in the page body but -1073741824 in its statistics; read as INT32 PLAIN written as uvarint(v << 1), the page matches them: likely written by the C++ TsFile writer of early 2025`)

	got, f, err = read(dir+"codec.tsfile", tsfile.ReadOptions{Lenient: true})
	require.NoError(t, err)
	require.Len(t, got.rows, 12)
	for r, row := range got.rows {
		require.Equal(t, want(r), row, "row %d", r)
	}
	require.Equal(t, tsfile.QuirkFloatTS2DIFFBits|tsfile.QuirkInt32PlainShift, f.Quirks())
	require.Len(t, f.Warnings(), 2)

	// The lost pages fail strictly; under Lenient each is a warning of
	// damage, never the quirk's reading.
	_, _, err = read(dir+"codec-lossy.tsfile", tsfile.ReadOptions{}, "f32")
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.Contains(t, err.Error(), `FLOAT chunk "f32" at offset 19, page 0: last is`)
	require.Contains(t, err.Error(), "likely by the C++ TsFile writer of early 2025 (the Python tsfile package), whose TS_2DIFF blocks")
	_, _, err = read(dir+"codec-lossy.tsfile", tsfile.ReadOptions{}, "i32")
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.Contains(t, err.Error(), "likely written by the C++ TsFile writer") // page 0 is the quirk's
	_, f, err = read(dir+"codec-lossy.tsfile", tsfile.ReadOptions{Lenient: true})
	require.NoError(t, err)
	var damaged []string
	for _, w := range f.Warnings() {
		// The float pages in the writer's raw-bits layout name its
		// TS_2DIFF flaw; the INT32 page, whose writer the page does not
		// tell, is damage.
		if strings.Contains(w.Msg, "are damaged") || strings.Contains(w.Msg, "lose the deltas beyond the signed range") {
			damaged = append(damaged, w.Msg[strings.Index(w.Msg, "chunk"):strings.Index(w.Msg, ":")])
		}
	}
	// Workers decode the series side by side, so the warnings come in
	// any order.
	require.ElementsMatch(t, []string{`chunk "f32" at offset 19, page 0`, `chunk "f64" at offset 293, page 0`, `chunk "i32" at offset 655, page 1`}, damaged)
}
