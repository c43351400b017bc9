package arrowconv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// A DICTIONARY string page expands while it decodes, into the spare
// capacity of the value buffer; the pooling allocator's buffers have a lot
// of it. This read used to lose the bytes written there when the buffer
// grew (the benchmark generator's STRING column showed "h\x00\x00...").
func TestDefaultAllocatorDictionaryStrings(t *testing.T) {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 3000})
	w.table("t", tsfile.Column{Name: "s", DataType: tsfile.String, Category: tsfile.Field})
	vals := []string{"heating", "cooling", "idle", "fault-with-a-much-longer-name", ""}
	times := make([]int64, 20000)
	strs := make([]string, len(times))
	var nulls []int
	for i := range times {
		times[i] = int64(i)
		strs[i] = vals[(i*7+i/13)%len(vals)]
		if i%17 == 3 {
			nulls = append(nulls, i)
		}
	}
	v := withNulls(texts(tsfile.String, strs...), nulls...)
	c := col{"s", v}
	sch := schemaOf(c)
	sch.Encoding = encoding.Dictionary
	require.NoError(t, w.w.WriteAligned(tsfile.NewDeviceID("t"), times, []tsfile.AlignedColumn{{SeriesSchema: sch, Values: v}}))
	f := w.open()
	want := drainQuiet(t, f, "t", &Options{Allocator: checkedMem(t)})
	require.Len(t, want.rows, len(times))
	for _, workers := range []int{1, 2} {
		for _, size := range []int{1000, 65536} {
			got := drainQuiet(t, f, "t", &Options{Workers: workers, BatchSize: size})
			require.Equal(t, want.rows, got.rows, "workers %d batch %d", workers, size)
		}
	}
}
