package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// writeBenchLayout writes seq files of rows per device and, when
// rewrite > 0, one unsequence file rewriting that share of rows: in
// blocks of block rows (1 = scattered points).
func writeBenchLayout(b testing.TB, root string, files, devices, rows int, rewrite float64, block int) {
	r := rand.New(rand.NewPCG(1, 2))
	schema := tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "tag", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "a", DataType: tsfile.Int64, Category: tsfile.Field},
		{Name: "b", DataType: tsfile.Double, Category: tsfile.Field},
		{Name: "c", DataType: tsfile.Int64, Category: tsfile.Field},
		{Name: "d", DataType: tsfile.Double, Category: tsfile.Field},
	}}
	write := func(space string, version int64, devRows map[int][]int64) {
		dir := filepath.Join(root, space, "db", "1", "0")
		require.NoError(b, os.MkdirAll(dir, 0o755))
		path := filepath.Join(dir, Name{Time: version, Version: version}.String())
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, nil)
		require.NoError(b, err)
		require.NoError(b, w.RegisterTable(schema))
		res := &Resource{IndexType: IndexArray}
		for d := 0; d < devices; d++ {
			times := devRows[d]
			if len(times) == 0 {
				continue
			}
			dev := tsfile.NewDeviceID("t", fmt.Sprintf("dev%02d", d))
			for at := 0; at < len(times); at += 100000 {
				ts := times[at:min(at+100000, len(times))]
				var cols []tsfile.AlignedColumn
				for _, c := range schema.Columns[1:] {
					v := tsfile.NewValues(c.DataType, len(ts))
					for i := range ts {
						if c.DataType == tsfile.Int64 {
							v.Int64s[i] = r.Int64N(1000)
						} else {
							v.Float64s[i] = r.Float64()
						}
					}
					cols = append(cols, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: c.Name, DataType: c.DataType}, Values: v})
				}
				require.NoError(b, w.WriteAligned(dev, ts, cols))
			}
			res.Devices = append(res.Devices, DeviceTimes{Device: dev, Start: times[0], End: times[len(times)-1]})
		}
		require.NoError(b, w.Close())
		require.NoError(b, os.WriteFile(path, buf.Bytes(), 0o644))
		rb, err := res.AppendBinary(nil)
		require.NoError(b, err)
		require.NoError(b, os.WriteFile(path+ResourceSuffix, rb, 0o644))
	}
	per := rows / files
	unseq := map[int][]int64{}
	for f := 0; f < files; f++ {
		devRows := map[int][]int64{}
		for d := 0; d < devices; d++ {
			for i := 0; i < per/devices; i++ {
				devRows[d] = append(devRows[d], int64(f*per+i))
			}
			if rewrite > 0 {
				n := len(devRows[d])
				for i := 0; i < n; i += block {
					if r.Float64() < rewrite {
						unseq[d] = append(unseq[d], devRows[d][i:min(i+block, n)]...)
					}
				}
			}
		}
		write("sequence", int64(f+1), devRows)
	}
	if rewrite > 0 {
		write("unsequence", int64(files+1), unseq)
	}
}

func benchRead(b *testing.B, root string) {
	b.ReportAllocs()
	var rows int64
	for i := 0; i < b.N; i++ {
		ds, err := Open([]string{root}, nil)
		require.NoError(b, err)
		rd, err := ds.NewReader("t", &arrowconv.Options{Workers: 1})
		require.NoError(b, err)
		rows = 0
		for rd.Next() {
			rows += rd.RecordBatch().NumRows()
		}
		require.NoError(b, rd.Err())
		st := rd.Stats()
		rd.Release()
		ds.Close()
		if i == 0 {
			b.Logf("rows %d stats %+v", rows, st)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkResolved(b *testing.B) {
	for _, tc := range []struct {
		name    string
		rewrite float64
		block   int
	}{{"plain", 0, 1}, {"points", 0.1, 1}, {"blocks1000", 0.1, 1000}} {
		root := b.TempDir()
		writeBenchLayout(b, root, 4, 4, 2_000_000, tc.rewrite, tc.block)
		b.Run(tc.name, func(b *testing.B) { benchRead(b, root) })
	}
}
