package tsfile

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// TestSeriesLookupsShareDeviceNodes: looking up every device of a table
// one by one (as a reader of some devices does) parses each device index
// node once, not once per device: the reads are two per device
// (its measurement node, its series), where each lookup used to read
// its leaf node again too.
func TestSeriesLookupsShareDeviceNodes(t *testing.T) {
	const devices = 600
	var buf bytes.Buffer
	w, err := NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{
		{Name: "region", DataType: String, Category: Tag},
		{Name: "v", DataType: Int64, Category: Field},
	}}))
	for d := range devices {
		require.NoError(t, w.WriteAligned(NewDeviceID("t", fmt.Sprintf("r%04d", d)), []int64{1, 2}, []AlignedColumn{
			{SeriesSchema: SeriesSchema{Name: "v", DataType: Int64, Encoding: encoding.Plain}, Values: Values{Type: Int64, Int64s: []int64{1, 2}}},
		}))
	}
	require.NoError(t, w.Close())
	cr := &countingReaderAt{r: bytes.NewReader(buf.Bytes())}
	f, err := Open(cr, int64(buf.Len()), nil)
	require.NoError(t, err)
	devs, err := f.Devices("t")
	require.NoError(t, err)
	require.Len(t, devs, devices)
	want := map[string][]TimeseriesMetadata{}
	require.NoError(t, f.TableSeries("t", func(d DeviceID, s []TimeseriesMetadata) error {
		want[d.String()] = s
		return nil
	}))
	before := cr.n.Load()
	for _, d := range devs {
		s, err := f.Series(d)
		require.NoError(t, err)
		require.Equal(t, want[d.String()], s, d.String())
	}
	reads := cr.n.Load() - before
	// Two reads a device (its measurement node, its series), and the
	// few device nodes once.
	require.LessOrEqual(t, reads, int64(2*devices+devices/10), "ReadAt calls for %d lookups", devices)
	// A device the file lacks is still not found.
	s, err := f.Series(NewDeviceID("t", "r9999"))
	require.NoError(t, err)
	require.Nil(t, s)
}

// TestCheckTableSubsetAfterWhole: once the whole table has passed
// CheckTable, a check of some of its devices reads nothing more; before,
// it checks them.
func TestCheckTableSubsetAfterWhole(t *testing.T) {
	b, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	cr := &countingReaderAt{r: bytes.NewReader(b)}
	f, err := Open(cr, int64(len(b)), nil)
	require.NoError(t, err)
	var table string
	for name := range f.Metadata.TableIndexes {
		table = name
	}
	devs, err := f.Devices(table)
	require.NoError(t, err)
	require.NotEmpty(t, devs)
	before := cr.n.Load()
	require.NoError(t, f.CheckTable(table, devs[:1]))
	require.Greater(t, cr.n.Load(), before, "a check of one device before the whole table's")
	require.NoError(t, f.CheckTable(table, nil))
	before = cr.n.Load()
	require.NoError(t, f.CheckTable(table, devs[:1]))
	require.Equal(t, before, cr.n.Load(), "a check of one device after the whole table's")
}
