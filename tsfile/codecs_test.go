package tsfile

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// The (type, encoding) pairs of Encodings.md and the compressions of
// Compression.md; every combination must survive the writer and reader.
var (
	allEncodings = []Encoding{encoding.Plain, encoding.Dictionary, encoding.RLE, encoding.TS2Diff, encoding.GorillaV1,
		encoding.Gorilla, encoding.ZigZag, encoding.Chimp, encoding.Sprintz, encoding.RLBE, encoding.Camel,
		encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar}
	allCompressions = []Compression{encoding.Uncompressed, encoding.Snappy, encoding.Gzip, encoding.LZ4, encoding.ZSTD, encoding.LZMA2}
)

// lossy reports whether a pair stores floats scaled to two decimals, as
// the reference's RLE and TS_2DIFF do.
func lossy(t DataType, e Encoding) bool {
	return (t == Float || t == Double) && (e == encoding.RLE || e == encoding.TS2Diff)
}

// codecValues makes values the lossy pairs can carry (two decimals, in
// range) and, for the others, the extremes too.
func codecValues(r *rand.Rand, t DataType, e Encoding, n int, nullRate float64) Values {
	v := randomValues(r, t, n, nullRate)
	if e == encoding.GorillaV1 {
		// The writer refuses NaN under GORILLA_V1, which upstream readers
		// take for the end of the page (TestWriterRefusesGorillaV1NaN).
		for i := range n {
			if t == Float && v.Float32s[i] != v.Float32s[i] {
				v.Float32s[i] = math.Float32frombits(math.Float32bits(v.Float32s[i]) &^ (1 << 30))
			}
			if t == Double && math.IsNaN(v.Float64s[i]) {
				v.Float64s[i] = math.Float64frombits(math.Float64bits(v.Float64s[i]) &^ (1 << 62))
			}
		}
	}
	if !lossy(t, e) {
		return v
	}
	for i := range n {
		k := float64(r.IntN(2_000_000) - 1_000_000)
		if t == Float {
			v.Float32s[i] = float32(k / 100)
		} else {
			v.Float64s[i] = k / 100
		}
	}
	return v
}

// sameLossy compares scaled floats to the precision they were stored at.
func sameLossy(t *testing.T, want, got *Values, what string) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len(), what)
	for i := 0; i < want.Len(); i++ {
		require.Equal(t, want.IsNull(i), got.IsNull(i), "%s: null at %d", what, i)
		if want.IsNull(i) {
			continue
		}
		var w, g float64
		if want.Type == Float {
			w, g = float64(want.Float32s[i]), float64(got.Float32s[i])
		} else {
			w, g = want.Float64s[i], got.Float64s[i]
		}
		require.InDelta(t, w, g, 0.0051, "%s[%d]", what, i)
	}
}

func TestEveryEncodingAndCompression(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 4))
	var pairs []SeriesSchema
	for _, dt := range allValueTypes {
		for _, e := range allEncodings {
			if !encodingAllowed(dt, e) {
				continue
			}
			for _, c := range allCompressions {
				pairs = append(pairs, SeriesSchema{Name: fmt.Sprintf("%s_%s_%s", dt, e, c), DataType: dt, Encoding: e, Compression: c})
			}
		}
	}
	// -short: each time encoding's file holds every (type, encoding) pair
	// once, under one compression that turns with the pair and the time
	// encoding, so that every compression still meets every encoding
	// across the files.
	timeEncodings := []Encoding{encoding.Plain, encoding.TS2Diff, encoding.RLE, encoding.Gorilla, encoding.ZigZag, encoding.Chimp, encoding.Sprintz, encoding.RLBE}
	var short [][]SeriesSchema
	if testing.Short() {
		for k := range timeEncodings {
			var some []SeriesSchema
			for i := 0; i < len(pairs); i += len(allCompressions) {
				some = append(some, pairs[i+(i/len(allCompressions)+k)%len(allCompressions)])
			}
			short = append(short, some)
		}
	}
	for k, timeEnc := range timeEncodings {
		t.Run("time="+timeEnc.String(), func(t *testing.T) {
			pairs := pairs
			if short != nil {
				pairs = short[k]
			}
			var out bytes.Buffer
			w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 300, ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(timeEnc), TimeCompression: encoding.LZ4})
			require.NoError(t, err)
			const rows = 700
			times := make([]int64, rows)
			base := int64(1700000000000)
			for i := range times {
				base += int64(1 + r.IntN(2000))
				times[i] = base
			}
			aligned := map[string]Values{}
			var cols []AlignedColumn
			var series []NonAlignedSeries
			for _, p := range pairs {
				v := codecValues(r, p.DataType, p.Encoding, rows, 0.1)
				aligned[p.Name] = v
				cols = append(cols, AlignedColumn{SeriesSchema: p, Values: v})
				dense := codecValues(r, p.DataType, p.Encoding, rows, 0)
				series = append(series, NonAlignedSeries{SeriesSchema: p, Times: times, Values: dense})
			}
			if err := w.WriteAligned(NewDeviceID("root.a", "aligned"), times, cols); err != nil {
				require.NoError(t, err)
			}
			require.NoError(t, w.WriteNonAligned(NewDeviceID("root.a", "plain"), series))
			require.NoError(t, w.Close())

			opts := &ReadOptions{NonAlignedTimeEncoding: TimeEncodingOf(timeEnc)}
			f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), opts)
			require.NoError(t, err)
			ss, err := f.Series(NewDeviceID("root.a", "aligned"))
			require.NoError(t, err)
			got, err := f.ReadAligned(ss)
			require.NoError(t, err)
			require.Equal(t, times, got.Times)
			for _, p := range pairs {
				want := aligned[p.Name]
				if lossy(p.DataType, p.Encoding) {
					sameLossy(t, &want, got.Columns[p.Name], "aligned "+p.Name)
				} else {
					sameValues(t, &want, got.Columns[p.Name], "aligned "+p.Name)
				}
			}
			ss, err = f.Series(NewDeviceID("root.a", "plain"))
			require.NoError(t, err)
			for i := range ss {
				gt, gv, err := f.ReadNonAligned(&ss[i])
				require.NoError(t, err, ss[i].Measurement)
				var want *NonAlignedSeries
				for j := range series {
					if series[j].Name == ss[i].Measurement {
						want = &series[j]
					}
				}
				require.Equal(t, times, gt)
				if lossy(want.DataType, want.Encoding) {
					sameLossy(t, &want.Values, &gv, want.Name)
				} else {
					sameValues(t, &want.Values, &gv, want.Name)
				}
			}
		})
	}
}

// TestUnsupportedCodecsAreNamed: identifiers without a codec are errors
// that name them, never a fallback.
func TestUnsupportedCodecsAreNamed(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, nil)
	require.NoError(t, err)
	err = w.WriteNonAligned(NewDeviceID("root.a", "b"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "s", DataType: Int64, Compression: encoding.LZO}, Times: []int64{1}, Values: Values{Type: Int64, Int64s: []int64{1}}}})
	require.ErrorContains(t, err, `series "s": LZO pages can be read but not written`)
	require.True(t, errors.Is(err, encoding.ErrUnsupported))
	// LZO is read (a decoder is registered) but never written, not even for a chunk
	// without pages: an aligned column that is null in every row.
	_, err = encoding.LookupCodec(encoding.LZO)
	require.NoError(t, err)
	w, err = NewWriter(&out, nil)
	require.NoError(t, err)
	err = w.WriteAligned(NewDeviceID("root.a", "c"), []int64{1}, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "n", DataType: Int64, Compression: encoding.LZO}, Values: Values{Type: Int64, Int64s: []int64{0}, Null: []bool{true}}}})
	require.ErrorContains(t, err, `series "n": LZO pages can be read but not written`)
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	for _, e := range []Encoding{encoding.Freq, encoding.Diff} {
		_, err := encoding.AppendEncodedInt64(e, nil, []int64{1})
		if err != nil {
			require.ErrorContains(t, err, e.String())
			require.ErrorIs(t, err, encoding.ErrUnsupported)
		}
	}
}

// TestTsFile23EncodingTypes pins the types TsFile 2.3's integer encodings accept, as
// TSEncoding.TYPE_SUPPORTED_ENCODINGS lists them upstream: the integer types and the aligned
// time column, nothing else.
func TestTsFile23EncodingTypes(t *testing.T) {
	for _, e := range []Encoding{encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar} {
		for _, dt := range append(allValueTypes, Vector) {
			want := dt == Int32 || dt == Int64 || dt == Timestamp || dt == Date || dt == Vector
			require.Equal(t, want, encodingAllowed(dt, e), "%v %v", dt, e)
		}
		w, err := NewWriter(&bytes.Buffer{}, nil)
		require.NoError(t, err)
		err = w.WriteAligned(NewDeviceID("root.sg", "d"), []int64{1}, []AlignedColumn{{
			SeriesSchema: SeriesSchema{Name: "f", DataType: Double, Encoding: e},
			Values:       Values{Type: Double, Float64s: []float64{1}},
		}})
		require.ErrorContains(t, err, e.String()+" cannot encode DOUBLE")
	}
}
