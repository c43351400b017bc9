package main

import (
	"bytes"
	be "encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// TestInspectProperties: inspect shows TsFile 2.5's binary footer
// property values as what they are, in text and JSON: null apart from
// empty, bytes as hex (never raw, also when they happen to be UTF-8, as
// an 8-byte count is), text that looks like hex apart from hex, and
// table point counts decoded.
func TestInspectProperties(t *testing.T) {
	props := []tsfile.Property{
		{Key: "p.null", Null: true},
		{Key: "p.empty", Value: []byte{}},
		{Key: "p.bytes", Value: []byte{0xff, 0x00, 0xfe}},
		{Key: "p.hexlike", Value: []byte("0xff")},
		{Key: "p.text", Value: []byte("hello world")},
		{Key: tsfile.TablePointCountPrefix + "t", Value: be.BigEndian.AppendUint64(nil, 6)},
		{Key: tsfile.TablePointCountPrefix + "old", Value: []byte("5")},
	}
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{Properties: props})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{{Name: "v", DataType: tsfile.Int32, Category: tsfile.Field}}}))
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t"), []int64{1}, []tsfile.AlignedColumn{{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int32}, Values: tsfile.Values{Type: tsfile.Int32, Int32s: []int32{1}}}}))
	require.NoError(t, w.Close())
	path := filepath.Join(t.TempDir(), "p.tsfile")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o666))

	code, out, errOut := runCLI("inspect", path)
	require.Equal(t, 0, code, errOut)
	for _, line := range []string{
		"property:    p.null is null\n",
		"property:    p.empty = \"\"\n",
		"property:    p.bytes = 0xff00fe (3 bytes)\n",
		"property:    p.hexlike = \"0xff\"\n",
		"property:    p.text = hello world\n",
		"property:    tablePointCount.t = 0x0000000000000006 (6 points)\n",
		"property:    tablePointCount.old = \"5\" (5 points)\n",
	} {
		require.Contains(t, out, line)
	}
	require.NotContains(t, out, "\x00")
	require.NotContains(t, out, "encryptKey")

	code, out, errOut = runCLI("inspect", "--json", path)
	require.Equal(t, 0, code, errOut)
	var info struct {
		Properties     map[string]string `json:"properties"`
		PropertyValues []map[string]any  `json:"property_values"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	require.Equal(t, map[string]string{
		"encryptLevel": "0", "encryptType": "org.apache.tsfile.encrypt.UNENCRYPTED",
		"p.empty": "", "p.bytes": "0xff00fe", "p.hexlike": "0xff", "p.text": "hello world",
		"tablePointCount.t": "0x0000000000000006", "tablePointCount.old": "5",
	}, info.Properties)
	want := []map[string]any{
		{"key": "encryptLevel", "text": "0", "hex": "30"},
		{"key": "encryptType", "text": "org.apache.tsfile.encrypt.UNENCRYPTED", "hex": "6f72672e6170616368652e747366696c652e656e63727970742e554e454e43525950544544"},
		{"key": "p.null", "null": true},
		{"key": "p.empty", "text": "", "hex": ""},
		{"key": "p.bytes", "hex": "ff00fe"},
		{"key": "p.hexlike", "text": "0xff", "hex": "30786666"},
		{"key": "p.text", "text": "hello world", "hex": "68656c6c6f20776f726c64"},
		{"key": "tablePointCount.t", "hex": "0000000000000006", "point_count": float64(6)},
		{"key": "tablePointCount.old", "text": "5", "hex": "35", "point_count": float64(5)},
	}
	require.Equal(t, want, info.PropertyValues)
}
