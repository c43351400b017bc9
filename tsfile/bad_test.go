package tsfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// smallFile writes a two-device table-model file for corruption tests.
func smallFile(t testing.TB) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 4})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{{Name: "k", DataType: String, Category: Tag}, {Name: "v", DataType: Int64, Category: Field}}}))
	for _, k := range []string{"a", "b"} {
		times := []int64{1, 2, 3, 4, 5, 6}
		v := Values{Type: Int64, Int64s: []int64{10, 20, 30, 40, 50, 60}, Null: []bool{false, true, false, false, false, false}}
		require.NoError(t, w.WriteAligned(NewDeviceID("t", k), times, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int64}, Values: v}}))
	}
	require.NoError(t, w.Close())
	return out.Bytes()
}

// readAll opens b and decodes every row of every device.
func readAll(b []byte) error {
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		return err
	}
	for _, tb := range f.Tables() {
		devs, err := f.Devices(tb)
		if err != nil {
			return err
		}
		for _, d := range devs {
			s, err := f.Series(d)
			if err != nil {
				return err
			}
			if _, err := f.ReadAligned(s); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestBadInput(t *testing.T) {
	good := smallFile(t)
	require.NoError(t, readAll(good))
	f, err := Open(bytes.NewReader(good), int64(len(good)), nil)
	require.NoError(t, err)
	metaLen := int(binary.BigEndian.Uint32(good[len(good)-10:]))
	metaPos := len(good) - 10 - metaLen
	series, err := f.Series(NewDeviceID("t", "a"))
	require.NoError(t, err)
	valueChunk := series[1].Chunks[0].Offset

	mutate := func(fn func(b []byte) []byte) []byte {
		return fn(append([]byte(nil), good...))
	}
	for _, tc := range []struct {
		name    string
		file    []byte
		kind    error
		message string
	}{
		{"empty", nil, ErrCorrupt, "too short"},
		{"head magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b }), ErrCorrupt, "head magic"},
		{"version 2", mutate(func(b []byte) []byte { b[6] = 2; return b }), ErrUnsupported, "format version 2"},
		// A v4 file labelled v3 is read with the v3 grammar, never probed.
		{"v4 as version 3", mutate(func(b []byte) []byte { b[6] = 3; return b }), ErrCorrupt, "TsFileMetadata"},
		{"version 5", mutate(func(b []byte) []byte { b[6] = 5; return b }), ErrUnsupported, "format version 5"},
		{"truncated tail", good[:len(good)-3], ErrCorrupt, "tail magic"},
		{"truncated half", good[:len(good)/2], ErrCorrupt, ""},
		{"tail magic", mutate(func(b []byte) []byte { b[len(b)-1] = 'X'; return b }), ErrCorrupt, "tail magic"},
		{"footer length past file", mutate(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[len(b)-10:], uint32(len(b)))
			return b
		}), ErrCorrupt, "does not fit"},
		{"footer length negative", mutate(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[len(b)-10:], 0xffffffff)
			return b
		}), ErrCorrupt, "does not fit"},
		{"footer length short", mutate(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[len(b)-10:], uint32(metaLen-1))
			return b
		}), ErrCorrupt, ""},
		{"meta_offset not separator", mutate(func(b []byte) []byte {
			// meta_offset is the int64 before the Bloom filter; find it
			// by its value, the separator's offset.
			sep := int64(f.metaOffset)
			i := bytes.Index(b[metaPos:], be64(sep))
			binary.BigEndian.PutUint64(b[metaPos+i:], uint64(sep-1))
			return b
		}), ErrCorrupt, "separator"},
		{"index offset out of range", mutate(func(b []byte) []byte {
			root := f.Metadata.TableIndexes["t"]
			off := root.Entries[0].Offset
			i := bytes.Index(b[metaPos:], be64(off))
			binary.BigEndian.PutUint64(b[metaPos+i:], uint64(len(b)+100))
			return b
		}), ErrCorrupt, "entry 0"},
		{"chunk data_size past end", mutate(func(b []byte) []byte {
			// The value chunk header: 0x41 "v" data_size...; make the
			// UVarInt data_size huge but still 2 bytes wide.
			p := int(valueChunk) + 3
			b[p], b[p+1] = 0xff, 0x7f
			return b
		}), ErrCorrupt, ""},
		{"page bounds past data_size", mutate(func(b []byte) []byte {
			// First page of the value chunk: raise compressed_size.
			p := int(valueChunk) + 3 + 1 + 3 // marker, name, data_size (1 byte), 3 bytes
			b[p+1] = 0x7f
			return b
		}), ErrCorrupt, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readAll(tc.file)
			require.Error(t, err)
			require.ErrorIs(t, err, tc.kind)
			require.Contains(t, err.Error(), tc.message)
			require.Contains(t, err.Error(), "at offset")
		})
	}
}

// TestIncompleteFileKind: a file cut before its tail is ErrIncomplete, so
// that a CLI can point at Recover, and still ErrCorrupt; a file that is
// whole but damaged is not ErrIncomplete.
func TestIncompleteFileKind(t *testing.T) {
	good := smallFile(t)
	for _, n := range []int{len(good) - 3, len(good) / 2, 40} {
		err := readAll(good[:n])
		require.ErrorIs(t, err, ErrIncomplete, "prefix %d", n)
		require.ErrorIs(t, err, ErrCorrupt, "prefix %d", n)
		require.ErrorContains(t, err, "the file is incomplete")
	}
	bad := append([]byte(nil), good...)
	bad[0] = 'X'
	err := readAll(bad)
	require.ErrorIs(t, err, ErrCorrupt)
	require.NotErrorIs(t, err, ErrIncomplete)
}

// TestTruncationNeverPanics opens and scans every prefix and every
// single-byte corruption of a small file.
func TestTruncationNeverPanics(t *testing.T) {
	good := smallFile(t)
	for n := 0; n < len(good); n++ {
		err := readAll(good[:n])
		require.ErrorIs(t, err, ErrCorrupt, "prefix %d", n)
		s, err := NewScanner(bytes.NewReader(good[:n]), int64(n), nil)
		if err == nil {
			for s.Next() {
			}
		}
	}
	for i := range good {
		b := append([]byte(nil), good...)
		b[i] ^= 0xa5
		if err := readAll(b); err != nil {
			require.True(t, isFormatError(err), "offset %d: %v", i, err)
		}
	}
}

func isFormatError(err error) bool {
	var fe *FormatError
	return errors.As(err, &fe)
}

// TestHugeDeclaredCounts: tiny inputs that declare enormous sizes are
// refused before allocating.
func TestHugeDeclaredCounts(t *testing.T) {
	// A 24-byte TS_2DIFF block with width 0 claiming 2^31-1 timestamps.
	block := h(be32(0x7fffffff), be32(0), be64(1), be64(0))
	ch := ChunkHeader{Marker: MarkerOnlyOnePageTimeChunk, DataType: Vector, Encoding: encoding.TS2Diff}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	_, err := decodeTimes(&ch, block, 100, nil, 10000)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "more than the limit")
	runtime.ReadMemStats(&ms)
	require.Less(t, ms.TotalAlloc-before, uint64(1<<20))

	// A page header declaring a 4 GiB page is refused by the page limit.
	good := smallFile(t)
	f, err := Open(bytes.NewReader(good), int64(len(good)), &ReadOptions{MaxPageSize: 8})
	require.NoError(t, err)
	series, err := f.Series(NewDeviceID("t", "a"))
	require.NoError(t, err)
	_, err = f.ReadChunk(series[0].Chunks[0].Offset)
	require.ErrorContains(t, err, "exceeds the limit")
	// A footer length beyond MaxMetadataSize is refused before reading it.
	_, err = Open(bytes.NewReader(good), int64(len(good)), &ReadOptions{MaxMetadataSize: 16})
	require.ErrorContains(t, err, "exceeds the limit")
}
