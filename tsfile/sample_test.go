package tsfile

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.tsfile from the generator")

const samplePath = "../testdata/sample.tsfile"

// writeSample writes the bundled sample: table "weather" with TAGs region
// and station and a FIELD of every data type, three devices of 500 rows in
// two chunk groups each, pages of 200 rows, scattered nulls, one column
// null in a whole page and one column absent from a chunk group. It is
// deterministic so the committed file can be checked against it.
func writeSample(out io.Writer) error {
	r := rand.New(rand.NewPCG(2026, 12))
	w, err := NewWriter(out, &WriteOptions{MaxPointsPerPage: 200})
	if err != nil {
		return err
	}
	fields := []struct {
		name string
		typ  DataType
	}{
		{"temperature", Double}, {"humidity", Float}, {"pressure", Int32}, {"count", Int64},
		{"ok", Boolean}, {"note", Text}, {"label", String}, {"raw", Blob}, {"day", Date}, {"seen", Timestamp},
	}
	schema := TableSchema{Name: "weather", Columns: []Column{{Name: "region", DataType: String, Category: Tag}, {Name: "station", DataType: String, Category: Tag}}}
	for _, f := range fields {
		schema.Columns = append(schema.Columns, Column{Name: f.name, DataType: f.typ, Encoding: encoding.Plain, Category: Field})
	}
	if err := w.RegisterTable(schema); err != nil {
		return err
	}
	devices := [][]string{{"north", "s01"}, {"north", "s02"}, {"south", "s01"}}
	const rows, groups = 500, 2
	for g := 0; g < groups; g++ {
		for d, tags := range devices {
			lo, hi := g*rows/groups, (g+1)*rows/groups
			times := make([]int64, hi-lo)
			for i := range times {
				times[i] = 1700000000000 + int64(lo+i)*1000
			}
			var cols []AlignedColumn
			for fi, f := range fields {
				if g == 1 && d == 2 && f.name == "label" {
					continue // absent from this chunk group
				}
				v := NewValues(f.typ, hi-lo)
				v.Null = make([]bool, hi-lo)
				for i := range v.Null {
					row := lo + i
					null := r.IntN(10) == 0 || row%97 == 96
					if d == 1 && f.name == "humidity" && row >= 200 && row < 400 {
						null = true // an empty page
					}
					if null {
						v.Null[i] = true
						continue
					}
					switch f.typ {
					case Double:
						v.Float64s[i] = 10 + float64(d) + float64(r.IntN(2000))/100
					case Float:
						v.Float32s[i] = float32(r.IntN(1000)) / 10
					case Int32:
						v.Int32s[i] = int32(1000 + r.IntN(50) - 25)
					case Int64:
						v.Int64s[i] = int64(row) * int64(fi+1)
					case Boolean:
						v.Bools[i] = r.IntN(3) == 0
					case Text:
						v.Binaries[i] = []byte(fmt.Sprintf("note %d/%d", d, row))
					case String:
						v.Binaries[i] = []byte([]string{"calm", "breezy", "windy", "stormy"}[r.IntN(4)])
					case Blob:
						v.Binaries[i] = []byte{byte(row), byte(d), byte(r.IntN(256))}[:r.IntN(4)]
					case Date:
						v.Int32s[i] = int32(20240101 + (row%28)*1 + (row%12)*100)
					case Timestamp:
						v.Int64s[i] = times[i] - int64(r.IntN(5000))
					}
				}
				cols = append(cols, AlignedColumn{SeriesSchema: SeriesSchema{Name: f.name, DataType: f.typ}, Values: v})
			}
			if err := w.WriteAligned(NewDeviceID(append([]string{"weather"}, tags...)...), times, cols); err != nil {
				return err
			}
		}
	}
	return w.Close()
}

func TestSampleIsReproducible(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, writeSample(&b))
	if *update {
		require.NoError(t, os.WriteFile(samplePath, b.Bytes(), 0o644))
	}
	committed, err := os.ReadFile(samplePath)
	require.NoError(t, err, "run go test ./tsfile -run Sample -update")
	require.True(t, bytes.Equal(committed, b.Bytes()), "testdata/sample.tsfile differs from the generator; run go test ./tsfile -run Sample -update")
	require.NoError(t, readAll(committed))
}
