package tsfile

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// TestWriterRefusesGorillaV1NaN checks that a NaN under GORILLA_V1, which
// the upstream Java decoder takes for the end of the page (see
// checkGorillaV1NaN), is refused before anything of the group is written,
// with an error naming the device, the column and the remedy; that the
// writer stays usable; and that what is not such a NaN is written.
func TestWriterRefusesGorillaV1NaN(t *testing.T) {
	nan32 := float32(math.NaN())
	payload64 := math.Float64frombits(0x7ff0000000000001) // a signalling NaN: isNaN holds too
	dev := NewDeviceID("root.sg", "d1")
	f32 := func(v ...float32) Values { return Values{Type: Float, Float32s: v} }
	f64 := func(v ...float64) Values { return Values{Type: Double, Float64s: v} }
	for _, tc := range []struct {
		name    string
		enc     Encoding
		values  Values
		aligned bool
		refused bool
	}{
		{"aligned FLOAT NaN", encoding.GorillaV1, f32(1, nan32, 2), true, true},
		{"aligned DOUBLE NaN first", encoding.GorillaV1, f64(math.NaN(), 1, 2), true, true},
		{"aligned DOUBLE NaN payload", encoding.GorillaV1, f64(1, 2, payload64), true, true},
		{"non-aligned DOUBLE NaN", encoding.GorillaV1, f64(1, math.NaN(), 3), false, true},
		{"non-aligned FLOAT NaN", encoding.GorillaV1, f32(nan32, nan32, nan32), false, true},
		{"aligned NaN under a null", encoding.GorillaV1, Values{Type: Double, Float64s: []float64{1, math.NaN(), 3}, Null: []bool{false, true, false}}, true, false},
		{"infinities", encoding.GorillaV1, f64(math.Inf(1), math.Inf(-1), math.Copysign(0, -1)), true, false},
		{"GORILLA keeps NaN", encoding.Gorilla, f64(1, math.NaN(), 3), true, false},
		{"PLAIN keeps NaN", encoding.Plain, f32(1, nan32, 3), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w, err := NewWriter(&out, nil)
			require.NoError(t, err)
			times := []int64{10, 20, 30}
			s := SeriesSchema{Name: "s1", DataType: tc.values.Type, Encoding: tc.enc}
			write := func() error {
				if tc.aligned {
					return w.WriteAligned(dev, times, []AlignedColumn{{SeriesSchema: s, Values: tc.values}})
				}
				return w.WriteNonAligned(dev, []NonAlignedSeries{{SeriesSchema: s, Times: times, Values: tc.values}})
			}
			before := w.Offset()
			err = write()
			if !tc.refused {
				require.NoError(t, err)
				require.NoError(t, w.Close())
				return
			}
			require.ErrorIs(t, err, ErrUnsupportedOption)
			for _, part := range []string{"root.sg.d1", `"s1"`, "GORILLA_V1", "choose GORILLA"} {
				require.ErrorContains(t, err, part)
			}
			require.Equal(t, before, w.Offset(), "nothing of the refused group is written")
			// The writer goes on: the same rows in GORILLA are written and read back.
			s.Encoding = encoding.Gorilla
			require.NoError(t, write())
			require.NoError(t, w.Close())
			b := out.Bytes()
			f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			ss, err := f.Series(dev)
			require.NoError(t, err)
			var got Values
			if tc.aligned {
				cols, err := f.ReadAligned(ss)
				require.NoError(t, err)
				got = *cols.Columns["s1"]
			} else {
				_, got, err = f.ReadNonAligned(&ss[0])
				require.NoError(t, err)
			}
			sameValues(t, &tc.values, &got, tc.name)
		})
	}
}

// TestWriterTimeEncodingNeedsConfiguredReaders checks that a time encoding
// other than TS_2DIFF, which upstream readers do not take from the file
// (see WriteOptions.ConfiguredTimeEncoding), is refused unless the caller
// declares the readers configured for it, aligned and non-aligned alike.
func TestWriterTimeEncodingNeedsConfiguredReaders(t *testing.T) {
	for _, e := range []Encoding{encoding.Plain, encoding.RLE, encoding.Gorilla, encoding.ZigZag, encoding.Chimp, encoding.Sprintz, encoding.RLBE, encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar} {
		t.Run(e.String(), func(t *testing.T) {
			_, err := NewWriter(&bytes.Buffer{}, &WriteOptions{TimeEncoding: TimeEncodingOf(e)})
			require.ErrorIs(t, err, ErrUnsupportedOption)
			require.ErrorContains(t, err, "TimeEncoding "+e.String())
			require.ErrorContains(t, err, "ConfiguredTimeEncoding")

			var out bytes.Buffer
			w, err := NewWriter(&out, &WriteOptions{TimeEncoding: TimeEncodingOf(e), ConfiguredTimeEncoding: true})
			require.NoError(t, err)
			col := []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int64}, Values: Values{Type: Int64, Int64s: []int64{1, 2}}}}
			require.NoError(t, w.WriteAligned(NewDeviceID("root.sg", "a"), []int64{5, 9}, col))
			require.NoError(t, w.Close())
		})
	}
	for _, o := range []*WriteOptions{nil, {TimeEncoding: TimeEncodingOf(encoding.TS2Diff)}} {
		_, err := NewWriter(&bytes.Buffer{}, o)
		require.NoError(t, err)
	}
}

// TestWriterTableNamesLowerCase: a table-model name not in lower case, which
// upstream readers lower before finding no chunk under it (a table query of
// 0 rows, checked with the upstream Java reader on a file of this writer),
// is refused; Recover still writes again what a file holds.
func TestWriterTableNamesLowerCase(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table TableSchema
		want  string
	}{
		{"table", TableSchema{Name: "Weather", Columns: []Column{{Name: "v", DataType: Int32, Category: Field}}}, `table name "Weather" is not in lower case`},
		{"field", TableSchema{Name: "w", Columns: []Column{{Name: "Temp", DataType: Int32, Category: Field}}}, `column name "Temp" is not in lower case`},
		{"tag", TableSchema{Name: "w", Columns: []Column{{Name: "Region", DataType: String, Category: Tag}}}, `name it "region"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(&bytes.Buffer{}, nil)
			require.NoError(t, err)
			err = w.RegisterTable(tc.table)
			require.ErrorIs(t, err, ErrUnsupportedOption)
			require.ErrorContains(t, err, tc.want)
		})
	}
	w, err := NewWriter(&bytes.Buffer{}, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "w_1", Columns: []Column{{Name: "région", DataType: String, Category: Tag}, {Name: "t_2", DataType: Int32, Category: Field}}}))
}
