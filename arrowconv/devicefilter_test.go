package arrowconv

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestTableDeviceFilter: the filter keeps exactly the devices a reader
// with the same Where reads (PlanTable lists them, without reading
// pages), for each TAG column and value of the sample, a pair of them,
// a null TAG and a value no device has; and it refuses what the reader
// refuses.
func TestTableDeviceFilter(t *testing.T) {
	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil)
	require.NoError(t, err)
	defer f.Close()
	devs, err := f.Devices("weather")
	require.NoError(t, err)
	require.Greater(t, len(devs), 1)
	wheres := []map[string]string{
		{"region": NullTag}, {"station": NullTag}, {"region": "nowhere"},
	}
	for _, d := range devs {
		r, _ := d.Segment(1)
		s, ok := d.Segment(2)
		wheres = append(wheres, map[string]string{"region": r})
		if ok {
			wheres = append(wheres, map[string]string{"station": s}, map[string]string{"region": r, "station": s})
		}
	}
	for _, w := range wheres {
		match, err := TableDeviceFilter(f, "weather", w)
		require.NoError(t, err, w)
		p, err := PlanTable(f, "weather", &Options{Where: w})
		require.NoError(t, err, w)
		var want, got []string
		for _, e := range p.Devices {
			want = append(want, e.Device.String())
		}
		for _, d := range devs {
			if match(d) {
				got = append(got, d.String())
			}
		}
		require.Equal(t, want, got, "%v", w)
	}
	for _, w := range []map[string]string{{"temperature": "1"}, {"nope": "x"}} {
		_, err := TableDeviceFilter(f, "weather", w)
		require.Error(t, err, w)
		_, rerr := NewTableReader(f, "weather", &Options{Where: w})
		require.EqualError(t, err, rerr.Error())
	}
	_, err = TableDeviceFilter(f, "nope", nil)
	require.Error(t, err)
}
