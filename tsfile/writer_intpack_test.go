package tsfile

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// chunkEncodings returns the encoding byte of each chunk header of the series, in order.
func chunkEncodings(t *testing.T, f *File, ts *TimeseriesMetadata) []Encoding {
	t.Helper()
	var out []Encoding
	for _, c := range ts.Chunks {
		h, err := f.ReadChunkHeader(c.Offset)
		require.NoError(t, err)
		out = append(out, h.Encoding)
	}
	return out
}

// TestTsFile23OneValueChunks writes, in each TsFile 2.3 integer encoding, chunks whose pages
// hold one value (aligned and non-aligned, as value and as time encoding) and reads them
// back. The one page no LAMINAR block holds so that the upstream Java reader reads it, a single
// non-zero value, moves its chunk to TS_2DIFF (recorded in that chunk's header; the next chunk
// of the series keeps LAMINAR); pages of one zero, and every page of the other two encodings,
// keep the encoding asked for.
func TestTsFile23OneValueChunks(t *testing.T) {
	dev := NewDeviceID("root.sg", "d")
	int64s := func(v ...int64) Values { return Values{Type: Int64, Int64s: v} }
	tests := []struct {
		name     string
		enc      Encoding
		times    []int64
		v        Values
		perPage  int
		wantEnc  Encoding // of the value chunk (and, aligned, the time chunk: times are never 0 here)
		zeroTime bool
	}{
		{"DBP one value", encoding.DescendingBitPacking, []int64{1700000000000}, int64s(42), 0, encoding.DescendingBitPacking, false},
		{"SS one value", encoding.SeparateStorage, []int64{1700000000000}, int64s(42), 0, encoding.SeparateStorage, false},
		{"SS one zero", encoding.SeparateStorage, []int64{1700000000000}, int64s(0), 0, encoding.SeparateStorage, false},
		{"LAMINAR one value", encoding.Laminar, []int64{1700000000000}, int64s(42), 0, encoding.TS2Diff, false},
		{"LAMINAR one zero at time 0", encoding.Laminar, []int64{0}, int64s(0), 0, encoding.Laminar, true},
		{"LAMINAR last page of one", encoding.Laminar, []int64{10, 20, 30, 40, 50}, int64s(1, 2, 3, 4, -5), 2, encoding.TS2Diff, false},
		{"LAMINAR pages of two", encoding.Laminar, []int64{10, 20, 30, 40}, int64s(1, 0, 0, 4), 2, encoding.Laminar, false},
		{"DBP last page of one", encoding.DescendingBitPacking, []int64{10, 20, 30}, int64s(1, 2, 3), 2, encoding.DescendingBitPacking, false},
		{"SS last page of one", encoding.SeparateStorage, []int64{10, 20, 30}, int64s(1, 2, 3), 2, encoding.SeparateStorage, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w, err := NewWriter(&out, &WriteOptions{ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(tt.enc), MaxPointsPerPage: tt.perPage})
			require.NoError(t, err)
			schema := SeriesSchema{Name: "v", DataType: Int64, Encoding: tt.enc}
			require.NoError(t, w.WriteAligned(dev, tt.times, []AlignedColumn{{SeriesSchema: schema, Values: tt.v}}))
			// A second group of two rows: its chunks keep the encoding asked for.
			last := tt.times[len(tt.times)-1]
			require.NoError(t, w.WriteAligned(dev, []int64{last + 1, last + 2}, []AlignedColumn{{SeriesSchema: schema, Values: int64s(7, 8)}}))
			// Non-aligned, with TS_2DIFF times: LAMINAR times of one point are refused
			// (TestLaminarNonAlignedTimes).
			w.opts.TimeEncoding = TimeEncodingOf(encoding.TS2Diff)
			require.NoError(t, w.WriteNonAligned(NewDeviceID("root.sg", "n"), []NonAlignedSeries{{SeriesSchema: schema, Times: tt.times, Values: tt.v}}))
			require.NoError(t, w.Close())

			f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
			require.NoError(t, err)
			ss, err := f.Series(dev)
			require.NoError(t, err)
			got, err := f.ReadAligned(ss)
			require.NoError(t, err)
			require.Equal(t, append(append([]int64{}, tt.times...), last+1, last+2), got.Times)
			require.Equal(t, append(append([]int64{}, tt.v.Int64s...), 7, 8), got.Columns["v"].Int64s)
			for i := range ss {
				want := []Encoding{tt.wantEnc, tt.enc}
				if ss[i].IsTimeColumn() && tt.zeroTime {
					want[0] = tt.enc // time 0 is a zero value
				}
				require.Equal(t, want, chunkEncodings(t, f, &ss[i]), "aligned %q", ss[i].Measurement)
			}

			ns, err := f.Series(NewDeviceID("root.sg", "n"))
			require.NoError(t, err)
			require.Len(t, ns, 1)
			gt, gv, err := f.ReadNonAligned(&ns[0])
			require.NoError(t, err)
			require.Equal(t, tt.times, gt)
			require.Equal(t, tt.v.Int64s, gv.Int64s)
			require.Equal(t, []Encoding{tt.wantEnc}, chunkEncodings(t, f, &ns[0]))
		})
	}
}

// TestLaminarNullsAndInt32 covers the pages of aligned value chunks, which hold only the
// non-null values: a page of many rows but one non-null non-zero value moves its chunk to
// TS_2DIFF, one whose single non-null value is 0 does not; INT32 and DATE behave alike.
func TestLaminarNullsAndInt32(t *testing.T) {
	dev := NewDeviceID("root.sg", "d")
	times := []int64{1, 2, 3, 4}
	one := []bool{true, false, true, true}
	cols := []AlignedColumn{
		{SeriesSchema: SeriesSchema{Name: "i64", DataType: Int64, Encoding: encoding.Laminar}, Values: Values{Type: Int64, Int64s: []int64{0, -9, 0, 0}, Null: one}},
		{SeriesSchema: SeriesSchema{Name: "zero", DataType: Int64, Encoding: encoding.Laminar}, Values: Values{Type: Int64, Int64s: []int64{0, 0, 0, 0}, Null: one}},
		{SeriesSchema: SeriesSchema{Name: "i32", DataType: Int32, Encoding: encoding.Laminar}, Values: Values{Type: Int32, Int32s: []int32{0, 0, 0, 5}, Null: []bool{true, true, true, false}}},
		{SeriesSchema: SeriesSchema{Name: "date", DataType: Date, Encoding: encoding.Laminar}, Values: Values{Type: Date, Int32s: []int32{20261205, 0, 0, 0}, Null: []bool{false, true, true, true}}},
		{SeriesSchema: SeriesSchema{Name: "two", DataType: Int32, Encoding: encoding.Laminar}, Values: Values{Type: Int32, Int32s: []int32{0, 3, 0, 5}, Null: []bool{true, false, true, false}}},
		{SeriesSchema: SeriesSchema{Name: "none", DataType: Int32, Encoding: encoding.Laminar}, Values: Values{Type: Int32, Int32s: make([]int32, 4), Null: []bool{true, true, true, true}}},
	}
	want := map[string]Encoding{"": encoding.TS2Diff, "i64": encoding.TS2Diff, "zero": encoding.Laminar, "i32": encoding.TS2Diff, "date": encoding.TS2Diff, "two": encoding.Laminar, "none": encoding.Laminar}
	var out bytes.Buffer
	w, err := NewWriter(&out, nil)
	require.NoError(t, err)
	require.NoError(t, w.WriteAligned(dev, times, cols))
	require.NoError(t, w.Close())
	f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	require.NoError(t, err)
	ss, err := f.Series(dev)
	require.NoError(t, err)
	got, err := f.ReadAligned(ss)
	require.NoError(t, err)
	require.Equal(t, times, got.Times)
	for _, c := range cols {
		sameValues(t, &c.Values, got.Columns[c.Name], c.Name)
	}
	for i := range ss {
		require.Equal(t, []Encoding{want[ss[i].Measurement]}, chunkEncodings(t, f, &ss[i]), "%q", ss[i].Measurement)
	}
}

// TestLaminarNonAlignedTimes: a non-aligned chunk header records no time encoding, so a
// LAMINAR time stream of one non-zero time cannot fall back and the group is refused before
// any of it is written; the writer goes on and its file reads.
func TestLaminarNonAlignedTimes(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(encoding.Laminar), MaxPointsPerPage: 2})
	require.NoError(t, err)
	s := func(name string, times ...int64) NonAlignedSeries {
		return NonAlignedSeries{SeriesSchema: SeriesSchema{Name: name, DataType: Int64, Encoding: encoding.Plain}, Times: times, Values: Values{Type: Int64, Int64s: make([]int64, len(times))}}
	}
	before := w.Offset()
	err = w.WriteNonAligned(NewDeviceID("root.sg", "bad"), []NonAlignedSeries{s("ok", 1, 2), s("last", 1, 2, 3)})
	require.ErrorIs(t, err, encoding.ErrLaminarSingleValue)
	require.ErrorContains(t, err, "series root.sg.bad.last: page of the one point at time 3")
	require.Equal(t, before, w.Offset(), "nothing of the refused group is written")

	require.NoError(t, w.WriteNonAligned(NewDeviceID("root.sg", "good"), []NonAlignedSeries{s("a", 1, 2, 3, 4), s("zero", 0)}))
	require.NoError(t, w.Close())
	f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), &ReadOptions{NonAlignedTimeEncoding: TimeEncodingOf(encoding.Laminar)})
	require.NoError(t, err)
	ss, err := f.Series(NewDeviceID("root.sg", "good"))
	require.NoError(t, err)
	require.Len(t, ss, 2)
	for i := range ss {
		gt, _, err := f.ReadNonAligned(&ss[i])
		require.NoError(t, err)
		if ss[i].Measurement == "a" {
			require.Equal(t, []int64{1, 2, 3, 4}, gt)
		} else {
			require.Equal(t, []int64{0}, gt)
		}
	}
	bad, err := f.Series(NewDeviceID("root.sg", "bad"))
	if err == nil {
		require.Empty(t, bad, "the refused group left no series")
	}
}
