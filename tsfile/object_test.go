package tsfile

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// cellOf builds an OBJECT cell by hand: the size, then raw bytes.
func cellOf(size int64, rest ...byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(size)), rest...)
}

// TestParseObjectCell reads cells in both of IoTDB's path forms and
// refuses what is neither. The segmented bytes are written out by hand
// (count, then ZigZag length and bytes per segment), not with
// AppendObjectCell, so that the two are checked against each other.
func TestParseObjectCell(t *testing.T) {
	seg := cellOf(5,
		5,      // five segments
		2, '7', // region id "7" (ZigZag 1 = 2)
		4, 'O', 'Q', // base32("t")
		6, 'N', 'U', 'L', // a null device segment
		4, 'N', '4', // base32("o")
		12, '1', '2', '.', 'b', 'i', 'n', // "12.bin" (ZigZag 6 = 12)
	)
	long := make([]byte, 0, 300)
	for range 70 {
		long = append(long, 'A')
	}
	cases := []struct {
		name    string
		cell    []byte
		want    ObjectRef
		corrupt bool
	}{
		{"segmented", seg, ObjectRef{Size: 5, Path: "7/OQ/NUL/N4/12.bin", Segmented: true}, false},
		{"segmented, two-byte length", AppendObjectCell(nil, 1<<40, "12/"+string(long)+"/N4/1_3.bin"),
			ObjectRef{Size: 1 << 40, Path: "12/" + string(long) + "/N4/1_3.bin", Segmented: true}, false},
		{"plain", cellOf(3, []byte("1/t/d1/o/9.bin")...), ObjectRef{Size: 3, Path: "1/t/d1/o/9.bin"}, false},
		{"plain, long region", cellOf(0, []byte("100/t/d1/o/9.bin")...), ObjectRef{Path: "100/t/d1/o/9.bin"}, false},
		// Parses as segments but the region is not decimal: taken as a
		// plain path (the bytes are valid UTF-8).
		{"segments without region", cellOf(1, 2, 2, 'x', 6, 'a', '.', 'b', 'i', 'n'),
			ObjectRef{Size: 1, Path: "\x02\x02x\x06a.bin"}, false},
		{"short", []byte{0, 0, 0, 0, 0, 0, 1}, ObjectRef{}, true},
		{"empty", nil, ObjectRef{}, true},
		{"no path", cellOf(4), ObjectRef{}, true},
		{"negative size", cellOf(-1, []byte("1/a/1.bin")...), ObjectRef{}, true},
		{"not UTF-8", cellOf(1, 0xff, 0xfe), ObjectRef{}, true},
		{"trailing byte", append(seg[:len(seg):len(seg)], 0xff), ObjectRef{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseObjectCell(c.cell)
			if c.corrupt {
				require.ErrorIs(t, err, ErrCorrupt)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
	// AppendObjectCell writes what the hand-written bytes hold.
	require.Equal(t, seg, AppendObjectCell(nil, 5, "7/OQ/NUL/N4/12.bin"))
}

// FuzzParseObjectCell: any bytes give a reference or ErrCorrupt, never a
// panic; a segmented reference's path written back parses the same.
func FuzzParseObjectCell(f *testing.F) {
	f.Add(AppendObjectCell(nil, 5, "7/OQ/NUL/N4/12.bin"))
	f.Add(cellOf(3, []byte("1/t/d1/o/9.bin")...))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		ref, err := ParseObjectCell(b)
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		require.GreaterOrEqual(t, ref.Size, int64(0))
		if ref.Segmented {
			again, err := ParseObjectCell(AppendObjectCell(nil, ref.Size, ref.Path))
			require.NoError(t, err)
			require.Equal(t, ref, again)
		}
	})
}

// TestEncodeObjectCell: every path EncodeObjectCell accepts reads back as
// itself, in the form its shape calls for, and paths that would not are
// refused.
func TestEncodeObjectCell(t *testing.T) {
	for _, c := range []struct {
		path      string
		segmented bool
		bad       bool
	}{
		{"1/AB/CD/5.bin", true, false},
		{"12/NUL/EPT/MZXW6/1700000000000_3.bin", true, false},
		{"1/a/b/c.dat", false, false},
		{"root/sg/d1/s1/5.bin", false, false},
		{"1//5.bin", false, false},
		{"x", false, false},
		{"", false, true},
		{"1/\xff/5.bin", false, true},
	} {
		cell, err := EncodeObjectCell([]byte("keep"), 42, c.path)
		if c.bad {
			if err == nil {
				t.Errorf("%q: no error", c.path)
			}
			continue
		}
		if err != nil || string(cell[:4]) != "keep" {
			t.Fatalf("%q: %v (prefix %q)", c.path, err, cell[:4])
		}
		r, err := ParseObjectCell(cell[4:])
		if err != nil || r.Size != 42 || r.Path != c.path || r.Segmented != c.segmented {
			t.Errorf("%q read back as %+v, %v; want segmented %v", c.path, r, err, c.segmented)
		}
	}
	if _, err := EncodeObjectCell(nil, -1, "1/a.bin"); err == nil {
		t.Error("a negative size was accepted")
	}
}
