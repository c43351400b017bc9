package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// chunkCodecs returns the encoding and compression of every chunk of the
// file's table, by column ("time" for the time column); it fails if two
// chunks of a column differ.
func chunkCodecs(t *testing.T, path string) map[string][2]string {
	t.Helper()
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	out := map[string][2]string{}
	for _, table := range f.Tables() {
		devs, err := f.Devices(table)
		require.NoError(t, err)
		for _, d := range devs {
			series, err := f.Series(d)
			require.NoError(t, err)
			for _, s := range series {
				name := s.Measurement
				if name == "" {
					name = "time"
				}
				for _, cm := range s.Chunks {
					ch, err := f.ReadChunk(cm.Offset)
					require.NoError(t, err)
					got := [2]string{ch.Header.Encoding.String(), ch.Header.Compression.String()}
					if prev, ok := out[name]; ok {
						require.Equal(t, prev, got, "column %s", name)
					}
					out[name] = got
				}
			}
		}
	}
	return out
}

// TestReverseCodecs: the reverse path writes IoTDB's encodings and LZ4 by
// default, and --encoding and --compression override them per column.
func TestReverseCodecs(t *testing.T) {
	all := sampleRows(t)
	dir := t.TempDir()
	pq := filepath.Join(dir, "s.parquet")
	code, _, errOut := runCLI("convert", sample, "-o", pq)
	require.Equal(t, 0, code, errOut)
	iotdb := map[string][2]string{
		"time": {"TS_2DIFF", "LZ4"}, "temperature": {"GORILLA", "LZ4"}, "humidity": {"GORILLA", "LZ4"},
		"pressure": {"TS_2DIFF", "LZ4"}, "count": {"TS_2DIFF", "LZ4"}, "ok": {"RLE", "LZ4"},
		"note": {"PLAIN", "LZ4"}, "label": {"PLAIN", "LZ4"}, "raw": {"PLAIN", "LZ4"},
		"day": {"TS_2DIFF", "LZ4"}, "seen": {"TS_2DIFF", "LZ4"},
	}
	with := func(kv ...any) map[string][2]string {
		m := map[string][2]string{}
		for k, v := range iotdb {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].([2]string)
		}
		return m
	}
	for _, tc := range []struct {
		name string
		args []string
		want map[string][2]string
	}{
		{"defaults", nil, iotdb},
		{"per column", []string{"--encoding", "temperature=plain,label=DICTIONARY,count=ts-2diff,time=TS_2DIFF", "--compression", "zstd,pressure=snappy,time=none"},
			with("time", [2]string{"TS_2DIFF", "UNCOMPRESSED"}, "temperature", [2]string{"PLAIN", "ZSTD"}, "humidity", [2]string{"GORILLA", "ZSTD"},
				"pressure", [2]string{"TS_2DIFF", "SNAPPY"}, "count", [2]string{"TS_2DIFF", "ZSTD"}, "ok", [2]string{"RLE", "ZSTD"},
				"note", [2]string{"PLAIN", "ZSTD"}, "label", [2]string{"DICTIONARY", "ZSTD"}, "raw", [2]string{"PLAIN", "ZSTD"},
				"day", [2]string{"TS_2DIFF", "ZSTD"}, "seen", [2]string{"TS_2DIFF", "ZSTD"})},
		{"uncompressed", []string{"--compression", "uncompressed"},
			with("time", [2]string{"TS_2DIFF", "UNCOMPRESSED"}, "temperature", [2]string{"GORILLA", "UNCOMPRESSED"}, "humidity", [2]string{"GORILLA", "UNCOMPRESSED"},
				"pressure", [2]string{"TS_2DIFF", "UNCOMPRESSED"}, "count", [2]string{"TS_2DIFF", "UNCOMPRESSED"}, "ok", [2]string{"RLE", "UNCOMPRESSED"},
				"note", [2]string{"PLAIN", "UNCOMPRESSED"}, "label", [2]string{"PLAIN", "UNCOMPRESSED"}, "raw", [2]string{"PLAIN", "UNCOMPRESSED"},
				"day", [2]string{"TS_2DIFF", "UNCOMPRESSED"}, "seen", [2]string{"TS_2DIFF", "UNCOMPRESSED"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".tsfile")
			code, _, errOut := runCLI(append([]string{"convert", pq, "-o", out, "--tags", "region,station"}, tc.args...)...)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, tc.want, chunkCodecs(t, out))
			require.Equal(t, all, convertCSV(t, out))
		})
	}
	// TsFile to TsFile takes the same defaults and flags.
	out := filepath.Join(dir, "copy.tsfile")
	code, _, errOut = runCLI("convert", sample, "-o", out, "--encoding", "label=dictionary")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, with("label", [2]string{"DICTIONARY", "LZ4"}), chunkCodecs(t, out))
	require.Equal(t, all, convertCSV(t, out))
}

// TestReverseCodecErrors: a flag the output cannot take is a one-line
// usage error (exit 2) that names the column and the choices.
func TestReverseCodecErrors(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "s.parquet")
	code, _, errOut := runCLI("convert", sample, "-o", pq)
	require.Equal(t, 0, code, errOut)
	ts := filepath.Join(dir, "x.tsfile")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{pq, "-o", ts, "--encoding", "note=gorilla"}, []string{`column "note" is TEXT, which GORILLA cannot encode`, `set --encoding for "note" to one of PLAIN, DICTIONARY`}},
		{[]string{pq, "-o", ts, "--encoding", "pressure=camel"}, []string{`column "pressure" is INT32, which CAMEL cannot encode`, "TS_2DIFF"}},
		{[]string{pq, "-o", ts, "--encoding", "nope=plain"}, []string{`--encoding names column "nope", which the input does not have`, "temperature"}},
		{[]string{pq, "-o", ts, "--compression", "nope=zstd"}, []string{`--compression names column "nope"`}},
		{[]string{pq, "-o", ts, "--encoding", "region=dictionary"}, []string{`--encoding names TAG column "region"`}},
		{[]string{pq, "-o", ts, "--tags", "station", "--compression", "station=zstd"}, []string{`--compression names TAG column "station"`}},
		{[]string{pq, "-o", ts, "--encoding", "time=plain"}, []string{"time column is written in TS_2DIFF only"}},
		{[]string{pq, "-o", ts, "--encoding", "plain"}, []string{`--encoding "plain": want COLUMN=ENCODING`}},
		{[]string{pq, "-o", ts, "--encoding", "note=zip"}, []string{`unknown encoding "zip"`}},
		{[]string{pq, "-o", ts, "--encoding", "note=plain,note=dictionary"}, []string{`names column "note" twice`}},
		{[]string{pq, "-o", ts, "--compression", "lzo"}, []string{"LZO pages can be read but not written", "lz4"}},
		{[]string{pq, "-o", ts, "--compression", "brotli"}, []string{`unknown --compression "brotli" for tsfile (want uncompressed, snappy, gzip, lz4, zstd, lzma2)`}},
		{[]string{pq, "-o", ts, "--compression", "zstd,snappy"}, []string{"two compressions for every column"}},
		{[]string{pq, "-o", ts, "--compression", "raw=lzo"}, []string{"LZO"}},
		{[]string{sample, "-o", filepath.Join(dir, "x.parquet"), "--compression", "temperature=zstd"}, []string{"per column (COLUMN=CODEC) applies to tsfile output only"}},
		{[]string{sample, "-o", filepath.Join(dir, "x.csv"), "--encoding", "temperature=plain"}, []string{"--encoding applies to tsfile output only"}},
	} {
		code, _, errOut := runCLI(append([]string{"convert"}, tc.args...)...)
		require.Equal(t, 2, code, "%v: %s", tc.args, errOut)
		for _, w := range tc.want {
			require.Contains(t, errOut, w, tc.args)
		}
		require.Equal(t, 1, countLines(errOut), errOut)
		requireNoGoNames(t, errOut)
		require.NoFileExists(t, ts)
	}
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}
