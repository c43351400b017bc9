package tsfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// treeFile is a tree-model file with one series written in two chunk
// groups (5 and 6 points), so its metadata carries a chunk list.
func treeFile(t *testing.T, o *WriteOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, o)
	require.NoError(t, err)
	for g, n := range []int{5, 6} {
		times := make([]int64, n)
		v := NewValues(Int64, n)
		for i := range times {
			times[i] = int64(g*100 + i)
			v.Int64s[i] = int64(g*1000 + i)
		}
		require.NoError(t, w.WriteNonAligned(NewDeviceID("root.sg.d1"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "s", DataType: Int64}, Times: times, Values: v}}))
	}
	require.NoError(t, w.Close())
	return out.Bytes()
}

// withFooter replaces the TsFileMetadata of b by edit(metadata).
func withFooter(b []byte, edit func(m []byte) []byte) []byte {
	l := int(binary.BigEndian.Uint32(b[len(b)-10:]))
	start := len(b) - 10 - l
	m := edit(append([]byte(nil), b[start:len(b)-10]...))
	out := append(append([]byte(nil), b[:start]...), m...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(m)))
	return append(out, Magic...)
}

func readAllPoints(t *testing.T, f *File) []int64 {
	t.Helper()
	ss, err := f.Series(NewDeviceID("root.sg.d1"))
	require.NoError(t, err)
	require.Len(t, ss, 1)
	times, _, err := f.ReadNonAligned(&ss[0])
	require.NoError(t, err)
	return times
}

func TestLenientFooterQuirks(t *testing.T) {
	good := treeFile(t, &WriteOptions{NoBloomFilter: true})
	gf, err := Open(bytes.NewReader(good), int64(len(good)), nil)
	require.NoError(t, err)
	want := readAllPoints(t, gf)
	// The footer's tail: meta_offset (8), Bloom filter byte_length 0, then
	// property_count 3 as a zigzag VarInt (6) and the three properties.
	props := appendVarint(nil, 3)
	require.Equal(t, []byte{6}, props)

	cases := []struct {
		name  string
		edit  func(m []byte) []byte
		quirk string
	}{
		{"bloom as int32 zero", func(m []byte) []byte {
			i := bytes.LastIndex(m, []byte{0, 6, 24, 'e', 'n', 'c', 'r', 'y', 'p', 't'})
			return append(append(m[:i:i], 0, 0, 0, 0), m[i+1:]...)
		}, "four zero bytes"},
		{"unsigned property count", func(m []byte) []byte {
			i := bytes.LastIndex(m, []byte{0, 6, 24, 'e', 'n', 'c', 'r', 'y', 'p', 't'})
			m[i+1] = 3
			return m
		}, "unsigned VarInt"},
		{"both", func(m []byte) []byte {
			i := bytes.LastIndex(m, []byte{0, 6, 24, 'e', 'n', 'c', 'r', 'y', 'p', 't'})
			return append(append(m[:i:i], 0, 0, 0, 0, 3), m[i+2:]...)
		}, "four zero bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := withFooter(good, tc.edit)
			_, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.ErrorIs(t, err, ErrCorrupt, "a strict read refuses the quirk")
			f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Lenient: true})
			require.NoError(t, err)
			require.Equal(t, want, readAllPoints(t, f))
			v, ok := f.Metadata.Property("encryptLevel")
			require.True(t, ok)
			require.Equal(t, "0", string(v))
			require.NotEmpty(t, f.Warnings())
			require.Contains(t, f.Warnings()[0].String(), tc.quirk)
			require.Contains(t, f.Warnings()[0].String(), "TsFileMetadata at offset")
		})
	}
	// Structural damage is not a quirk: lenient reads still fail on it.
	b := withFooter(good, func(m []byte) []byte { return append(m, 0xff) })
	_, err = Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Lenient: true})
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestSeriesStatisticsMustAddUp(t *testing.T) {
	good := treeFile(t, nil)
	f, err := Open(bytes.NewReader(good), int64(len(good)), nil)
	require.NoError(t, err)
	ss, err := f.Series(NewDeviceID("root.sg.d1"))
	require.NoError(t, err)
	ts := ss[0]
	require.Len(t, ts.Chunks, 2)
	require.EqualValues(t, 11, ts.Statistics.Count)
	// The series statistics' count follows type, measurement, data type
	// and the chunk list size.
	list := 0
	for _, c := range ts.Chunks {
		list += 8 + len(c.Statistics.AppendTo(nil))
	}
	at := ts.Offset + 1 + int64(len(appendVarString(nil, "s"))) + 1 + int64(len(appendUVarint(nil, uint32(list))))
	require.Equal(t, byte(11), good[at])

	for _, tc := range []struct {
		name string
		edit func(b []byte)
		msg  string
	}{
		{"count", func(b []byte) { b[at] = 12 }, "chunks count 11 points, its statistics 12"},
		{"time range", func(b []byte) { b[at+1+7]++ }, "outside the series'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tc.edit(b)
			f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			_, err = f.Series(NewDeviceID("root.sg.d1"))
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorContains(t, err, tc.msg)

			f, err = Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Lenient: true})
			require.NoError(t, err)
			require.Len(t, readAllPoints(t, f), 11)
			require.Len(t, f.Warnings(), 1)
			require.Contains(t, f.Warnings()[0].String(), tc.msg)
		})
	}
}

// TestDamagedSchemaName: a NUL in a column name of the table schema is
// ErrCorrupt (a renamed column with no error otherwise), a warning under
// Lenient.
func TestDamagedSchemaName(t *testing.T) {
	b, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	i := bytes.Index(b, []byte("region"))
	require.Positive(t, i)
	b = bytes.Clone(b)
	b[i+2] = 0
	_, err = Open(bytes.NewReader(b), int64(len(b)), nil)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "is not valid UTF-8 or holds a NUL")
	f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Lenient: true})
	require.NoError(t, err)
	require.NotEmpty(t, f.Warnings())
	require.Contains(t, f.Warnings()[0].Msg, "is not valid UTF-8 or holds a NUL")
}
