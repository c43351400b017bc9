package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// objectDir writes an IoTDB data directory whose table t (TAG dev, FIELD
// o OBJECT) holds three rows: a segmented reference, a plain one (an
// older build's), and a null; the object folder holds both files.
func objectDir(t *testing.T) (root, file string) {
	t.Helper()
	root = t.TempDir()
	dir := filepath.Join(root, "sequence", "db", "1", "0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
	}}))
	plain := append([]byte{0, 0, 0, 0, 0, 0, 0, 5}, "1/t/d/o/2.bin"...)
	vals := tsfile.Values{Type: tsfile.Object, Null: []bool{false, false, true},
		Binaries: [][]byte{tsfile.AppendObjectCell(nil, 3, "1/OQ/MQ/N4/1.bin"), plain, nil}}
	id := tsfile.NewDeviceID("t", "d")
	require.NoError(t, w.WriteAligned(id, []int64{1, 2, 3}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "o", DataType: tsfile.Object}, Values: vals},
	}))
	require.NoError(t, w.Close())
	file = filepath.Join(dir, "1-1-0-0.tsfile")
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
	res := &dataset.Resource{IndexType: dataset.IndexArray, Devices: []dataset.DeviceTimes{{Device: id, Start: 1, End: 3}}}
	b, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file+dataset.ResourceSuffix, b, 0o644))
	for p, data := range map[string]string{"1/OQ/MQ/N4/1.bin": "abc", "1/t/d/o/2.bin": "hello"} {
		full := filepath.Join(root, "object", filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(data), 0o644))
	}
	return root, file
}

// TestCLIObjects: convert writes OBJECT references as {size, path} in
// CSV and JSONL (never the hex of the cell), and the objects' bytes with
// --object-bytes, from the data directory's object folder or
// --object-root for a loose file; a missing object and the size limit
// fail with one line naming the file or the flag; inspect counts the
// cells and their sizes.
func TestCLIObjects(t *testing.T) {
	root, file := objectDir(t)
	out := t.TempDir()

	convert := func(args ...string) (int, string, string) {
		return runCLI(append([]string{"convert", "--quiet", "--time-format", "epoch"}, args...)...)
	}
	csv := filepath.Join(out, "refs.csv")
	code, _, errOut := convert(root, "-o", csv, "--table", "t")
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(csv)
	require.NoError(t, err)
	require.Equal(t, "time,dev,o\n"+
		`1,d,"{""size"":3,""path"":""1/OQ/MQ/N4/1.bin""}"`+"\n"+
		`2,d,"{""size"":5,""path"":""1/t/d/o/2.bin""}"`+"\n"+
		"3,d,\n", string(b))

	jl := filepath.Join(out, "refs.jsonl")
	code, _, errOut = convert(file, "-o", jl)
	require.Equal(t, 0, code, errOut)
	b, err = os.ReadFile(jl)
	require.NoError(t, err)
	require.Contains(t, string(b), `"o":{"size":5,"path":"1/t/d/o/2.bin"}`)

	// Bytes, from the data directory's object folder.
	bj := filepath.Join(out, "bytes.jsonl")
	code, _, errOut = convert(root, "-o", bj, "--table", "t", "--object-bytes")
	require.Equal(t, 0, code, errOut)
	b, err = os.ReadFile(bj)
	require.NoError(t, err)
	require.Equal(t, `{"time":1,"dev":"d","o":"0x616263"}`+"\n"+
		`{"time":2,"dev":"d","o":"0x68656c6c6f"}`+"\n"+
		`{"time":3,"dev":"d","o":null}`+"\n", string(b))

	// A loose file knows no object folder until told.
	code, _, errOut = convert(file, "--raw", "-o", filepath.Join(out, "x.jsonl"), "--object-bytes")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "no object folder is known")
	code, _, errOut = convert(file, "--raw", "-o", filepath.Join(out, "x.jsonl"), "--object-bytes", "--object-root", filepath.Join(root, "object"))
	require.Equal(t, 0, code, errOut)

	code, _, errOut = convert(root, "-o", filepath.Join(out, "y.jsonl"), "--table", "t", "--object-bytes", "--max-object-size", "4")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "--max-object-size")
	require.Contains(t, errOut, "1/t/d/o/2.bin")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, errOut)

	require.NoError(t, os.Remove(filepath.Join(root, "object", "1", "t", "d", "o", "2.bin")))
	code, _, errOut = convert(root, "-o", filepath.Join(out, "z.jsonl"), "--table", "t", "--object-bytes")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "object file 1/t/d/o/2.bin is missing")
	_, err = os.Stat(filepath.Join(out, "z.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)

	code, stdout, errOut := runCLI("head", file, "--raw")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdout, "{size: 3, path: 1/OQ/MQ/N4/1.bin}")
	require.Contains(t, stdout, "{size: 5, path: 1/t/d/o/2.bin}")
	require.NotContains(t, stdout, "0x")
	require.NoError(t, os.WriteFile(filepath.Join(root, "object", "1", "t", "d", "o", "2.bin"), []byte("hello"), 0o644))
	code, stdout, errOut = runCLI("head", root, "--table", "t", "--object-bytes", "--width", "0")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdout, "0x68656c6c6f")

	code, stdout, errOut = runCLI("inspect", file, "--json")
	require.Equal(t, 0, code, errOut)
	var info struct {
		Objects struct {
			Cells     int64 `json:"cells"`
			TotalSize int64 `json:"total_size"`
		} `json:"objects"`
		Tables []struct {
			Objects *struct {
				Cells int64 `json:"cells"`
			} `json:"objects"`
		} `json:"tables"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &info))
	require.EqualValues(t, 2, info.Objects.Cells)
	require.EqualValues(t, 8, info.Objects.TotalSize)
	require.EqualValues(t, 2, info.Tables[0].Objects.Cells)
	code, stdout, _ = runCLI("inspect", file)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "objects:     2 cells, 8 bytes in object files")
}
