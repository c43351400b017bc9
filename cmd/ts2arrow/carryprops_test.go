package main

import (
	"bytes"
	be "encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// writePropsFile writes a small table t to dir/name: device d, times
// 1..4, FIELD v with a null at time 2, and the given footer properties.
func writePropsFile(t *testing.T, dir, name string, props []tsfile.Property) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{Properties: props})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int32, Category: tsfile.Field},
	}}))
	col := tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int32},
		Values: tsfile.Values{Type: tsfile.Int32, Int32s: []int32{1, 0, 3, 4}, Null: []bool{false, true, false, false}}}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", name), []int64{1, 2, 3, 4}, []tsfile.AlignedColumn{col}))
	require.NoError(t, w.Close())
	path := filepath.Join(dir, name+".tsfile")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o666))
	return path
}

// TestConvertCarriesProperties: converting TsFiles to a TsFile keeps
// their footer properties byte for byte (null apart from empty, bytes that
// are not UTF-8); a table point count is counted again for the rows
// written, not copied; a key the inputs disagree on is left out, with a
// warning.
func TestConvertCarriesProperties(t *testing.T) {
	dir := t.TempDir()
	plain := []tsfile.Property{
		{Key: "p.null", Null: true},
		{Key: "p.empty", Value: []byte{}},
		{Key: "p.bytes", Value: []byte{0xff, 0x00, 0xfe}},
	}
	stale := tsfile.Property{Key: tsfile.TablePointCountPrefix + "t", Value: be.BigEndian.AppendUint64(nil, 999)}
	a := writePropsFile(t, dir, "a", append(append([]tsfile.Property{}, plain...), stale, tsfile.Property{Key: "p.differs", Value: []byte("1")}))
	b := writePropsFile(t, dir, "b", append(append([]tsfile.Property{}, plain...), tsfile.Property{Key: "p.differs", Value: []byte("2")}))

	props := func(path string) []tsfile.Property {
		f, err := tsfile.OpenFile(path, nil)
		require.NoError(t, err)
		defer f.Close()
		return f.Metadata.Properties[3:] // after the encryption properties
	}
	requireProps := func(want, got []tsfile.Property) {
		t.Helper()
		require.Len(t, got, len(want), "%v", got)
		for i := range want {
			require.Equal(t, want[i].Key, got[i].Key)
			require.Equal(t, want[i].Null, got[i].Null, want[i].Key)
			require.True(t, bytes.Equal(want[i].Value, got[i].Value), "%s: %x", want[i].Key, got[i].Value)
		}
	}
	count := func(n uint64) tsfile.Property {
		return tsfile.Property{Key: stale.Key, Value: be.BigEndian.AppendUint64(nil, n)}
	}

	// One input, times 2..4: v non-null at 3 and 4.
	one := filepath.Join(dir, "one.tsfile")
	code, _, errOut := runCLI("convert", a, "-o", one, "--start", "2")
	require.Equal(t, 0, code, errOut)
	requireProps(append(append([]tsfile.Property{}, plain...), tsfile.Property{Key: "p.differs", Value: []byte("1")}, count(2)), props(one))

	// Two inputs: 3 + 3 values; p.differs left out.
	two := filepath.Join(dir, "two.tsfile")
	code, _, errOut = runCLI("convert", a, b, "-o", two)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, `footer property "p.differs" differs between the inputs`)
	requireProps(append(append([]tsfile.Property{}, plain...), count(6)), props(two))

	// No count in the input, none in the output.
	three := filepath.Join(dir, "three.tsfile")
	code, _, errOut = runCLI("convert", b, "-o", three)
	require.Equal(t, 0, code, errOut)
	requireProps(append(append([]tsfile.Property{}, plain...), tsfile.Property{Key: "p.differs", Value: []byte("2")}), props(three))
}
