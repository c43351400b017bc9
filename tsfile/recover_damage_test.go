package tsfile

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/internal/sample"
)

// cellAt spells position i of v for comparison; NaNs compare by bits.
func cellAt(v *Values, i int) string {
	if v.IsNull(i) {
		return "null"
	}
	switch v.Type {
	case Boolean:
		return fmt.Sprint(v.Bools[i])
	case Int32, Date:
		return fmt.Sprint(v.Int32s[i])
	case Int64, Timestamp:
		return fmt.Sprint(v.Int64s[i])
	case Float:
		return fmt.Sprintf("%08x", math.Float32bits(v.Float32s[i]))
	case Double:
		return fmt.Sprintf("%016x", math.Float64bits(v.Float64s[i]))
	}
	return fmt.Sprintf("%q", v.Binaries[i])
}

// cellFloat parses a cellAt of a FLOAT or DOUBLE back.
func cellFloat(cell string, typ DataType) float64 {
	bits, err := strconv.ParseUint(cell, 16, 64)
	if err != nil {
		panic(err)
	}
	if typ == Float {
		return float64(math.Float32frombits(uint32(bits)))
	}
	return math.Float64frombits(bits)
}

// rowsOf is every row of a file as device -> row key -> cell per column.
// An aligned device's row is its timestamp; a non-aligned series' row is
// one point, keyed "series@time". The column of each cell is kept so a
// mismatch can be told apart by type.
type fileRows map[string]map[string]map[string]string

func rowsOf(t *testing.T, f *File) (fileRows, map[string]DataType, int64) {
	t.Helper()
	out := fileRows{}
	types := map[string]DataType{}
	var n int64
	for dev, dd := range readDevices(t, f) {
		rows := map[string]map[string]string{}
		if dd.aligned != nil {
			for i, ts := range dd.aligned.Times {
				row := map[string]string{}
				for name, col := range dd.aligned.Columns {
					row[name] = cellAt(col, i)
					types[name] = col.Type
				}
				rows[fmt.Sprint(ts)] = row
			}
			n += int64(len(dd.aligned.Times))
		} else {
			for name, s := range dd.series {
				for i, ts := range s.times {
					rows[fmt.Sprintf("%s@%d", name, ts)] = map[string]string{name: cellAt(&s.vals, i)}
				}
				types[name] = s.vals.Type
				n += int64(len(s.times))
			}
		}
		out[dev] = rows
	}
	return out, types, n
}

// TestRecoverDamageSweep writes four 0xff bytes at offsets all over the
// data section of files whose footer stays intact (issue 35: at offset
// 3800 of testdata/sample.tsfile, recover wrote an empty file and said
// "nothing lost"). For every offset: the kept rows and the dropped rows
// add up to the input's, the rebuilt file holds exactly the kept rows,
// and each of them is a row of the input. Damage inside a value that no
// statistic covers (a TEXT value between a page's first and last) is
// invisible to every reader; the sweep counts those and allows them only
// in binary columns.
func TestRecoverDamageSweep(t *testing.T) {
	t.Parallel()
	files := recoverLayouts(t)
	s, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	files["sample"] = s
	for name, orig := range files {
		t.Run(name, func(t *testing.T) {
			of, err := Open(bytes.NewReader(orig), int64(len(orig)), nil)
			require.NoError(t, err)
			want, types, total := rowsOf(t, of)
			maxAbs := map[string]float64{}
			for _, rows := range want {
				for _, row := range rows {
					for col, cell := range row {
						if (types[col] == Float || types[col] == Double) && cell != "null" {
							if a := math.Abs(cellFloat(cell, types[col])); !math.IsInf(a, 0) {
								maxAbs[col] = max(maxAbs[col], a)
							}
						}
					}
				}
			}
			var offs []int64
			for off := of.dataFrom; off+4 <= of.metaOffset; off += 1 + int64(len(orig))/400 {
				offs = append(offs, off)
			}
			if name == "sample" {
				offs = append(offs, 3800) // the reproduction
			}
			// Damage reaching the separator ends the scan there (and may
			// break the footer): no hang, and a file that opens.
			for _, off := range []int64{of.metaOffset - 3, of.metaOffset} {
				b := append([]byte(nil), orig...)
				copy(b[off:], []byte{0xff, 0xff, 0xff, 0xff})
				rec, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
				require.NoError(t, err, "offset %d", off)
				require.False(t, rec.Complete, "offset %d", off)
				if rec.Indexed {
					require.Equal(t, total, rec.KeptRows()+rec.DroppedRows(), "offset %d", off)
				}
				var out bytes.Buffer
				_, err = rec.Rebuild(&out, bytes.NewReader(b), nil)
				require.NoError(t, err, "offset %d", off)
				_, err = Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
				require.NoError(t, err, "offset %d", off)
			}
			dropped, invisible := 0, 0
			for _, off := range sample.Short(offs, 200, uint64(len(orig))) {
				b := append([]byte(nil), orig...)
				copy(b[off:], []byte{0xff, 0xff, 0xff, 0xff})
				rec, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
				require.NoError(t, err, "offset %d", off)
				require.True(t, rec.Indexed, "offset %d", off)
				require.Equal(t, total, rec.IndexRows, "offset %d", off)
				require.Equal(t, total, rec.KeptRows()+rec.DroppedRows(), "offset %d: kept %d + dropped %d", off, rec.KeptRows(), rec.DroppedRows())
				require.Equal(t, len(rec.Dropped) == 0, rec.Complete, "offset %d", off)
				for _, d := range rec.Dropped {
					require.ErrorIs(t, d.Cause, ErrCorrupt, "offset %d", off)
					require.True(t, d.Offset <= off && off < d.End || d.Offset <= off+3 && off+3 < d.End, "offset %d outside the dropped range [%d, %d)", off, d.Offset, d.End)
				}
				if len(rec.Dropped) > 0 {
					dropped++
				}
				var out bytes.Buffer
				_, err = rec.Rebuild(&out, bytes.NewReader(b), nil)
				require.NoError(t, err, "offset %d", off)
				rf, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
				require.NoError(t, err, "offset %d", off)
				got, _, n := rowsOf(t, rf)
				require.Equal(t, rec.KeptRows(), n, "offset %d: the rebuilt file's rows", off)
				for dev, rows := range got {
					for key, row := range rows {
						w, ok := want[dev][key]
						require.True(t, ok, "offset %d: row %s of %s is not in the input", off, key, dev)
						for col, cell := range row {
							if cell == w[col] {
								continue
							}
							switch types[col] {
							case Text, Blob, String, Object:
								invisible++
							case Float, Double:
								// A change far below the page's sum, in a
								// value that is none of its extremes, is
								// lost in the sum's rounding.
								a, b := cellFloat(cell, types[col]), cellFloat(w[col], types[col])
								require.Less(t, math.Abs(a-b), 1e-12*maxAbs[col], "offset %d: %s row %s column %s", off, dev, key, col)
								invisible++
							default:
								t.Fatalf("offset %d: %s row %s column %s is %s, the input's %s", off, dev, key, col, cell, w[col])
							}
						}
					}
				}
			}
			require.NotZero(t, dropped)
			t.Logf("%s: %d offsets, %d dropped a group, %d cells changed where no statistic sees them", name, len(offs), dropped, invisible)
		})
	}
}
