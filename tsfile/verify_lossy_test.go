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
