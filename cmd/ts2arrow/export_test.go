package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/tsfile"
)

const sample = "../../testdata/sample.tsfile"

// exportMem returns an allocator that fails t if anything is still held
// from it when t ends.
func exportMem(t *testing.T) memory.Allocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// parquetAsCSV reads a Parquet file written by convert back with arrow-go
// and spells it as convert's CSV output does. It also returns the file's
// row group sizes and the codec of its first column chunk.
func parquetAsCSV(t *testing.T, data []byte) (csv string, groups []int64, codec compress.Compression) {
	t.Helper()
	mem := exportMem(t)
	pf, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(parquet.NewReaderProperties(mem)))
	require.NoError(t, err)
	defer pf.Close()
	for g := 0; g < pf.NumRowGroups(); g++ {
		rg := pf.MetaData().RowGroup(g)
		groups = append(groups, rg.NumRows())
		cc, err := rg.ColumnChunk(0)
		require.NoError(t, err)
		codec = cc.Compression()
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1000}, mem)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 1000)
	defer tr.Release()
	var buf bytes.Buffer
	_, err = export.WriteCSVWith(&buf, tr, &export.TextOptions{Time: export.TimeEpoch})
	require.NoError(t, err)
	return buf.String(), groups, codec
}

// ipcAsCSV does what parquetAsCSV does for an Arrow IPC file or stream.
func ipcAsCSV(t *testing.T, data []byte, stream bool) string {
	t.Helper()
	mem := exportMem(t)
	var rr array.RecordReader
	if stream {
		r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(mem))
		require.NoError(t, err)
		rr = r
	} else {
		fr, err := ipc.NewFileReader(bytes.NewReader(data), ipc.WithAllocator(mem))
		require.NoError(t, err)
		defer fr.Close()
		var recs []arrow.RecordBatch
		for i := 0; i < fr.NumRecords(); i++ {
			rec, err := fr.RecordBatchAt(i)
			require.NoError(t, err)
			recs = append(recs, rec)
		}
		r, err := array.NewRecordReader(fr.Schema(), recs)
		require.NoError(t, err)
		for _, rec := range recs {
			rec.Release()
		}
		rr = r
	}
	defer rr.Release()
	var buf bytes.Buffer
	_, err := export.WriteCSVWith(&buf, rr, &export.TextOptions{Time: export.TimeEpoch})
	require.NoError(t, err)
	return buf.String()
}

func sampleCSV(t *testing.T) string {
	t.Helper()
	code, out, stderr := runCLI("convert", sample, "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Equal(t, 0, code, stderr)
	return out
}

func TestConvertParquet(t *testing.T) {
	want := sampleCSV(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		compression string
		codec       compress.Compression
	}{
		{"", compress.Codecs.Zstd},
		{"zstd", compress.Codecs.Zstd},
		{"snappy", compress.Codecs.Snappy},
		{"gzip", compress.Codecs.Gzip},
		{"lz4", compress.Codecs.Lz4Raw},
		{"none", compress.Codecs.Uncompressed},
	} {
		t.Run(tc.compression, func(t *testing.T) {
			out := filepath.Join(dir, "s-"+tc.compression+".parquet")
			args := []string{"convert", sample, "-o", out, "--row-group-size", "400", "--batch-size", "128"}
			if tc.compression != "" {
				args = append(args, "--compression", tc.compression)
			}
			code, _, stderr := runCLI(args...)
			require.Equal(t, 0, code, stderr)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			require.Equal(t, "PAR1", string(data[:4]))
			got, groups, codec := parquetAsCSV(t, data)
			require.Equal(t, want, got)
			require.Equal(t, []int64{400, 400, 400, 300}, groups)
			require.Equal(t, tc.codec, codec)
		})
	}

	// The default row group holds the whole sample; .pq is Parquet too;
	// standard output needs --format.
	out := filepath.Join(dir, "s.pq")
	code, _, stderr := runCLI("convert", sample, "-o", out)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	got, groups, codec := parquetAsCSV(t, data)
	require.Equal(t, want, got)
	require.Equal(t, []int64{1500}, groups)
	require.Equal(t, compress.Codecs.Zstd, codec)

	code, stdout, stderr := runCLI("convert", sample, "--format", "parquet", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, string(data), stdout)
}

func TestConvertIPCCompression(t *testing.T) {
	want := sampleCSV(t)
	dir := t.TempDir()
	for _, format := range []string{"arrow", "arrows"} {
		for _, comp := range []string{"", "none", "zstd", "lz4"} {
			t.Run(format+"/"+comp, func(t *testing.T) {
				out := filepath.Join(dir, "s-"+comp+"."+format)
				args := []string{"convert", sample, "-o", out, "--batch-size", "100"}
				if comp != "" {
					args = append(args, "--compression", comp)
				}
				code, _, stderr := runCLI(args...)
				require.Equal(t, 0, code, stderr)
				data, err := os.ReadFile(out)
				require.NoError(t, err)
				require.Equal(t, want, ipcAsCSV(t, data, format == "arrows"))
			})
		}
	}
}

func TestConvertJ01ToParquet(t *testing.T) {
	needInterop(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "j01.parquet")
	code, _, errOut := runCLI("convert", interop+"j01_table_all_types_plain.tsfile", "-o", out, "--row-group-size", "250")
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	got, groups, _ := parquetAsCSV(t, data)
	require.Greater(t, len(groups), 1)
	csvPath := filepath.Join(dir, "j01.csv")
	require.NoError(t, os.WriteFile(csvPath, []byte(got), 0o644))

	keys := []string{"time", "region", "station"}
	wantHeader, want := readCSV(t, interop+"j01_table_all_types_plain.expected.csv.gz", keys...)
	gotHeader, rows := readCSV(t, csvPath, keys...)
	require.Equal(t, wantHeader, gotHeader)
	require.Len(t, rows, len(want))
	types := map[string]string{"c_float": "FLOAT", "c_double": "DOUBLE"}
	for k, w := range want {
		g, ok := rows[k]
		require.True(t, ok, "missing row %q", k)
		for col, wv := range w {
			require.True(t, sameCell(types[col], wv, g[col]), "row %q column %s: want %q got %q", k, col, wv, g[col])
		}
	}
}

func TestConvertExportUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"-o", filepath.Join(dir, "x.csv"), "--compression", "zstd"}, "--compression does not apply to csv output"},
		{[]string{"-o", filepath.Join(dir, "x.parquet"), "--compression", "brotli"}, `unknown --compression "brotli" for parquet (want zstd, snappy, gzip, lz4, none)`},
		{[]string{"-o", filepath.Join(dir, "x.arrow"), "--compression", "snappy"}, `unknown --compression "snappy" for arrow (want none, zstd, lz4)`},
		{[]string{"-o", filepath.Join(dir, "x.arrows"), "--compression", "gzip"}, `unknown --compression "gzip" for arrows`},
		{[]string{"-o", filepath.Join(dir, "x.arrow"), "--row-group-size", "10"}, "--row-group-size applies to parquet output only"},
		{[]string{"-o", filepath.Join(dir, "x.parquet"), "--row-group-size", "0"}, "--row-group-size must be positive"},
		{[]string{"-o", "-", "--format", "orc"}, "want parquet, arrow, arrows, csv, jsonl or tsfile"},
		{[]string{"-o", filepath.Join(dir, "x.bin")}, "pass --format parquet, arrow, arrows, csv, jsonl or tsfile"},
		{[]string{"-o", filepath.Join(dir, "x.tsfile"), "--compression", "brotli"}, `unknown --compression "brotli" for tsfile`},
		{[]string{"-o", filepath.Join(dir, "x.csv"), "--tags", "a"}, "--tags applies to tsfile output only"},
		{[]string{"-o", filepath.Join(dir, "x.csv"), "--start", "yesterday"}, `--start: not a time: "yesterday"; want an integer in the stored time unit, a date (2023-11-14)`},
		{[]string{"-o", filepath.Join(dir, "x.csv"), "--start", "10", "--end", "5"}, "--start is after --end"},
		{[]string{"-o", filepath.Join(dir, "x.csv"), "--where", "region"}, "want column=value"},
		{[]string{"-o", filepath.Join(dir, "d"), "--partition-by", "week"}, `unknown --partition-by "week"`},
		{[]string{"-o", "-", "--format", "csv", "--partition-by", "table"}, "--partition-by writes a directory"},
		{[]string{"-o", filepath.Join(dir, "x.csv"), "--quiet", "--verbose"}, "exclude each other"},
	} {
		code, _, stderr := runCLI(append([]string{"convert", sample}, tc.args...)...)
		require.Equal(t, 2, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.stderr, "%v", tc.args)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)

	// Help that was asked for goes to stdout, so that it pipes into less.
	code, stdout, stderr := runCLI("convert", "--help")
	require.Equal(t, 0, code)
	require.Empty(t, stderr)
	for _, s := range []string{"parquet", "--compression", "--row-group-size", "-o sample.parquet"} {
		require.Contains(t, stdout, s)
	}
}

// TestFailedParquetLeavesNothing breaks the last page of the sample, so
// that the conversion fails after row groups were written.
func TestFailedParquetLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
	require.NoError(t, err)
	devs, err := f.Devices("weather")
	require.NoError(t, err)
	series, err := f.Series(devs[len(devs)-1])
	require.NoError(t, err)
	c, err := f.ReadChunk(series[0].Chunks[len(series[0].Chunks)-1].Offset)
	require.NoError(t, err)
	body := c.Pages[len(c.Pages)-1].Header.BodyOffset()
	bad := append([]byte(nil), data...)
	copy(bad[body:], []byte{0xff, 0xff, 0xff, 0xff})
	in := filepath.Join(dir, "late.tsfile")
	require.NoError(t, os.WriteFile(in, bad, 0o644))
	code, _, stderr := runCLI("convert", in, "-o", filepath.Join(dir, "out.parquet"), "--batch-size", "100", "--row-group-size", "100")
	require.Equal(t, 1, code, stderr)
	require.True(t, strings.HasPrefix(stderr, "ts2arrow: "+in+": "), stderr)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), "out.parquet", "leftover %s", e.Name())
	}
}
