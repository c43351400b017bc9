package arrowconv

import (
	"bytes"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// TestASCIIOnly puts one byte above 0x7f at every position of every length
// around the 32- and 8-byte steps.
func TestASCIIOnly(t *testing.T) {
	for n := 0; n <= 100; n++ {
		s := bytes.Repeat([]byte{0x7f}, n)
		if !asciiOnly(s) {
			t.Fatalf("len %d: ASCII reported otherwise", n)
		}
		for at := range s {
			s[at] = 0x80
			if asciiOnly(s) {
				t.Fatalf("len %d: byte 0x80 at %d missed", n, at)
			}
			s[at] = 0x7f
		}
	}
}

// reallocCounter counts the reallocations of an allocator.
type reallocCounter struct {
	memory.Allocator
	reallocs int
}

func (c *reallocCounter) Reallocate(size int, b []byte) []byte {
	c.reallocs++
	return c.Allocator.Reallocate(size, b)
}

// TestHandOverSizesTail: handing a batch over copies the rows past the cut
// once, into buffers sized for the next batch, which then fills without
// growing them (before, the tail went into small buffers that the next
// batch's reservation grew, copying it again).
func TestHandOverSizesTail(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(memory.Allocator) builder
	}{
		{"int64", func(m memory.Allocator) builder {
			return newValueBuilder(m, tsfile.Int64, arrow.PrimitiveTypes.Int64, 100)
		}},
		{"string", func(m memory.Allocator) builder {
			return newValueBuilder(m, tsfile.String, arrow.BinaryTypes.String, 100)
		}},
		{"tag", func(m memory.Allocator) builder { return newDictBuilder(m, 100) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := &reallocCounter{Allocator: checkedMem(t)}
			b := tc.new(mem)
			defer b.release()
			b.appendNulls(10)
			before := mem.reallocs
			d := b.finish(7, 100)
			defer d.Release()
			require.Equal(t, 7, d.Len())
			require.Equal(t, 7, d.NullN())
			require.Equal(t, 3, b.Len())
			b.appendNulls(97)
			require.Equal(t, before, mem.reallocs, "reallocations handing over and filling the next batch")
			rest := b.finish(100, 0)
			defer rest.Release()
			require.Equal(t, 100, rest.NullN())
		})
	}
}

// TestOptionErrors checks that the two limits an option settles come back
// as *OptionError naming the option, so the CLI can name its flag instead,
// and still match ErrUnsupported, also through a page decode's CodecError.
func TestOptionErrors(t *testing.T) {
	b := &binaryBuilder{}
	d := &dictBuilder{size: math.MaxInt32}
	_, dictErr := d.add("x")
	for _, c := range []struct {
		err    error
		option string
	}{
		{b.reserveBytes(math.MaxInt32 + 1), "BatchSize"},
		{dictErr, "PlainTags"},
	} {
		var oe *OptionError
		require.ErrorAs(t, c.err, &oe)
		require.Equal(t, c.option, oe.Option)
		require.ErrorContains(t, c.err, "(set Options."+c.option+" ")
		require.ErrorIs(t, c.err, tsfile.ErrUnsupported)
		wrapped := tsfile.CodecError(0, "page", c.err)
		require.ErrorIs(t, wrapped, tsfile.ErrUnsupported)
		require.ErrorAs(t, wrapped, &oe)
	}
}
