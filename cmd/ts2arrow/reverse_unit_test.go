package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// writeForeignParquet writes, as DuckDB, pandas or Spark would, a Parquet
// file without tsarrow's metadata and without the Arrow schema: a
// timestamp time column and a timestamp field "seen", both in unit, UTC.
func writeForeignParquet(t *testing.T, path string, unit arrow.TimeUnit, times, seen []time.Time) {
	t.Helper()
	typ := &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}
	sc := arrow.NewSchema([]arrow.Field{{Name: "time", Type: typ}, {Name: "seen", Type: typ, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range times {
		tv, err := arrow.TimestampFromTime(times[i], unit)
		require.NoError(t, err)
		b.Field(0).(*array.TimestampBuilder).Append(tv)
		sv, err := arrow.TimestampFromTime(seen[i], unit)
		require.NoError(t, err)
		b.Field(1).(*array.TimestampBuilder).Append(sv)
		b.Field(2).(*array.Float64Builder).Append(float64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	fh, err := os.Create(path)
	require.NoError(t, err)
	defer fh.Close()
	props := parquet.NewWriterProperties(parquet.WithVersion(parquet.V2_6))
	w, err := pqarrow.NewFileWriter(sc, fh, props, pqarrow.NewArrowWriterProperties())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
}

// readParquetInstants reads the "time" and "seen" columns of a Parquet file
// as instants, and the unit of its time column.
func readParquetInstants(t *testing.T, path string) (unit arrow.TimeUnit, times, seen []time.Time) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	require.NoError(t, err)
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1000}, memory.DefaultAllocator)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	col := func(name string) (arrow.TimeUnit, []time.Time) {
		i := tbl.Schema().FieldIndices(name)
		require.Len(t, i, 1, name)
		typ := tbl.Schema().Field(i[0]).Type.(*arrow.TimestampType)
		var out []time.Time
		for _, c := range tbl.Column(i[0]).Data().Chunks() {
			a := c.(*array.Timestamp)
			for k := 0; k < a.Len(); k++ {
				out = append(out, a.Value(k).ToTime(typ.Unit))
			}
		}
		return typ.Unit, out
	}
	unit, times = col("time")
	_, seen = col("seen")
	return unit, times, seen
}

// TestReverseForeignParquetTimeUnits: Parquet in microseconds or
// nanoseconds, as DuckDB, pandas and Spark write it, becomes a TsFile in
// milliseconds, IoTDB's default precision, not one whose numbers are 1,000x
// or 1,000,000x too large; "convert" back gives the same instants. Digits
// below the millisecond fail with one line naming --time-unit, which keeps
// them.
func TestReverseForeignParquetTimeUnits(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	whole := []time.Time{base, base.Add(1500 * time.Millisecond), base.Add(time.Hour)}
	fine := []time.Time{base.Add(7 * time.Microsecond), base.Add(time.Second + 123456*time.Nanosecond), base.Add(time.Hour)}
	for _, unit := range []arrow.TimeUnit{arrow.Microsecond, arrow.Nanosecond} {
		t.Run(unit.String(), func(t *testing.T) {
			fine := slices.Clone(fine)
			for i := range fine {
				fine[i] = fine[i].Truncate(map[arrow.TimeUnit]time.Duration{arrow.Microsecond: time.Microsecond, arrow.Nanosecond: 1}[unit])
			}
			in := filepath.Join(dir, "whole_"+unit.String()+".parquet")
			writeForeignParquet(t, in, unit, whole, whole)
			gotUnit, _, _ := readParquetInstants(t, in)
			require.Equal(t, unit, gotUnit, "the input must be timestamp[%s]", unit)

			out := filepath.Join(dir, "whole_"+unit.String()+".tsfile")
			code, _, errOut := runCLI("convert", in, "-o", out)
			require.Equal(t, 0, code, errOut)
			// The stored numbers are milliseconds since 1970.
			f, err := tsfile.OpenFile(out, nil)
			require.NoError(t, err)
			ss, err := f.Series(tsfile.NewDeviceID("whole_" + unit.String()))
			require.NoError(t, err)
			cols, err := f.ReadAligned(ss)
			require.NoError(t, err)
			f.Close()
			require.Equal(t, []int64{whole[0].UnixMilli(), whole[1].UnixMilli(), whole[2].UnixMilli()}, cols.Times)
			require.Equal(t, whole[1].UnixMilli(), cols.Columns["seen"].Int64s[1])

			back := filepath.Join(dir, "whole_"+unit.String()+".back.parquet")
			code, _, errOut = runCLI("convert", out, "-o", back)
			require.Equal(t, 0, code, errOut)
			bu, bt, bs := readParquetInstants(t, back)
			require.Equal(t, arrow.Millisecond, bu)
			requireInstants(t, whole, bt)
			requireInstants(t, whole, bs)

			// Sub-millisecond digits: refused by default, in one line naming the flag.
			in = filepath.Join(dir, "fine_"+unit.String()+".parquet")
			writeForeignParquet(t, in, unit, whole, fine)
			out = filepath.Join(dir, "fine_"+unit.String()+".tsfile")
			code, _, errOut = runCLI("convert", in, "-o", out)
			require.Equal(t, 1, code, errOut)
			require.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one line: %q", errOut)
			require.Contains(t, errOut, `row 0 column "seen"`)
			require.Contains(t, errOut, "digits below ms")
			require.Contains(t, errOut, "--time-unit "+unit.String())
			requireNoGoNames(t, errOut)
			_, err = os.Stat(out)
			require.ErrorIs(t, err, os.ErrNotExist, "nothing is left behind")

			in = filepath.Join(dir, "finetime_"+unit.String()+".parquet")
			writeForeignParquet(t, in, unit, fine, whole)
			code, _, errOut = runCLI("convert", in, "-o", out)
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, "row 0 time")
			require.Contains(t, errOut, "--time-unit "+unit.String())

			// --time-unit keeps them, and reads them back.
			code, _, errOut = runCLI("convert", in, "-o", out, "--time-unit", unit.String())
			require.Equal(t, 0, code, errOut)
			back = filepath.Join(dir, "fine_"+unit.String()+".back.parquet")
			code, _, errOut = runCLI("convert", out, "-o", back, "--time-unit", unit.String())
			require.Equal(t, 0, code, errOut)
			bu, bt, bs = readParquetInstants(t, back)
			require.Equal(t, unit, bu)
			requireInstants(t, fine, bt)
			requireInstants(t, whole, bs)
		})
	}
	// Seconds scale up to milliseconds exactly.
	in := filepath.Join(dir, "s.arrow")
	sc := arrow.NewSchema([]arrow.Field{{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Second}}, {Name: "v", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(base.Unix()))
	b.Field(1).(*array.Int32Builder).Append(1)
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeIPCFile(t, in, rec)
	out := filepath.Join(dir, "s.tsfile")
	code, _, errOut := runCLI("convert", in, "-o", out)
	require.Equal(t, 0, code, errOut)
	f, err := tsfile.OpenFile(out, nil)
	require.NoError(t, err)
	defer f.Close()
	ss, err := f.Series(tsfile.NewDeviceID("s"))
	require.NoError(t, err)
	cols, err := f.ReadAligned(ss)
	require.NoError(t, err)
	require.Equal(t, []int64{base.UnixMilli()}, cols.Times)
}

func requireInstants(t *testing.T, want, got []time.Time) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.True(t, want[i].Equal(got[i]), "row %d: want %s, got %s", i, want[i].Format(time.RFC3339Nano), got[i].Format(time.RFC3339Nano))
	}
}

func writeIPCFile(t *testing.T, path string, rec arrow.RecordBatch) {
	t.Helper()
	fh, err := os.Create(path)
	require.NoError(t, err)
	defer fh.Close()
	w, err := ipc.NewFileWriter(fh, ipc.WithSchema(rec.Schema()))
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
}
