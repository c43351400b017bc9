package arrowconv

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// rowsOf formats every row of a reader, and the device each batch names.
func rowsOf(t *testing.T, rd *Reader) (rows []string, devs []string) {
	t.Helper()
	defer rd.Release()
	for rd.Next() {
		rec := rd.RecordBatch()
		devs = append(devs, rd.Device().String())
		for i := 0; i < int(rec.NumRows()); i++ {
			var s string
			for _, c := range rec.Columns() {
				s += c.ValueStr(i) + ","
			}
			rows = append(rows, s)
		}
	}
	require.NoError(t, rd.Err())
	return rows, devs
}

// TestDeviceBatches: under Options.DeviceBatches every batch holds one
// device's rows, Device names it, and the rows are those of a plain read,
// also with small batches, a time range and a limit that cut devices.
func TestDeviceBatches(t *testing.T) {
	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil)
	require.NoError(t, err)
	defer f.Close()
	for _, o := range []Options{
		{},
		{BatchSize: 7},
		{BatchSize: 100, Limit: 777},
		{Time: &TimeRange{Start: 1700000000000, End: 1700000300000}, Workers: 1},
		{Columns: []string{"temperature"}, PlainTags: true},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			plain, err := NewTableReader(f, "weather", &o)
			require.NoError(t, err)
			want, _ := rowsOf(t, plain)
			o := o
			o.DeviceBatches = true
			rd, err := NewTableReader(f, "weather", &o)
			require.NoError(t, err)
			var got []string
			var devs []tsfile.DeviceID
			for rd.Next() {
				rec := rd.RecordBatch()
				dev := rd.Device()
				require.NotZero(t, dev.Len())
				// The batch's TAG columns are the device's segments.
				for k, f := range rec.Schema().Fields() {
					if c, _ := f.Metadata.GetValue(MetaCategory); c != "TAG" {
						continue
					}
					seg, _ := dev.Segment(k)
					for i := 0; i < int(rec.NumRows()); i++ {
						require.Equal(t, seg, tagValue(rec.Column(k), i), "batch of %s row %d", dev, i)
					}
				}
				if len(devs) == 0 || !devs[len(devs)-1].Equal(dev) {
					devs = append(devs, dev)
				}
				for i := 0; i < int(rec.NumRows()); i++ {
					var s string
					for _, c := range rec.Columns() {
						s += c.ValueStr(i) + ","
					}
					got = append(got, s)
				}
				if o.BatchSize > 0 {
					require.LessOrEqual(t, rec.NumRows(), int64(o.BatchSize))
				}
			}
			require.NoError(t, rd.Err())
			rd.Release()
			require.Equal(t, want, got)
			for i := 1; i < len(devs); i++ {
				require.Negative(t, devs[i-1].Compare(devs[i]), "each device once, in order")
			}
			require.Greater(t, len(devs), 1)
		})
	}
}

func tagValue(a arrow.Array, i int) string {
	switch c := a.(type) {
	case *array.Dictionary:
		return c.Dictionary().(*array.String).Value(c.GetValueIndex(i))
	case *array.String:
		return c.Value(i)
	}
	return a.ValueStr(i)
}

// TestTakeRecordBatch: a taken batch is the caller's; the reader goes on
// as if it had been released, and RecordBatch is nil until the next Next.
func TestTakeRecordBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil)
	require.NoError(t, err)
	defer f.Close()
	plain, err := NewTableReader(f, "weather", &Options{BatchSize: 100})
	require.NoError(t, err)
	want, _ := rowsOf(t, plain)
	rd, err := NewTableReader(f, "weather", &Options{BatchSize: 100, Allocator: mem})
	require.NoError(t, err)
	var taken []arrow.RecordBatch
	n := 0
	for rd.Next() {
		rec := rd.TakeRecordBatch()
		require.Nil(t, rd.RecordBatch())
		n += int(rec.NumRows())
		taken = append(taken, rec)
	}
	require.NoError(t, rd.Err())
	rd.Release()
	require.Equal(t, len(want), n)
	for _, rec := range taken {
		rec.Release()
	}
}
