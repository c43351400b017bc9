package tsfile

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// naiveJavaRound is Math.round(double) from its definition, floor(a+1/2)
// taken exactly: a-floor(a) is exact in doubles, so the tie test is too.
func naiveJavaRound(a float64) int64 {
	switch {
	case math.IsNaN(a):
		return 0
	case a >= 0x1p63:
		return math.MaxInt64
	case a < -0x1p63:
		return math.MinInt64
	}
	f := math.Floor(a)
	if a-f >= 0.5 {
		f++
	}
	if f >= 0x1p63 {
		return math.MaxInt64
	}
	return int64(f)
}

// lossyRead is what a FLOAT (bits 32) or DOUBLE value x reads back as
// after an RLE or TS_2DIFF page of scale 10^p without an overflow
// section: FloatEncoder's (int) Math.round(x * 10^p), FloatDecoder's
// k / 10^p.
func lossyRead(x float64, p, bits int) float64 {
	s := math.Pow10(p)
	k := naiveJavaRound(x * s)
	if bits == 32 {
		return float64(float32(float64(int32(k)) / s))
	}
	return float64(k) / s
}

// decimals returns n values of 1 to 6 decimals around ±1000, a few of
// them special, and for bits 32 within the range FLOAT scaled by 100
// keeps in an int.
func decimals(r *rand.Rand, n int, specials bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		d := math.Pow10(1 + r.IntN(6))
		v[i] = math.Round((r.Float64()*2000-1000)*d) / d
	}
	if specials && n > 8 {
		v[r.IntN(n)] = math.Copysign(0, -1)
		v[r.IntN(n)] = 0.005 // a tie
		v[r.IntN(n)] = -0.005
		v[r.IntN(n)] = 1e-9
		v[r.IntN(n)] = 21474836.47
	}
	return v
}

// TestLossyFloatPages writes FLOAT and DOUBLE under RLE and TS_2DIFF with
// values of more than the two decimals the writer keeps, aligned and not,
// in pages of several values and a chunk of one page: every page reads by
// default, to the values the encoder keeps, and a damaged body still
// fails. Before pages knew their precision, the reader refused every one.
func TestLossyFloatPages(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	for _, enc := range []Encoding{encoding.RLE, encoding.TS2Diff} {
		for _, dt := range []DataType{Float, Double} {
			for _, rows := range []int{1, 3, 40, 300} {
				name := enc.String() + "/" + dt.String()
				raw := decimals(r, rows, true)
				v := Values{Type: dt}
				for _, x := range raw {
					if dt == Float {
						v.Float32s = append(v.Float32s, float32(x))
					} else {
						v.Float64s = append(v.Float64s, x)
					}
				}
				times := make([]int64, rows)
				for i := range times {
					times[i] = int64(1000 + i)
				}
				var buf bytes.Buffer
				w, err := NewWriter(&buf, &WriteOptions{MaxPointsPerPage: 64})
				require.NoError(t, err)
				sch := SeriesSchema{Name: "s", DataType: dt, Encoding: enc, Compression: encoding.Uncompressed}
				require.NoError(t, w.WriteAligned(NewDeviceID("root.sg", "al"), times, []AlignedColumn{{SeriesSchema: sch, Values: v}}))
				require.NoError(t, w.WriteNonAligned(NewDeviceID("root.sg", "na"), []NonAlignedSeries{{SeriesSchema: sch, Times: times, Values: v}}))
				require.NoError(t, w.Close())

				f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
				require.NoError(t, err)
				bits := 64
				if dt == Float {
					bits = 32
				}
				var want []float64
				for i := range raw {
					x := raw[i]
					if dt == Float {
						x = float64(float32(x))
					}
					want = append(want, lossyRead(x, 2, bits))
				}
				got := func(v Values) []float64 {
					var out []float64
					for i := 0; i < v.Len(); i++ {
						if dt == Float {
							out = append(out, float64(v.Float32s[i]))
						} else {
							out = append(out, v.Float64s[i])
						}
					}
					return out
				}
				al, err := f.Series(NewDeviceID("root.sg", "al"))
				require.NoError(t, err)
				cols, err := f.ReadAligned(al)
				require.NoError(t, err, "%s, %d rows, aligned", name, rows)
				require.Equal(t, want, got(*cols.Columns["s"]), name)
				na, err := f.Series(NewDeviceID("root.sg", "na"))
				require.NoError(t, err)
				_, vals, err := f.ReadNonAligned(&na[0])
				require.NoError(t, err, "%s, %d rows, non-aligned", name, rows)
				require.Equal(t, want, got(vals), name)
			}
		}
	}
}

// TestLossyFloatDamageSweep damages single bytes of the bodies of RLE
// and TS_2DIFF FLOAT and DOUBLE pages (uncompressed, aligned, values of a
// random walk with 1 to 4 decimals, as sensor data is) and reads the
// device with verification and without: verification never fails a read
// whose values are intact, and catches most damage that changes them
// silently. Checking at the page's own precision must not open a hole.
func TestLossyFloatDamageSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 2))
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &WriteOptions{MaxPointsPerPage: 100})
	require.NoError(t, err)
	n := 400
	times := make([]int64, n)
	var cols []AlignedColumn
	for i := range times {
		times[i] = int64(1000 + i)
	}
	for _, enc := range []Encoding{encoding.RLE, encoding.TS2Diff} {
		for _, dt := range []DataType{Float, Double} {
			v := Values{Type: dt}
			x := 20.0
			for range n {
				d := math.Pow10(1 + r.IntN(4))
				x = math.Round((x+r.NormFloat64())*d) / d
				v.Float32s = append(v.Float32s, float32(x))
				v.Float64s = append(v.Float64s, x)
			}
			cols = append(cols, AlignedColumn{SeriesSchema: SeriesSchema{Name: enc.String() + "_" + dt.String(), DataType: dt, Encoding: enc, Compression: encoding.Uncompressed}, Values: v})
		}
	}
	dev := NewDeviceID("root.sg", "d")
	require.NoError(t, w.WriteAligned(dev, times, cols))
	require.NoError(t, w.Close())
	clean := buf.Bytes()

	read := func(b []byte, noVerify bool) (*AlignedColumns, error) {
		f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{NoVerify: noVerify})
		if err != nil {
			return nil, err
		}
		ss, err := f.Series(dev)
		if err != nil {
			return nil, err
		}
		return f.ReadAligned(ss)
	}
	want, err := read(clean, false)
	require.NoError(t, err)
	// The value page bodies.
	f, err := Open(bytes.NewReader(clean), int64(len(clean)), nil)
	require.NoError(t, err)
	ss, err := f.Series(dev)
	require.NoError(t, err)
	var bodies [][2]int64
	for _, s := range ss {
		if !s.IsValueColumn() {
			continue
		}
		c, err := f.ReadChunk(s.Chunks[0].Offset)
		require.NoError(t, err)
		for _, p := range c.Pages {
			// Past the value page's position count and bitmap.
			bodies = append(bodies, [2]int64{p.Header.BodyOffset() + 2, p.Header.End()})
		}
	}
	same := func(a, b *AlignedColumns) bool {
		for k, x := range a.Columns {
			y := b.Columns[k]
			for i := range x.Float32s {
				if math.Float32bits(x.Float32s[i]) != math.Float32bits(y.Float32s[i]) {
					return false
				}
			}
			for i := range x.Float64s {
				if math.Float64bits(x.Float64s[i]) != math.Float64bits(y.Float64s[i]) {
					return false
				}
			}
		}
		return true
	}
	var silent, caught, failed, intact int
	for range 600 {
		b := bodies[r.IntN(len(bodies))]
		off := b[0] + r.Int64N(b[1]-b[0])
		bad := bytes.Clone(clean)
		bad[off] ^= byte(1 + r.IntN(255))
		loose, lerr := read(bad, true)
		strict, serr := read(bad, false)
		switch {
		case lerr != nil:
			failed++
		case same(loose, want):
			intact++
			require.NoError(t, serr, "a false alarm: byte %d changed no value", off)
			require.True(t, same(strict, want))
		case serr != nil:
			caught++
		default:
			silent++
		}
	}
	t.Logf("lossy-float page sweep: 600 damaged bytes: %d changed values silently without verification, verification caught %d of them (%d missed); %d failed either way; %d left the values intact",
		silent+caught, caught, silent, failed, intact)
	require.GreaterOrEqual(t, caught, 9*(silent+caught)/10, "verification catches at least 90%% of the silent damage")
}
