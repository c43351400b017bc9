package tsfile

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// readHexFixture reads an annotated hex file: '#' starts a comment.
func readHexFixture(t *testing.T, path string) []byte {
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	var out []byte
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		b, err := hex.DecodeString(strings.Join(strings.Fields(line), ""))
		require.NoError(t, err, line)
		out = append(out, b...)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestGoldenMinimalFile(t *testing.T) {
	b := readHexFixture(t, "../testdata/golden/minimal_table.hex")
	require.Len(t, b, 237)
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.Equal(t, int64(52), f.Metadata.MetaOffset)
	s, ok := f.SchemaOf("t")
	require.True(t, ok)
	require.Equal(t, []Column{{Name: "k", DataType: String, Category: Tag}}, s.Tags())
	devs, err := f.Devices("t")
	require.NoError(t, err)
	require.Equal(t, []DeviceID{NewDeviceID("t", "a")}, devs)
	series, err := f.Series(devs[0])
	require.NoError(t, err)
	require.Len(t, series, 2)
	require.True(t, series[0].IsTimeColumn())
	require.Equal(t, "v", series[1].Measurement)
	require.Equal(t, Statistics{Type: Int32, Count: 1, StartTime: 1, EndTime: 1, MinInt: 5, MaxInt: 5, FirstInt: 5, LastInt: 5, SumInt: 5}, series[1].Statistics)
	cols, err := f.ReadAligned(series)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, cols.Times)
	require.Equal(t, &Values{Type: Int32, Int32s: []int32{5, 0}, Null: []bool{false, true}}, cols.Columns["v"])

	// Our writer produces the same bytes from the same rows.
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(encoding.Plain), NoBloomFilter: true, NoEncryptionProperties: true})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{{Name: "k", DataType: String, Category: Tag}, {Name: "v", DataType: Int32, Category: Field}}}))
	require.NoError(t, w.WriteAligned(NewDeviceID("t", "a"), []int64{1, 2}, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int32}, Values: Values{Type: Int32, Int32s: []int32{5, 0}, Null: []bool{false, true}}}}))
	require.NoError(t, w.Close())
	require.Equal(t, hex.Dump(b), hex.Dump(out.Bytes()))
}
