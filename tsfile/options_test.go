package tsfile

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// TestTimeEncodingZeroIsTS2Diff checks that the zero TimeEncoding of the
// options means TS_2DIFF, the reference writer's, and that PLAIN, the
// zero Encoding, is selected only by asking for it.
func TestTimeEncodingZeroIsTS2Diff(t *testing.T) {
	for _, tc := range []struct {
		opt  TimeEncoding
		want Encoding
	}{
		{TimeEncoding{}, encoding.TS2Diff},
		{TimeEncodingOf(encoding.Plain), encoding.Plain},
		{TimeEncodingOf(encoding.Gorilla), encoding.Gorilla},
	} {
		t.Run(tc.want.String(), func(t *testing.T) {
			require.Equal(t, tc.want, tc.opt.Encoding())
			require.Equal(t, tc.want.String(), tc.opt.String())

			var out bytes.Buffer
			w, err := NewWriter(&out, &WriteOptions{ConfiguredTimeEncoding: true, TimeEncoding: tc.opt})
			require.NoError(t, err)
			dev := NewDeviceID("root.sg", "d")
			times := []int64{1, 2, 3, 5, 8}
			require.NoError(t, w.WriteAligned(dev, times, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int64, Encoding: encoding.Plain}, Values: Values{Type: Int64, Int64s: []int64{1, 2, 3, 4, 5}}}}))
			require.NoError(t, w.WriteNonAligned(NewDeviceID("root.sg", "n"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "x", DataType: Int64, Encoding: encoding.Plain}, Times: times, Values: Values{Type: Int64, Int64s: []int64{1, 2, 3, 4, 5}}}}))
			require.NoError(t, w.Close())

			b := out.Bytes()
			f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{NonAlignedTimeEncoding: tc.opt})
			require.NoError(t, err)
			require.Equal(t, tc.want, f.Options().NonAlignedTimeEncoding.Encoding())
			ss, err := f.Series(dev)
			require.NoError(t, err)
			require.True(t, ss[0].IsTimeColumn())
			h, err := f.ReadChunkHeader(ss[0].Chunks[0].Offset)
			require.NoError(t, err)
			require.Equal(t, tc.want, h.Encoding, "aligned time chunk encoding")
			ns, err := f.Series(NewDeviceID("root.sg", "n"))
			require.NoError(t, err)
			got, _, err := f.ReadNonAligned(&ns[0])
			require.NoError(t, err)
			require.Equal(t, times, got)
		})
	}
}
