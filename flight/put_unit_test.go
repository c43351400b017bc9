package flight

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestDoPutTimeUnit: DoPut follows the reverse path's rule. Microseconds
// sent to a millisecond server are stored as milliseconds, not as numbers
// 1,000x too large; digits below the millisecond are refused with a hint;
// a server whose unit is us keeps them.
func TestDoPutTimeUnit(t *testing.T) {
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	put := func(c arrowflight.Client, file string, times ...time.Time) error {
		typ := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
		sc := arrow.NewSchema([]arrow.Field{{Name: "time", Type: typ}, {Name: "v", Type: arrow.PrimitiveTypes.Int32}}, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		for i, tm := range times {
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro()))
			b.Field(1).(*array.Int32Builder).Append(int32(i))
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		stream, err := c.DoPut(context.Background())
		require.NoError(t, err)
		w := arrowflight.NewRecordWriter(stream, ipc.WithSchema(sc))
		w.SetFlightDescriptor(pathDesc(file))
		_ = w.Write(rec)
		w.Close()
		stream.CloseSend()
		_, err = stream.Recv()
		return err
	}
	storedTimes := func(path, table string) []int64 {
		f, err := tsfile.OpenFile(path, nil)
		require.NoError(t, err)
		defer f.Close()
		ss, err := f.Series(tsfile.NewDeviceID(table))
		require.NoError(t, err)
		cols, err := f.ReadAligned(ss)
		require.NoError(t, err)
		return cols.Times
	}
	whole := []time.Time{base, base.Add(1500 * time.Millisecond)}
	fine := []time.Time{base, base.Add(1500*time.Millisecond + 7*time.Microsecond)}

	root := t.TempDir()
	srv := startServer(t, Options{Root: root, AllowPut: true})
	c := dial(t, srv.addr)
	require.NoError(t, put(c, "ms.tsfile", whole...))
	require.Equal(t, []int64{whole[0].UnixMilli(), whole[1].UnixMilli()}, storedTimes(filepath.Join(root, "ms.tsfile"), "ms"))
	err := put(c, "fine.tsfile", fine...)
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	require.Contains(t, status.Convert(err).Message(), "row 1 time")
	require.Contains(t, status.Convert(err).Message(), "--time-unit")
	require.NotContains(t, status.Convert(err).Message(), "Options.")

	root = t.TempDir()
	srv = startServer(t, Options{Root: root, AllowPut: true, TimeUnit: arrowconv.TimeUnitOf(arrow.Microsecond)})
	c = dial(t, srv.addr)
	require.NoError(t, put(c, "us.tsfile", fine...))
	require.Equal(t, []int64{fine[0].UnixMicro(), fine[1].UnixMicro()}, storedTimes(filepath.Join(root, "us.tsfile"), "us"))
}

// TestDoPutWriteTimeColumn: the JSON command's write_time_column records
// the time column, named as the client's time field, as the table
// schema's TIME column; without it the schema has none.
func TestDoPutWriteTimeColumn(t *testing.T) {
	put := func(c arrowflight.Client, cmd string) error {
		typ := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
		sc := arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: typ, Metadata: arrow.NewMetadata([]string{arrowconv.MetaCategory}, []string{"TIME"})},
			{Name: "v", Type: arrow.PrimitiveTypes.Int32},
		}, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		b.Field(0).(*array.TimestampBuilder).Append(5)
		b.Field(1).(*array.Int32Builder).Append(1)
		rec := b.NewRecordBatch()
		defer rec.Release()
		stream, err := c.DoPut(context.Background())
		require.NoError(t, err)
		w := arrowflight.NewRecordWriter(stream, ipc.WithSchema(sc))
		w.SetFlightDescriptor(&arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte(cmd)})
		_ = w.Write(rec)
		w.Close()
		stream.CloseSend()
		_, err = stream.Recv()
		return err
	}
	columns := func(path string) []tsfile.Column {
		f, err := tsfile.OpenFile(path, nil)
		require.NoError(t, err)
		defer f.Close()
		s, ok := f.SchemaOf("t")
		require.True(t, ok)
		return s.Columns
	}
	root := t.TempDir()
	srv := startServer(t, Options{Root: root, AllowPut: true})
	c := dial(t, srv.addr)
	require.NoError(t, put(c, `{"file": "with.tsfile", "table": "t", "write_time_column": true}`))
	cols := columns(filepath.Join(root, "with.tsfile"))
	require.Len(t, cols, 2)
	require.Equal(t, "id", cols[0].Name)
	require.Equal(t, tsfile.TimeCol, cols[0].Category)
	require.NoError(t, put(c, `{"file": "without.tsfile", "table": "t"}`))
	cols = columns(filepath.Join(root, "without.tsfile"))
	require.Len(t, cols, 1)
	require.Equal(t, tsfile.Field, cols[0].Category)
}
