package arrowconv

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// propTypes are the value types the property test writes (OBJECT, whose
// values live outside the file, is left to its own tests).
var propTypes = []tsfile.DataType{tsfile.Boolean, tsfile.Int32, tsfile.Int64, tsfile.Float, tsfile.Double,
	tsfile.Text, tsfile.String, tsfile.Blob, tsfile.Date, tsfile.Timestamp}

// propCompressions are those the writer writes (LZO it only reads).
var propCompressions = []tsfile.Compression{encoding.Uncompressed, encoding.Snappy, encoding.Gzip,
	encoding.LZ4, encoding.ZSTD, encoding.LZMA2}

// propRefusal is what the writer may refuse a combination with, at write
// time: an encoding the type does not take, one a v3 reader lacks, NaN
// under GORILLA_V1, and values RLE and TS_2DIFF cannot keep.
var propRefusal = regexp.MustCompile(`cannot encode|v3 readers have no|GORILLA_V1|choose GORILLA or PLAIN|TsFile v3 has no`)

// propNotTaken are the refusals of an encoding for a type or a version,
// whatever the values: not counted as refused combinations.
var propNotTaken = regexp.MustCompile(`cannot encode|v3 readers have no|TsFile v3 has no`)

// propFloats returns n FLOAT (bits 32) or DOUBLE values of the kind
// asked: "dec", decimals of 1 to 6 digits with zeros, -0.0, ties and a
// few magnitudes the scaled encodings keep; "edge", which adds NaN,
// infinities, subnormals, the extremes and sums that overflow.
func propFloats(r *rand.Rand, n int, kind string, bits int) []float64 {
	v := make([]float64, n)
	for i := range v {
		d := math.Pow10(1 + r.IntN(6))
		x := math.Round((r.Float64()*2e4-1e4)*d) / d
		switch r.IntN(10) {
		case 0:
			x = math.Copysign(0, -1)
		case 1:
			x = float64(r.IntN(7)-3) * 0.005 // ties of the second decimal
		case 2:
			x = (r.Float64()*2 - 1) * 2e7 // near the FLOAT range scaled by 100
		case 3:
			if i > 0 {
				x = v[i-1] // runs
			}
		}
		if kind == "edge" {
			big := math.MaxFloat64
			if bits == 32 {
				big = math.MaxFloat32
			}
			switch r.IntN(8) {
			case 0:
				x = math.NaN()
			case 1:
				x = math.Inf(1 - 2*r.IntN(2))
			case 2:
				x = big * (1 - 2*float64(r.IntN(2)))
			case 3:
				x = math.SmallestNonzeroFloat64
				if bits == 32 {
					x = float64(math.SmallestNonzeroFloat32)
				}
			case 4:
				x = big * 0.75 // two of these overflow a double sum only for DOUBLE
			}
		}
		if bits == 32 {
			x = float64(float32(x))
		}
		v[i] = x
	}
	return v
}

// propValues returns n values of type dt, of kind "dec" or "edge", with
// a null at rate nulls.
func propValues(r *rand.Rand, dt tsfile.DataType, n int, kind string, nulls float64) tsfile.Values {
	v := tsfile.Values{Type: dt}
	ints := func(lo, hi int64) int64 {
		switch r.IntN(6) {
		case 0:
			return lo
		case 1:
			return hi
		case 2:
			return int64(r.IntN(21) - 10)
		}
		return lo + int64(r.Uint64N(uint64(hi-lo)))
	}
	for i := 0; i < n; i++ {
		switch dt {
		case tsfile.Boolean:
			v.Bools = append(v.Bools, r.IntN(2) == 0)
		case tsfile.Int32:
			v.Int32s = append(v.Int32s, int32(ints(math.MinInt32, math.MaxInt32)))
		case tsfile.Date:
			v.Int32s = append(v.Int32s, int32((1000+r.IntN(9000))*10000+(1+r.IntN(12))*100+1+r.IntN(28)))
		case tsfile.Int64, tsfile.Timestamp:
			x := ints(math.MinInt64, math.MaxInt64)
			if r.IntN(5) == 0 {
				x = 1<<62 + int64(r.IntN(1000)) // sums beyond 2^53 in a double
			}
			v.Int64s = append(v.Int64s, x)
		case tsfile.Float:
			v.Float32s = append(v.Float32s, float32(propFloats(r, 1, kind, 32)[0]))
		case tsfile.Double:
			v.Float64s = append(v.Float64s, propFloats(r, 1, kind, 64)[0])
		case tsfile.Blob:
			b := make([]byte, r.IntN(12))
			for j := range b {
				b[j] = byte(r.IntN(256))
			}
			v.Binaries = append(v.Binaries, b)
		default:
			v.Binaries = append(v.Binaries, []byte(strconv.Itoa(r.IntN(1000))+"é"[:r.IntN(2)*2]))
		}
	}
	if nulls > 0 {
		v.Null = make([]bool, n)
		for i := range v.Null {
			v.Null[i] = r.Float64() < nulls
		}
	}
	return v
}

// propExpect is what a page of enc yields for v: the values themselves,
// but FLOAT and DOUBLE under RLE and TS_2DIFF as their encoder stores them,
// Math.round(x * 100) / 100 (written out here from Java's definition).
func propExpect(v tsfile.Values, enc tsfile.Encoding) tsfile.Values {
	if enc != encoding.RLE && enc != encoding.TS2Diff {
		return v
	}
	// Math.round returns a long: -0.0 comes back as 0.
	round := func(a float64) float64 {
		f := math.Floor(a)
		if a-f >= 0.5 {
			f++
		}
		return float64(int64(f))
	}
	out := v
	switch v.Type {
	case tsfile.Float:
		out.Float32s = make([]float32, len(v.Float32s))
		for i, x := range v.Float32s {
			out.Float32s[i] = float32(round(float64(x)*100) / 100)
		}
	case tsfile.Double:
		out.Float64s = make([]float64, len(v.Float64s))
		for i, x := range v.Float64s {
			out.Float64s[i] = round(x*100) / 100
		}
	}
	return out
}

// propSame reports whether got holds want's values: the same bits, any
// NaN matching any other, and null where want is null.
func propSame(want, got *tsfile.Values) string {
	if want.Len() != got.Len() {
		return fmt.Sprintf("%d values, want %d", got.Len(), want.Len())
	}
	for i := 0; i < want.Len(); i++ {
		if want.IsNull(i) != got.IsNull(i) {
			return fmt.Sprintf("value %d: null %v, want %v", i, got.IsNull(i), want.IsNull(i))
		}
		if want.IsNull(i) {
			continue
		}
		var w, g string
		switch want.Type {
		case tsfile.Boolean:
			w, g = fmt.Sprint(want.Bools[i]), fmt.Sprint(got.Bools[i])
		case tsfile.Int32, tsfile.Date:
			w, g = fmt.Sprint(want.Int32s[i]), fmt.Sprint(got.Int32s[i])
		case tsfile.Int64, tsfile.Timestamp:
			w, g = fmt.Sprint(want.Int64s[i]), fmt.Sprint(got.Int64s[i])
		case tsfile.Float:
			a, b := want.Float32s[i], got.Float32s[i]
			if a != a && b != b {
				continue
			}
			w, g = fmt.Sprintf("%v (%08x)", a, math.Float32bits(a)), fmt.Sprintf("%v (%08x)", b, math.Float32bits(b))
		case tsfile.Double:
			a, b := want.Float64s[i], got.Float64s[i]
			if a != a && b != b {
				continue
			}
			w, g = fmt.Sprintf("%v (%016x)", a, math.Float64bits(a)), fmt.Sprintf("%v (%016x)", b, math.Float64bits(b))
		default:
			w, g = string(want.Binaries[i]), string(got.Binaries[i])
		}
		if w != g {
			return fmt.Sprintf("value %d is %s, want %s", i, g, w)
		}
	}
	return ""
}

// TestWriterFilesReadBack is the property of issue 35: every file this
// package's writer produces, with every option, reads back by default
// (page verification on) without an error, to the values the encoder
// yields. Each case writes every value type under every encoding the
// writer takes for it, compressions rotating, with decimals of up to 6
// digits and, separately, NaN, infinities, -0.0, subnormals and extremes;
// in the table model, the tree model aligned (with nulls, all-null columns
// and pages of one value) and not aligned, as TsFile v4 and v3. A
// combination the writer refuses at write time (see propRefusal) is
// skipped, never a read failure. TSARROW_WRITER_PROPERTY=N runs N seeds
// (default 2).
func TestWriterFilesReadBack(t *testing.T) {
	seeds := 2
	if s := os.Getenv("TSARROW_WRITER_PROPERTY"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "TSARROW_WRITER_PROPERTY")
		seeds = n
	}
	written, refused := 0, 0
	for seed := 1; seed <= seeds; seed++ {
		for _, version := range []byte{tsfile.Version, tsfile.VersionV3} {
			for _, model := range []string{"table", "aligned", "nonaligned"} {
				if model == "table" && version == tsfile.VersionV3 {
					continue
				}
				name := fmt.Sprintf("seed%d/v%d/%s", seed, version, model)
				w, r := propCase(t, uint64(seed), version, model)
				written += w
				refused += r
				t.Logf("%s: %d combinations written and read back, %d refused by the writer for their values", name, w, r)
			}
		}
	}
	// Refusals for the values (NaN under GORILLA_V1, what RLE and
	// TS_2DIFF cannot keep) are few: a writer that refused everything
	// would pass vacuously.
	require.Greater(t, written, 10*refused, "written %d, refused %d", written, refused)
}

// propCase writes one file and checks it; it returns how many type x
// encoding x kind combinations were written and how many refused.
func propCase(t *testing.T, seed uint64, version byte, model string) (written, refused int) {
	r := rand.New(rand.NewPCG(seed, uint64(version)<<8|uint64(len(model))))
	var buf bytes.Buffer
	pagePts := []int{1, 3, 64, 1000}[r.IntN(4)]
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{Version: version, MaxPointsPerPage: pagePts})
	require.NoError(t, err)
	type combo struct {
		dev  tsfile.DeviceID
		name string
		enc  tsfile.Encoding
		want tsfile.Values
	}
	var combos []combo
	k := 0
	for _, dt := range propTypes {
		for enc := tsfile.Encoding(0); enc <= encoding.Laminar; enc++ {
			kinds := []string{"dec"}
			if dt == tsfile.Float || dt == tsfile.Double {
				kinds = append(kinds, "edge")
			}
			for _, kind := range kinds {
				k++
				n := 1 + r.IntN(300)
				if r.IntN(4) == 0 {
					n = 1 + r.IntN(3)
				}
				nulls := 0.0
				if model != "nonaligned" {
					nulls = []float64{0, 0.3, 1}[r.IntN(3)]
				}
				v := propValues(r, dt, n, kind, nulls)
				times := make([]int64, n)
				t0 := int64(1_700_000_000_000)
				for i := range times {
					t0 += 1 + int64(r.IntN(1000))
					times[i] = t0
				}
				sch := tsfile.SeriesSchema{Name: "s_" + strings.ToLower(dt.String()), DataType: dt, Encoding: enc, Compression: propCompressions[k%len(propCompressions)]}
				var dev tsfile.DeviceID
				switch model {
				case "table":
					table := fmt.Sprintf("t%d", k)
					if err := w.RegisterTable(tsfile.TableSchema{Name: table, Columns: []tsfile.Column{
						{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
						{Name: sch.Name, DataType: dt, Encoding: enc, Compression: sch.Compression, Category: tsfile.Field}}}); err != nil {
						require.Regexp(t, propRefusal, err.Error())
						if !propNotTaken.MatchString(err.Error()) {
							refused++
						}
						continue
					}
					dev = tsfile.NewDeviceID(table, "d")
					err = w.WriteAligned(dev, times, []tsfile.AlignedColumn{{SeriesSchema: sch, Values: v}})
				case "aligned":
					dev = tsfile.NewDeviceID("root.p", fmt.Sprintf("d%d", k))
					err = w.WriteAligned(dev, times, []tsfile.AlignedColumn{{SeriesSchema: sch, Values: v}})
				default:
					dev = tsfile.NewDeviceID("root.p", fmt.Sprintf("d%d", k))
					err = w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{{SeriesSchema: sch, Times: times, Values: v}})
				}
				if err != nil {
					require.Regexp(t, propRefusal, err.Error(), "%s %s %s", dt, enc, kind)
					if !propNotTaken.MatchString(err.Error()) {
						refused++
					}
					continue
				}
				written++
				combos = append(combos, combo{dev: dev, name: sch.Name, enc: enc, want: propExpect(v, enc)})
			}
		}
	}
	require.NoError(t, w.Close())

	f, err := tsfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	require.NoError(t, err)
	for _, c := range combos {
		what := fmt.Sprintf("%s %s on %s (v%d %s, pages of %d)", c.want.Type, c.enc, c.dev, version, model, pagePts)
		ss, err := f.Series(c.dev)
		require.NoError(t, err, what)
		var got tsfile.Values
		if model == "nonaligned" {
			require.Len(t, ss, 1, what)
			_, got, err = f.ReadNonAligned(&ss[0])
		} else {
			var cols *tsfile.AlignedColumns
			cols, err = f.ReadAligned(ss)
			if err == nil {
				col, ok := cols.Columns[c.name]
				if !ok {
					// A column null everywhere has no series.
					col = &tsfile.Values{Type: c.want.Type}
					for range cols.Times {
						col.Null = append(col.Null, true)
					}
					col.Bools, col.Int32s, col.Int64s = make([]bool, len(cols.Times)), make([]int32, len(cols.Times)), make([]int64, len(cols.Times))
					col.Float32s, col.Float64s, col.Binaries = make([]float32, len(cols.Times)), make([]float64, len(cols.Times)), make([][]byte, len(cols.Times))
				}
				got = *col
			}
		}
		require.NoError(t, err, what)
		want := c.want
		if model == "nonaligned" {
			want.Null = nil
		}
		if msg := propSame(&want, &got); msg != "" {
			t.Fatalf("%s: %s", what, msg)
		}
	}
	// The Arrow readers, whose checks take the fast path on pages other
	// than PLAIN, read every table without an error and every row.
	rows := 0
	for _, tb := range f.Tables() {
		var rd *Reader
		if _, ok := f.SchemaOf(tb); ok {
			rd, err = NewTableReader(f, tb, nil)
		} else {
			rd, err = NewTreeReader(f, tb, nil)
		}
		require.NoError(t, err, tb)
		for rd.Next() {
			rows += int(rd.RecordBatch().NumRows())
		}
		require.NoError(t, rd.Err(), "v%d %s, table %s", version, model, tb)
		rd.Release()
	}
	want := 0
	for _, c := range combos {
		want += c.want.Len()
	}
	require.Equal(t, want, rows, "v%d %s: rows read", version, model)
	return written, refused
}
