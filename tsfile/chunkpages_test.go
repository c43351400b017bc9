package tsfile

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// multiPageFile writes one aligned device of two value columns, one of them
// with STRING statistics, in pages of pagePts points.
func multiPageFile(t testing.TB, rows, pagePts int) []byte {
	r := rand.New(rand.NewPCG(5, 6))
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: pagePts})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{
		{Name: "v", DataType: Int64, Category: Field}, {Name: "s", DataType: String, Category: Field}}}))
	times := make([]int64, rows)
	for i := range times {
		times[i] = int64(i * 10)
	}
	v, s := randomValues(r, Int64, rows, 0.1), randomValues(r, String, rows, 0.3)
	require.NoError(t, w.WriteAligned(NewDeviceID("t"), times, []AlignedColumn{
		{SeriesSchema: SeriesSchema{Name: "v", DataType: Int64}, Values: v},
		{SeriesSchema: SeriesSchema{Name: "s", DataType: String}, Values: s},
	}))
	require.NoError(t, w.Close())
	return out.Bytes()
}

func chunkOffsets(t testing.TB, f *File) []int64 {
	var offs []int64
	series, err := f.Series(NewDeviceID("t"))
	require.NoError(t, err)
	for _, s := range series {
		for _, c := range s.Chunks {
			offs = append(offs, c.Offset)
		}
	}
	require.NotEmpty(t, offs)
	return offs
}

func TestReadChunkPages(t *testing.T) {
	for _, pagePts := range []int{7, 100, 5000} {
		t.Run(fmt.Sprint(pagePts), func(t *testing.T) {
			b := multiPageFile(t, 3000, pagePts)
			f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			for _, off := range chunkOffsets(t, f) {
				whole, err := f.ReadChunk(off)
				require.NoError(t, err)
				all, err := f.ReadChunkPages(off, func(int, *PageHeader) bool { return true })
				require.NoError(t, err)
				require.Equal(t, whole.Header, all.Header)
				require.Equal(t, len(whole.Pages), len(all.Pages))
				for i := range whole.Pages {
					require.Equal(t, whole.Pages[i].Header, all.Pages[i].Header)
					require.Equal(t, whole.Pages[i].Stored, all.Pages[i].Stored)
				}
				for j := range 8 {
					require.NoError(t, sameStream(f, whole, j))
				}
				var seen []int
				odd, err := f.ReadChunkPages(off, func(i int, p *PageHeader) bool {
					require.Equal(t, whole.Pages[i].Header, *p)
					seen = append(seen, i)
					return i%2 == 1
				})
				require.NoError(t, err)
				require.Len(t, seen, len(whole.Pages))
				for i, p := range odd.Pages {
					if i%2 == 1 || p.Header.Empty() {
						require.Equal(t, whole.Pages[i].Stored, p.Stored)
					} else {
						require.Nil(t, p.Stored)
					}
				}
			}
		})
	}
}

// Damaged page headers are errors naming the page, whichever way the chunk
// is read; the lazy reader never reads or allocates past the chunk.
func TestReadChunkPagesCorrupt(t *testing.T) {
	b := multiPageFile(t, 400, 50)
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	off := chunkOffsets(t, f)[1]
	h, err := f.ReadChunkHeader(off)
	require.NoError(t, err)
	for at := h.DataOffset(); at < min(h.End(), h.DataOffset()+200); at++ {
		for _, v := range []byte{0x00, 0x7f, 0xff} {
			bad := bytes.Clone(b)
			bad[at] = v
			g, err := Open(bytes.NewReader(bad), int64(len(bad)), nil)
			require.NoError(t, err)
			_, err1 := g.ReadChunk(off)
			_, err2 := g.ReadChunkPages(off, func(i int, _ *PageHeader) bool { return i%3 == 0 })
			err3 := streamAll(g, off)
			if err1 != nil {
				require.Error(t, err2, "byte %d = %#x: ReadChunk failed with %v", at, v, err1)
				require.Error(t, err3, "byte %d = %#x: ReadChunk failed with %v", at, v, err1)
				require.True(t, errors.Is(err3, ErrCorrupt), "%v", err3)
			} else {
				require.NoError(t, err3, "byte %d = %#x", at, v)
			}
			if err2 != nil {
				require.True(t, errors.Is(err2, ErrCorrupt), "%v", err2)
			}
		}
	}
}

// TestPageStreamReset moves one stream over chunks of different sizes in
// several orders and window sizes (down to one byte): after each Reset the
// pages must be those ReadChunk reads, and a failed Reset must not spoil
// the next.
func TestPageStreamReset(t *testing.T) {
	b := multiPageFile(t, 3000, 100)
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	offs := chunkOffsets(t, f)
	require.Len(t, offs, 3)
	wholes := map[int64]*Chunk{}
	for _, off := range offs {
		c, err := f.ReadChunk(off)
		require.NoError(t, err)
		wholes[off] = c
	}
	a, c, s := offs[0], offs[1], offs[2]
	orders := [][]int64{{a, c, s}, {s, c, a}, {c, c, s, s, a, a}, {a, s, a, c}}
	for _, window := range []int{1, 13, 200, 0} {
		for _, order := range orders {
			st, err := f.OpenPageStream(order[0], nil, window)
			require.NoError(t, err)
			for k, off := range order {
				if k > 0 {
					require.NoError(t, st.Reset(off))
				}
				whole := wholes[off]
				require.Equal(t, whole.Header, st.Header)
				for i := range whole.Pages {
					p, err := st.Page(i)
					require.NoError(t, err)
					require.NotNil(t, p, "window %d order %v chunk %d page %d", window, order, off, i)
					require.Equal(t, whole.Pages[i].Header.Offset, p.Header.Offset)
					require.Equal(t, whole.Pages[i].Stored, p.Stored, "window %d order %v chunk %d page %d", window, order, off, i)
				}
				n, err := st.Rest()
				require.NoError(t, err)
				require.Equal(t, len(whole.Pages), n)
			}
			require.ErrorIs(t, st.Reset(int64(len(b))), ErrCorrupt)
			require.NoError(t, st.Reset(order[0]))
			n, err := st.Rest()
			require.NoError(t, err)
			require.Equal(t, len(wholes[order[0]].Pages), n)
		}
	}
}
