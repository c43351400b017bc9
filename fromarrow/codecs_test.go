package fromarrow

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/civil"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// codecColumn is a FIELD column of codecSchema and the TsFile type it is
// stored as.
type codecColumn struct {
	field arrow.Field
	typ   tsfile.DataType
}

// codecColumns has a column of every TsFile value type upstream readers
// of 2025 know (OBJECT is newer).
func codecColumns() []codecColumn {
	return []codecColumn{
		{tsField("b", arrow.FixedWidthTypes.Boolean), tsfile.Boolean},
		{tsField("i32", arrow.PrimitiveTypes.Int32), tsfile.Int32},
		{tsField("i64", arrow.PrimitiveTypes.Int64), tsfile.Int64},
		{tsField("f32", arrow.PrimitiveTypes.Float32), tsfile.Float},
		{tsField("f64", arrow.PrimitiveTypes.Float64), tsfile.Double},
		{tsField("text", arrow.BinaryTypes.String, arrowconv.MetaType, "TEXT"), tsfile.Text},
		{tsField("str", arrow.BinaryTypes.String), tsfile.String},
		{tsField("blob", arrow.BinaryTypes.Binary), tsfile.Blob},
		{tsField("date", arrow.FixedWidthTypes.Date32), tsfile.Date},
		{tsField("ts", arrow.FixedWidthTypes.Timestamp_ms), tsfile.Timestamp},
	}
}

// codecRows are sensor-like rows of two devices, device by device and in
// time order (the order a read returns them), with nulls, runs, extremes,
// NaN, infinities and -0.
func codecRows(perDevice int) [][]any {
	var rows [][]any
	for d, dev := range []string{"a", "b"} {
		tm := 1_700_000_000_000
		for k := range perDevice {
			tm += 1000 + (k*7+d)%5 // a sampling period with jitter
			r := []any{tm, dev,
				k%9 < 4 || k%50 == 0,
				1000 + (k/10)%40 - d,
				k * k * (d + 1),
				float32(20 + 5*math.Sin(float64(k)/40) + float64(d)),
				math.Round((1013+3*math.Cos(float64(k)/300))*100) / 100,
				fmt.Sprintf("note %d", k%5),
				[]string{"ok", "warn", "alarm"}[(k/100+d)%3],
				string([]byte{byte(k), byte(k >> 8), 0}),
				19675 + k/500,
				tm - 120 + k%240,
			}
			switch {
			case k%13 == 0:
				r[2+k%10] = nil
			case k == 5:
				r[3], r[4], r[5], r[6] = math.MinInt32, math.MinInt64, float32(math.NaN()), math.Inf(1)
			case k == 6:
				r[3], r[4], r[5], r[6] = math.MaxInt32, math.MaxInt64, float32(math.Copysign(0, -1)), math.NaN()
			case k == 7:
				r[5], r[6], r[7], r[9] = float32(math.Inf(-1)), math.SmallestNonzeroFloat64, "", ""
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// codecCell spells a value of codecRows as cellString spells the value read
// back: the naive model of a read.
func codecCell(v any, typ tsfile.DataType) string {
	if v == nil {
		return testkit.NullCell
	}
	switch typ {
	case tsfile.Boolean:
		return strconv.FormatBool(v.(bool))
	case tsfile.Float:
		return testkit.CanonFloat64(float64(v.(float32)))
	case tsfile.Double:
		return testkit.CanonFloat64(v.(float64))
	case tsfile.Text, tsfile.String:
		return v.(string)
	case tsfile.Blob:
		return "0x" + hex.EncodeToString([]byte(v.(string)))
	case tsfile.Date:
		y, m, d := civil.FromDays(int64(v.(int)))
		return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	case tsfile.Timestamp:
		return "t:" + strconv.Itoa(v.(int)) + "000000"
	}
	return strconv.Itoa(v.(int))
}

// codecCase is a file of TestWriteCodecs: its options and the encoding and
// compression every chunk must have.
type codecCase struct {
	name     string
	opts     Options
	enc      map[string]tsfile.Encoding // by column; "" is the time column
	comp     map[string]tsfile.Compression
	upstream string // sha256 of the file the upstream reader read as written
}

// iotdbDefaults is IoTDB 2.x's choice per type, written out here (not taken
// from DefaultEncoding) so that a change of the defaults fails the test:
// iotdb-system.properties.template default_*_encoding and *_compressor, and
// TSFileConfig's time encoder and compressor (see codecs.go).
var iotdbDefaults = map[string]tsfile.Encoding{
	"": encoding.TS2Diff, "b": encoding.RLE, "i32": encoding.TS2Diff, "i64": encoding.TS2Diff,
	"f32": encoding.Gorilla, "f64": encoding.Gorilla, "text": encoding.Plain, "str": encoding.Plain,
	"blob": encoding.Plain, "date": encoding.TS2Diff, "ts": encoding.TS2Diff,
}

func allOf[T any](v T) map[string]T {
	m := map[string]T{}
	for k := range iotdbDefaults {
		m[k] = v
	}
	return m
}

func with[T any](m map[string]T, kv ...any) map[string]T {
	out := map[string]T{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(T)
	}
	return out
}

func codecCases() []codecCase {
	plain := map[string]tsfile.Encoding{}
	for _, c := range codecColumns() {
		plain[c.field.Name] = encoding.Plain
	}
	return []codecCase{
		{
			name: "defaults", enc: iotdbDefaults, comp: allOf(encoding.LZ4),
			upstream: "2f170a76fe629e89a1df9f7596eea1bb91a1de01504c94a1b02428699146cbc5",
		},
		{
			// What WriteTsFile wrote before it took IoTDB's defaults: still
			// reachable by naming it.
			name: "plain", opts: Options{Encodings: plain, Compression: CompressionOf(encoding.Uncompressed)},
			enc: with(allOf(encoding.Plain), "", encoding.TS2Diff), comp: allOf(encoding.Uncompressed),
			upstream: "6ca220128003a75b1441fc0a769edae89596236ee6e87c734625574ed7780c77",
		},
		{
			name: "chosen",
			opts: Options{
				Encodings:       map[string]tsfile.Encoding{"str": encoding.Dictionary, "i64": encoding.Gorilla, "f64": encoding.Chimp},
				Compression:     CompressionOf(encoding.ZSTD),
				Compressions:    map[string]tsfile.Compression{"f64": encoding.Snappy, "b": encoding.Uncompressed},
				TimeCompression: CompressionOf(encoding.Gzip),
			},
			enc:      with(iotdbDefaults, "str", encoding.Dictionary, "i64", encoding.Gorilla, "f64", encoding.Chimp),
			comp:     with(allOf(encoding.ZSTD), "", encoding.Gzip, "f64", encoding.Snappy, "b", encoding.Uncompressed),
			upstream: "a819c92059ddf861249786ddcd4286eaf88f9c9f0824bf9c42bf9b5736d2ede6",
		},
		{
			// The writer's own time compression, where set, is kept.
			name: "write options", opts: Options{Write: &tsfile.WriteOptions{TimeCompression: encoding.Snappy}},
			enc: iotdbDefaults, comp: with(allOf(encoding.LZ4), "", encoding.Snappy),
		},
	}
}

// writeCodecCase writes c's file of codecRows(perDevice).
func writeCodecCase(t testing.TB, c codecCase, perDevice int) ([]byte, [][]any) {
	t.Helper()
	fields := []arrow.Field{{Name: "time", Type: arrow.PrimitiveTypes.Int64}, tsField("dev", arrow.BinaryTypes.String)}
	for _, col := range codecColumns() {
		fields = append(fields, col.field)
	}
	schema := arrow.NewSchema(fields, nil)
	rows := codecRows(perDevice)
	mem := testkit.CheckedMem(t)
	opts := c.opts
	opts.Table, opts.Tags = "m", []string{"dev"}
	// Pages of 1,000 rows: several pages per chunk. A Write without a
	// time compression leaves the time column to Compression.
	var w tsfile.WriteOptions
	if opts.Write != nil {
		w = *opts.Write
	}
	w.MaxPointsPerPage = 1000
	opts.Write = &w
	file, n, err := writeTs(t, schema, tsBatches(t, mem, schema, rows, 777), &opts)
	require.NoError(t, err)
	require.EqualValues(t, len(rows), n)
	return file, rows
}

// TestWriteCodecs checks that WriteTsFile writes every chunk in the
// encoding and compression the options and IoTDB's defaults choose, and
// that the rows read back are those written.
func TestWriteCodecs(t *testing.T) {
	const perDevice = 3000
	for _, c := range codecCases() {
		t.Run(c.name, func(t *testing.T) {
			file, rows := writeCodecCase(t, c, perDevice)
			f := testkit.OpenBytes(t, file)
			for _, dev := range []string{"a", "b"} {
				id := tsfile.NewDeviceID("m", dev)
				for col, enc := range c.enc {
					chunks := testkit.Chunks(t, f, id, col)
					require.NotEmpty(t, chunks)
					for _, ch := range chunks {
						require.Equal(t, enc, ch.Header.Encoding, "device %s column %q", dev, col)
						require.Equal(t, c.comp[col], ch.Header.Compression, "device %s column %q", dev, col)
					}
				}
				require.Greater(t, len(testkit.Chunks(t, f, id, "i32")[0].Pages), 1, "several pages")
			}
			// The table schema declares what the chunks hold.
			ts, ok := f.SchemaOf("m")
			require.True(t, ok)
			for _, col := range ts.Columns {
				if col.Category == tsfile.Field {
					require.Equal(t, c.enc[col.Name], col.Encoding, col.Name)
					require.Equal(t, c.comp[col.Name], col.Compression, col.Name)
				}
			}

			rd, err := arrowconv.NewTableReader(f, "m", &arrowconv.Options{Allocator: testkit.CheckedMem(t)})
			require.NoError(t, err)
			header, back := tsRows(t, rd)
			cols := codecColumns()
			want := []string{"time", "dev"}
			for _, col := range cols {
				want = append(want, col.field.Name)
			}
			require.Equal(t, want, header)
			require.Len(t, back, len(rows))
			for i, row := range back {
				require.Equal(t, "t:"+strconv.Itoa(rows[i][0].(int))+"000000", row[0], "row %d", i)
				require.Equal(t, rows[i][1], row[1], "row %d", i)
				for j, col := range cols {
					require.Equal(t, codecCell(rows[i][2+j], col.typ), row[2+j], "row %d column %s", i, col.field.Name)
				}
			}
		})
	}
}

// TestWriteCodecsUpstream pins the files of TestWriteCodecs that the
// upstream Java reader (apache/tsfile java 2.1.0-SNAPSHOT 69ff73d7,
// TsFileReader's table query, through the corpus tooling's Dump) read as
// written. With TSFILE_UPSTREAM_DUMP naming such a dump script (rows in the
// interop CSV format on standard output), it runs the upstream reader again
// and logs the sums to pin; without it, a file whose bytes changed fails
// until it is checked again.
func TestWriteCodecsUpstream(t *testing.T) {
	const perDevice = 3000
	dump := os.Getenv("TSFILE_UPSTREAM_DUMP")
	for _, c := range codecCases() {
		if c.upstream == "" && dump == "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			file, rows := writeCodecCase(t, c, perDevice)
			sum := sha256.Sum256(file)
			if dump == "" {
				require.Equal(t, c.upstream, hex.EncodeToString(sum[:]),
					"the bytes changed since the upstream reader read them: check them with TSFILE_UPSTREAM_DUMP")
				return
			}
			path := filepath.Join(t.TempDir(), c.name+".tsfile")
			require.NoError(t, os.WriteFile(path, file, 0o644))
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(dump, path)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "the upstream reader refused the file: %s", stderr.String())
			recs, err := csv.NewReader(&stdout).ReadAll()
			require.NoError(t, err)
			cols := codecColumns()
			header := []string{"time", "dev"}
			for _, col := range cols {
				header = append(header, col.field.Name)
			}
			require.Equal(t, header, recs[0])
			require.Len(t, recs[1:], len(rows))
			for i, rec := range recs[1:] {
				require.Equal(t, strconv.Itoa(rows[i][0].(int)), rec[0], "row %d", i)
				require.Equal(t, rows[i][1], rec[1], "row %d", i)
				for j, col := range cols {
					want := codecCell(rows[i][2+j], col.typ)
					if rec[2+j] == "" && (col.typ == tsfile.Text || col.typ == tsfile.String) {
						// The interop CSV spells null and "" alike.
						require.Contains(t, []string{testkit.NullCell, ""}, want, "row %d column %s", i, col.field.Name)
						continue
					}
					require.Equal(t, want, upstreamCell(t, rec[2+j], col.typ), "row %d column %s", i, col.field.Name)
				}
			}
			t.Logf("%s: upstream read the %d rows written; sha256 %x, %d bytes", c.name, len(rows), sum, len(file))
		})
	}
}

// upstreamCell spells a cell of the interop CSV as codecCell does.
func upstreamCell(t testing.TB, s string, typ tsfile.DataType) string {
	t.Helper()
	if s == "" && typ != tsfile.Text && typ != tsfile.String {
		return testkit.NullCell
	}
	switch typ {
	case tsfile.Float:
		f, err := strconv.ParseFloat(s, 32)
		require.NoError(t, err, s)
		return testkit.CanonFloat64(float64(float32(f)))
	case tsfile.Double:
		f, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, s)
		return testkit.CanonFloat64(f)
	case tsfile.Timestamp:
		return "t:" + s + "000000"
	}
	return s
}
