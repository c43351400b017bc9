package tsfile

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

type chunkKey struct {
	device string
	name   string
	offset int64
}

// footerChunks lists every chunk the footer references, with its pages'
// stored bytes.
func footerChunks(t *testing.T, f *File) map[chunkKey][][]byte {
	out := map[chunkKey][][]byte{}
	for _, tb := range f.Tables() {
		devs, err := f.Devices(tb)
		require.NoError(t, err)
		for _, d := range devs {
			series, err := f.Series(d)
			require.NoError(t, err)
			for _, s := range series {
				for _, cm := range s.Chunks {
					c, err := f.ReadChunk(cm.Offset)
					require.NoError(t, err)
					var pages [][]byte
					for _, p := range c.Pages {
						pages = append(pages, p.Stored)
					}
					out[chunkKey{d.String(), s.Measurement, cm.Offset}] = pages
				}
			}
		}
	}
	return out
}

func TestScannerAgreesWithFooter(t *testing.T) {
	files := map[string][]byte{"small": smallFile(t)}
	for _, name := range []string{"j01_table_all_types_plain", "j02_table_multipage_default_encodings", "j10_tree_nonaligned"} {
		b, err := os.ReadFile("../../shared/interop/" + name + ".tsfile")
		if err == nil {
			files[name] = b
		}
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 3, MaxDegree: 2})
	require.NoError(t, err)
	for g := 0; g < 2; g++ {
		for d := 0; d < 3; d++ {
			dev := NewDeviceID("root.sg", fmt.Sprintf("d%d", d))
			times := []int64{int64(10*g + 1), int64(10*g + 2), int64(10*g + 5), int64(10*g + 7)}
			require.NoError(t, w.WriteNonAligned(dev, []NonAlignedSeries{
				{SeriesSchema: SeriesSchema{Name: "s1", DataType: Int32}, Times: times, Values: Values{Type: Int32, Int32s: []int32{1, 2, 3, 4}}},
				{SeriesSchema: SeriesSchema{Name: "s2", DataType: Text}, Times: times[:2], Values: Values{Type: Text, Binaries: [][]byte{[]byte("x"), []byte("y")}}},
			}))
		}
		require.NoError(t, w.WriteOperationIndexRange(int64(g), int64(g+1)))
	}
	require.NoError(t, w.Close())
	files["tree"] = out.Bytes()

	for name, b := range files {
		t.Run(name, func(t *testing.T) {
			f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			want := footerChunks(t, f)
			// Drop the footer: keep the data section up to the separator.
			cut := b[:f.metaOffset+1]
			s, err := NewScanner(bytes.NewReader(cut), int64(len(cut)), nil)
			require.NoError(t, err)
			got := map[chunkKey][][]byte{}
			var timeChunk string
			sawSep := false
			for s.Next() {
				r := s.Record()
				switch r.Kind {
				case ChunkRecord:
					name := r.Chunk.Header.Measurement
					if r.Chunk.Header.IsTimeChunk() {
						timeChunk = r.Device.String()
					}
					if r.Chunk.Header.IsValueChunk() {
						require.Equal(t, timeChunk, r.Device.String(), "value chunk follows its time chunk")
					}
					var pages [][]byte
					for _, p := range r.Chunk.Pages {
						pages = append(pages, p.Stored)
					}
					got[chunkKey{r.Device.String(), name, r.Offset}] = pages
				case SeparatorRecord:
					sawSep = true
					require.Equal(t, f.metaOffset, r.Offset)
				}
			}
			require.NoError(t, s.Err())
			require.True(t, sawSep)
			require.Equal(t, want, got)

			// Without the separator the scan ends with ErrCorrupt at the
			// last good boundary, having seen every chunk.
			s, err = NewScanner(bytes.NewReader(b[:f.metaOffset]), f.metaOffset, nil)
			require.NoError(t, err)
			n := 0
			for s.Next() {
				if s.Record().Kind == ChunkRecord {
					n++
				}
			}
			require.ErrorIs(t, s.Err(), ErrCorrupt)
			require.Equal(t, f.metaOffset, s.Offset())
			require.Equal(t, len(want), n)
		})
	}
}
