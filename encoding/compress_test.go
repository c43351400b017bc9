package encoding_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

func TestUncompressedCodec(t *testing.T) {
	c, err := encoding.LookupCodec(encoding.Uncompressed)
	require.NoError(t, err)

	src := []byte("page payload")
	got, err := c.Decompress(make([]byte, 0, 64), src, len(src))
	require.NoError(t, err)
	require.Equal(t, src, got)
	require.Same(t, &src[0], &got[0], "UNCOMPRESSED should not copy")

	got, err = c.Decompress(nil, nil, 0)
	require.NoError(t, err)
	require.Empty(t, got)

	for _, size := range []int{len(src) - 1, len(src) + 1, -1} {
		_, err = c.Decompress(nil, src, size)
		require.ErrorIs(t, err, encoding.ErrCorrupt, "size %d", size)
		require.ErrorContains(t, err, "UNCOMPRESSED page payload is 12 bytes")
	}

	dst := []byte("old contents that must go")
	out, err := c.Compress(dst, src)
	require.NoError(t, err)
	require.Equal(t, src, out)
	require.Same(t, &dst[0], &out[0], "Compress should reuse dst's capacity")
}

func TestLookupCodecUnsupported(t *testing.T) {
	for _, c := range []encoding.Compression{4, 200} {
		codec, err := encoding.LookupCodec(c)
		require.Nil(t, codec)
		require.ErrorIs(t, err, encoding.ErrUnsupported)
		require.ErrorContains(t, err, "encoding: compression "+c.String()+" is not supported")
	}
}

type fakeCodec struct{ id int }

func (fakeCodec) Decompress(dst, src []byte, size int) ([]byte, error) { return src, nil }
func (fakeCodec) Compress(dst, src []byte) ([]byte, error)             { return append(dst[:0], src...), nil }

func TestRegisterCodec(t *testing.T) {
	// 250 is unassigned, so registering it cannot disturb other tests.
	const id encoding.Compression = 250
	require.Panics(t, func() { encoding.RegisterCodec(id, nil) })

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				encoding.RegisterCodec(id, fakeCodec{i})
				c, err := encoding.LookupCodec(id)
				// require would call t.FailNow off the test goroutine.
				assert.NoError(t, err)
				assert.IsType(t, fakeCodec{}, c)
			}
		})
	}
	wg.Wait()

	encoding.RegisterCodec(id, fakeCodec{42})
	c, err := encoding.LookupCodec(id)
	require.NoError(t, err)
	require.Equal(t, fakeCodec{42}, c)
}
