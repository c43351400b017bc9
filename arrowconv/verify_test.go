package arrowconv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// verifyTypes are the types whose pages are checked.
var verifyTypes = []tsfile.DataType{tsfile.Boolean, tsfile.Int32, tsfile.Date, tsfile.Int64, tsfile.Timestamp,
	tsfile.Float, tsfile.Double, tsfile.Text, tsfile.String, tsfile.Blob}

// verifyCol returns n values of type dt whose first and last are neither
// the least nor the greatest, with every third null when nulls.
func verifyCol(dt tsfile.DataType, n int, nulls bool) tsfile.Values {
	v := tsfile.Values{Type: dt}
	for i := range n {
		x := int64((i*7)%11 + 1)
		if i == n-1 {
			x = 5
		}
		switch dt {
		case tsfile.Boolean:
			v.Bools = append(v.Bools, x%2 == 1)
		case tsfile.Int32:
			v.Int32s = append(v.Int32s, int32(x))
		case tsfile.Date:
			v.Int32s = append(v.Int32s, int32(20240100+x))
		case tsfile.Int64, tsfile.Timestamp:
			v.Int64s = append(v.Int64s, x*1000)
		case tsfile.Float:
			v.Float32s = append(v.Float32s, float32(x)+0.5)
		case tsfile.Double:
			v.Float64s = append(v.Float64s, float64(x)+0.25)
		default:
			v.Binaries = append(v.Binaries, fmt.Appendf(nil, "v%02d", x))
		}
		if nulls {
			v.Null = append(v.Null, i%3 == 1)
		}
	}
	return v
}

// verifyFile writes, PLAIN and uncompressed so that damage lands on known
// values, in pages of 4 points: an aligned device root.v.al of every type
// (and TEXT and INT32 with nulls) over 6 rows, so two pages with
// statistics in their headers; root.v.one, aligned, of 3 rows, whose
// pages have none (the chunks' statistics in the index hold them); and a
// non-aligned device root.v.na of every type over 6 points and a series
// "one" of 3.
func verifyFile(t testing.TB) []byte {
	return verifyFileEnc(t, func(tsfile.DataType) tsfile.Encoding { return encoding.Plain })
}

// fastEncodings are encodings other than PLAIN for each type, whose
// pages get the fast check (see tsfile.Statistics.CheckInt64s).
func fastEncodings(dt tsfile.DataType) tsfile.Encoding {
	switch dt {
	case tsfile.Boolean:
		return encoding.RLE
	case tsfile.Float, tsfile.Double:
		return encoding.Gorilla
	case tsfile.Text, tsfile.String:
		return encoding.Dictionary
	case tsfile.Blob:
		return encoding.Plain
	}
	return encoding.TS2Diff
}

// verifyFileEnc is verifyFile with the value encodings of enc.
func verifyFileEnc(t testing.TB, enc func(tsfile.DataType) tsfile.Encoding) []byte {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{MaxPointsPerPage: 4, ConfiguredTimeEncoding: true, TimeEncoding: tsfile.TimeEncodingOf(encoding.Plain)})
	require.NoError(t, err)
	times := []int64{10, 20, 30, 40, 50, 60}
	var cols []tsfile.AlignedColumn
	var series []tsfile.NonAlignedSeries
	schema := func(name string, dt tsfile.DataType) tsfile.SeriesSchema {
		return tsfile.SeriesSchema{Name: name, DataType: dt, Encoding: enc(dt), Compression: encoding.Uncompressed}
	}
	for _, dt := range verifyTypes {
		cols = append(cols, tsfile.AlignedColumn{SeriesSchema: schema("s_"+dt.String(), dt), Values: verifyCol(dt, len(times), false)})
		series = append(series, tsfile.NonAlignedSeries{SeriesSchema: schema("s_"+dt.String(), dt), Times: times, Values: verifyCol(dt, len(times), false)})
	}
	for _, dt := range []tsfile.DataType{tsfile.Text, tsfile.Int32, tsfile.Boolean} {
		cols = append(cols, tsfile.AlignedColumn{SeriesSchema: schema("n_"+dt.String(), dt), Values: verifyCol(dt, len(times), true)})
	}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("root", "v", "al"), times, cols))
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("root", "v", "one"), times[:3],
		[]tsfile.AlignedColumn{{SeriesSchema: schema("s_DOUBLE", tsfile.Double), Values: verifyCol(tsfile.Double, 3, false)}}))
	series = append(series, tsfile.NonAlignedSeries{SeriesSchema: schema("one", tsfile.Double), Times: times[:3], Values: verifyCol(tsfile.Double, 3, false)})
	require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root", "v", "na"), series))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// verifyReadOpts reads verifyFile's non-aligned PLAIN time streams.
func verifyReadOpts(o tsfile.ReadOptions) *tsfile.ReadOptions {
	o.NonAlignedTimeEncoding = tsfile.TimeEncodingOf(encoding.Plain)
	return &o
}

// pageOf returns the header of page i of measurement m ("" the time
// chunk) of device dev.
func pageOf(t testing.TB, b []byte, dev, m string, i int) *tsfile.PageHeader {
	f := cppOpen(t, b, tsfile.ReadOptions{})
	ss, err := f.Series(tsfile.NewDeviceID("root", "v", dev))
	require.NoError(t, err)
	for k := range ss {
		if ss[k].Measurement == m {
			c, err := f.ReadChunk(ss[k].Chunks[0].Offset)
			require.NoError(t, err)
			return &c.Pages[i].Header
		}
	}
	t.Fatalf("no series %q of %s", m, dev)
	return nil
}

// withStats rewrites the statistics in the header of page i of m.
func withStats(t testing.TB, b []byte, dev, m string, i int, set func(*tsfile.Statistics)) []byte {
	h := pageOf(t, b, dev, m, i)
	require.NotNil(t, h.Statistics)
	at := h.Offset + int64(len(binary.AppendUvarint(nil, uint64(h.UncompressedSize)))+len(binary.AppendUvarint(nil, uint64(h.CompressedSize))))
	old := h.Statistics.AppendTo(nil)
	require.Equal(t, old, b[at:at+int64(len(old))])
	s := *h.Statistics
	s.First, s.Last = bytes.Clone(s.First), bytes.Clone(s.Last)
	set(&s)
	nw := s.AppendTo(nil)
	require.Len(t, nw, len(old))
	out := bytes.Clone(b)
	copy(out[at:], nw)
	return out
}

// withBody adds 1 to the last byte of the body of page i of m: with PLAIN
// the last value's last byte.
func withBody(t testing.TB, b []byte, dev, m string, i int) []byte {
	h := pageOf(t, b, dev, m, i)
	out := bytes.Clone(b)
	out[h.End()-1]++
	return out
}

// readTree reads every row of b with a tree reader, returning them in
// canonical form, with the file's warnings.
func readTree(t testing.TB, b []byte, o tsfile.ReadOptions, workers int) ([][]string, []tsfile.Warning, error) {
	f := cppOpen(t, b, o)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := NewTreeReader(f, "", &Options{Allocator: mem, BatchSize: 5, Workers: workers})
	require.NoError(t, err)
	defer r.Release()
	var rows [][]string
	for r.Next() {
		rec := r.RecordBatch()
		rows = appendRows(rows, rec)
	}
	return rows, f.Warnings(), r.Err()
}

// TestVerifyPages damages the statistics or the body of one page of each
// kind: the read fails with ErrCorrupt naming the device, chunk, page and
// statistic; under Lenient it warns once and returns the decoded rows,
// the same as NoVerify, which reads without a warning.
func TestVerifyPages(t *testing.T) {
	clean := verifyFile(t)
	cases := []struct {
		name, stat, where string
		damage            func() []byte
	}{
		{"time page start", "start time", `device root.v.al, VECTOR chunk "" at offset`, func() []byte {
			return withStats(t, clean, "al", "", 1, func(s *tsfile.Statistics) { s.StartTime-- })
		}},
		{"time page body", "end time", "page 0", func() []byte { return withBody(t, clean, "al", "", 0) }},
		{"single time page body", "end time", "the chunk's only page", func() []byte { return withBody(t, clean, "one", "", 0) }},
		{"INT32 max", "max", `INT32 chunk "s_INT32"`, func() []byte {
			return withStats(t, clean, "al", "s_INT32", 0, func(s *tsfile.Statistics) { s.MaxInt++ })
		}},
		{"DATE sum", "sum", "page 1", func() []byte {
			return withStats(t, clean, "al", "s_DATE", 1, func(s *tsfile.Statistics) { s.SumInt-- })
		}},
		{"INT64 first", "first", "INT64", func() []byte {
			return withStats(t, clean, "al", "s_INT64", 0, func(s *tsfile.Statistics) { s.FirstInt++ })
		}},
		{"TIMESTAMP last", "last", "TIMESTAMP", func() []byte {
			return withStats(t, clean, "al", "s_TIMESTAMP", 1, func(s *tsfile.Statistics) { s.LastInt++ })
		}},
		{"FLOAT min", "min", "FLOAT", func() []byte {
			return withStats(t, clean, "al", "s_FLOAT", 0, func(s *tsfile.Statistics) { s.MinFloat = -1 })
		}},
		{"DOUBLE sum", "sum", "DOUBLE", func() []byte {
			return withStats(t, clean, "al", "s_DOUBLE", 0, func(s *tsfile.Statistics) { s.Sum += 0.5 })
		}},
		{"BOOLEAN true count", "true count", "BOOLEAN", func() []byte {
			return withStats(t, clean, "al", "s_BOOLEAN", 0, func(s *tsfile.Statistics) { s.TrueCount++ })
		}},
		{"TEXT last", "last", "TEXT", func() []byte {
			return withStats(t, clean, "al", "s_TEXT", 0, func(s *tsfile.Statistics) { s.Last[1]++ })
		}},
		{"STRING first", "first", "STRING", func() []byte {
			return withStats(t, clean, "al", "s_STRING", 1, func(s *tsfile.Statistics) { s.First[2]++ })
		}},
		{"BLOB count", "count", "BLOB", func() []byte {
			return withStats(t, clean, "al", "s_BLOB", 0, func(s *tsfile.Statistics) { s.Count-- })
		}},
		{"nulls: count of non-null values", "count", `"n_INT32"`, func() []byte {
			return withStats(t, clean, "al", "n_INT32", 0, func(s *tsfile.Statistics) { s.Count++ })
		}},
		{"nulls: TEXT first", "first", `"n_TEXT"`, func() []byte {
			return withStats(t, clean, "al", "n_TEXT", 0, func(s *tsfile.Statistics) { s.First[1]++ })
		}},
		{"nulls: TEXT body", "last", `"n_TEXT"`, func() []byte { return withBody(t, clean, "al", "n_TEXT", 0) }},
		{"nulls: TEXT body, one value", "first", `"n_TEXT"`, func() []byte { return withBody(t, clean, "al", "n_TEXT", 1) }},
		{"DOUBLE body", "max", `"s_DOUBLE"`, func() []byte { return withBody(t, clean, "al", "s_DOUBLE", 0) }},
		{"INT32 body", "min", `"s_INT32"`, func() []byte { return withBody(t, clean, "al", "s_INT32", 1) }},
		{"single-page aligned body", "last", "the chunk's only page", func() []byte { return withBody(t, clean, "one", "s_DOUBLE", 0) }},
		{"non-aligned time start", "start time", "device root.v.na", func() []byte {
			return withStats(t, clean, "na", "s_INT64", 1, func(s *tsfile.Statistics) { s.StartTime-- })
		}},
		{"non-aligned INT64 sum", "sum", `"s_INT64"`, func() []byte {
			return withStats(t, clean, "na", "s_INT64", 0, func(s *tsfile.Statistics) { s.Sum++ })
		}},
		{"non-aligned BOOLEAN first", "first", "BOOLEAN", func() []byte {
			return withStats(t, clean, "na", "s_BOOLEAN", 1, func(s *tsfile.Statistics) { s.FirstBool = !s.FirstBool })
		}},
		{"non-aligned STRING body", "last", "STRING", func() []byte { return withBody(t, clean, "na", "s_STRING", 0) }},
		{"non-aligned single-page body", "last", "the chunk's only page", func() []byte { return withBody(t, clean, "na", "one", 0) }},
	}
	want, warns, err := readTree(t, clean, tsfile.ReadOptions{}, 1)
	require.NoError(t, err)
	require.Empty(t, warns)
	require.Len(t, want, 6+3+6)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.damage()
			for _, workers := range []int{1, 3} {
				_, _, err := readTree(t, b, tsfile.ReadOptions{}, workers)
				require.ErrorIs(t, err, tsfile.ErrCorrupt)
				msg := err.Error()
				require.Contains(t, msg, " "+c.stat+" is ")
				require.Contains(t, msg, " in the page body but ")
				require.Contains(t, msg, c.where)
				require.Contains(t, msg, "read with --lenient")
			}
			silent, warns, err := readTree(t, b, tsfile.ReadOptions{NoVerify: true}, 1)
			require.NoError(t, err)
			require.Empty(t, warns)
			rows, warns, err := readTree(t, b, tsfile.ReadOptions{Lenient: true}, 2)
			require.NoError(t, err)
			require.Len(t, warns, 1)
			require.Contains(t, warns[0].Msg, " "+c.stat+" is ")
			require.Equal(t, silent, rows)
		})
	}
}

// TestVerifyPagesFast: pages of encodings other than PLAIN get the fast
// check: count, first, last and the sum within its rounding bound, not min
// and max (see tsfile.Statistics.CheckInt64s).
func TestVerifyPagesFast(t *testing.T) {
	clean := verifyFileEnc(t, fastEncodings)
	cases := []struct {
		name, stat string // stat "" is an intact read
		damage     func() []byte
	}{
		{"INT64 last", "last", func() []byte {
			return withStats(t, clean, "al", "s_INT64", 0, func(s *tsfile.Statistics) { s.LastInt++ })
		}},
		{"INT64 sum", "sum", func() []byte {
			return withStats(t, clean, "al", "s_INT64", 1, func(s *tsfile.Statistics) { s.Sum += 1 })
		}},
		{"INT32 sum", "sum", func() []byte {
			return withStats(t, clean, "na", "s_INT32", 0, func(s *tsfile.Statistics) { s.SumInt-- })
		}},
		{"DOUBLE sum", "sum", func() []byte {
			return withStats(t, clean, "al", "s_DOUBLE", 0, func(s *tsfile.Statistics) { s.Sum *= 1 + 1e-9 })
		}},
		{"FLOAT first", "first", func() []byte {
			return withStats(t, clean, "al", "s_FLOAT", 1, func(s *tsfile.Statistics) { s.FirstFloat++ })
		}},
		{"TIMESTAMP count", "count", func() []byte {
			return withStats(t, clean, "na", "s_TIMESTAMP", 0, func(s *tsfile.Statistics) { s.Count++ })
		}},
		{"nulls: BOOLEAN true count", "true count", func() []byte {
			return withStats(t, clean, "al", "n_BOOLEAN", 0, func(s *tsfile.Statistics) { s.TrueCount++ })
		}},
		{"nulls: BOOLEAN last", "last", func() []byte {
			return withStats(t, clean, "al", "n_BOOLEAN", 0, func(s *tsfile.Statistics) { s.LastBool = !s.LastBool })
		}},
		{"BOOLEAN first", "first", func() []byte {
			return withStats(t, clean, "al", "s_BOOLEAN", 1, func(s *tsfile.Statistics) { s.FirstBool = !s.FirstBool })
		}},
		{"STRING last", "last", func() []byte {
			return withStats(t, clean, "na", "s_STRING", 0, func(s *tsfile.Statistics) { s.Last[1]++ })
		}},
		{"DOUBLE sum within the rounding bound", "", func() []byte {
			return withStats(t, clean, "al", "s_DOUBLE", 0, func(s *tsfile.Statistics) { s.Sum = math.Nextafter(s.Sum, 0) })
		}},
		{"INT64 max, not checked", "", func() []byte {
			return withStats(t, clean, "al", "s_INT64", 0, func(s *tsfile.Statistics) { s.MaxInt++ })
		}},
		{"DOUBLE min, not checked", "", func() []byte {
			return withStats(t, clean, "al", "s_DOUBLE", 1, func(s *tsfile.Statistics) { s.MinFloat-- })
		}},
	}
	want, warns, err := readTree(t, clean, tsfile.ReadOptions{}, 1)
	require.NoError(t, err)
	require.Empty(t, warns)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.damage()
			rows, _, err := readTree(t, b, tsfile.ReadOptions{}, 2)
			if c.stat == "" {
				require.NoError(t, err)
				require.Equal(t, want, rows)
				return
			}
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.Contains(t, err.Error(), " "+c.stat+" is ")
			rows, warns, err := readTree(t, b, tsfile.ReadOptions{Lenient: true}, 1)
			require.NoError(t, err)
			require.Len(t, warns, 1)
			require.Equal(t, want, rows) // the statistics were the damaged part
		})
	}
}
