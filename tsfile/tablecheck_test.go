package tsfile

import (
	"bytes"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingReaderAt counts the ReadAt calls made on it.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(1)
	return c.r.ReadAt(p, off)
}

// TestCheckTable damages the index entry of one series of the sample's
// last device, where a reader going device by device would meet it only
// after returning the others' rows: CheckTable finds it up front, as
// ErrCorrupt naming the series' offset, or as a warning when lenient.
func TestCheckTable(t *testing.T) {
	orig, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	f, err := Open(bytes.NewReader(orig), int64(len(orig)), nil)
	require.NoError(t, err)
	devs, err := f.Devices("weather")
	require.NoError(t, err)
	require.Greater(t, len(devs), 1)
	last := devs[len(devs)-1]
	hum, err := f.SeriesByName(last, "humidity")
	require.NoError(t, err)
	require.NotNil(t, hum)
	// timeseries_meta_type, a one-byte name length, the name, data_type.
	name := int(hum.Offset) + 2
	require.Equal(t, "humidity", string(orig[name:name+8]))
	require.Equal(t, byte(Float), orig[name+8])

	cases := []struct {
		name   string
		damage func(b []byte)
		want   string // in the error; "" for none
	}{
		{"clean", func([]byte) {}, ""},
		// Still sorted before "label", still valid UTF-8.
		{"series name", func(b []byte) { b[name+7] = 'z' }, `series "humiditz" of device ` + last.String() + ` is not a FIELD column of table "weather"`},
		// INT32 statistics take as many bytes as FLOAT ones.
		{"series type", func(b []byte) { b[name+8] = byte(Int32) }, `series "humidity" of device ` + last.String() + ` is INT32, but its column is FLOAT`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			tc.damage(b)
			for _, lenient := range []bool{false, true} {
				cr := &countingReaderAt{r: bytes.NewReader(b)}
				f, err := Open(cr, int64(len(b)), &ReadOptions{Lenient: lenient})
				require.NoError(t, err)
				err = f.CheckTable("weather", nil)
				reads := cr.n.Load()
				// Once per file: a second call reads nothing.
				require.Equal(t, err, f.CheckTable("weather", nil))
				require.Equal(t, reads, cr.n.Load(), "a second check reads again")
				// A read of some devices checks those.
				require.NoError(t, f.CheckTable("weather", devs[:1]))
				require.Equal(t, err, f.CheckTable("weather", []DeviceID{last}))
				switch {
				case tc.want == "":
					require.NoError(t, err)
					require.Empty(t, f.Warnings())
				case lenient:
					require.NoError(t, err)
					require.Len(t, f.Warnings(), 1)
					require.Contains(t, f.Warnings()[0].Msg, tc.want)
				default:
					require.ErrorIs(t, err, ErrCorrupt)
					require.Contains(t, err.Error(), tc.want)
					require.Contains(t, err.Error(), "offset "+strconv.FormatInt(hum.Offset, 10))
				}
			}
		})
	}
	require.NoError(t, f.CheckTable("no such table", nil))
}
