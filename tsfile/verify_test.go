package tsfile

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// verifyValues are the values of every checked type, in an order where the
// first and last are neither the least nor the greatest.
func verifyValues(t DataType) Values {
	v := Values{Type: t}
	ints := []int64{5, -3, 9, 2, 7}
	for i, x := range ints {
		switch t {
		case Boolean:
			v.Bools = append(v.Bools, x%2 != 0)
		case Int32:
			v.Int32s = append(v.Int32s, int32(x))
		case Date:
			v.Int32s = append(v.Int32s, int32(20240100+x+10))
		case Int64, Timestamp:
			v.Int64s = append(v.Int64s, x<<40)
		case Float:
			v.Float32s = append(v.Float32s, float32(x)+0.1)
		case Double:
			v.Float64s = append(v.Float64s, float64(x)+0.1)
		default:
			v.Binaries = append(v.Binaries, []byte{byte('a' + i), byte('0' + x + 3)})
		}
	}
	return v
}

// statsOf is the writer's statistics of v at times 10, 20, ...
func statsOf(v Values) Statistics {
	b := newStatsBuilder(v.Type)
	for i := 0; i < v.Len(); i++ {
		b.add(int64(10*(i+1)), &v, i)
	}
	return b.result()
}

// TestCheckValues changes each statistic of each type in turn: the check
// names it, and the writer's own statistics pass.
func TestCheckValues(t *testing.T) {
	type change struct {
		stat string
		set  func(*Statistics)
	}
	num := []change{
		{"count", func(s *Statistics) { s.Count++ }},
		{"min", func(s *Statistics) { s.MinInt--; s.MinFloat-- }},
		{"max", func(s *Statistics) { s.MaxInt++; s.MaxFloat++ }},
		{"first", func(s *Statistics) { s.FirstInt++; s.FirstFloat++ }},
		{"last", func(s *Statistics) { s.LastInt++; s.LastFloat++ }},
		{"sum", func(s *Statistics) { s.SumInt++; s.Sum = math.Nextafter(s.Sum, math.Inf(1)) }},
	}
	cases := map[DataType][]change{
		Int32: num, Date: num, Int64: num, Timestamp: num, Float: num, Double: num,
		Boolean: {
			{"count", func(s *Statistics) { s.Count-- }},
			{"first", func(s *Statistics) { s.FirstBool = !s.FirstBool }},
			{"last", func(s *Statistics) { s.LastBool = !s.LastBool }},
			{"true count", func(s *Statistics) { s.TrueCount++ }},
		},
		Text: {
			{"count", func(s *Statistics) { s.Count++ }},
			{"first", func(s *Statistics) { s.First = []byte("x") }},
			{"last", func(s *Statistics) { s.Last = append(s.Last, 'x') }},
		},
		String: {
			{"first", func(s *Statistics) { s.First = nil }},
			{"last", func(s *Statistics) { s.Last[0]++ }},
		},
		Blob: {{"count", func(s *Statistics) { s.Count = 0 }}},
	}
	for dt, changes := range cases {
		v := verifyValues(dt)
		good := statsOf(v)
		require.NoError(t, good.CheckValues(&v), dt)
		for _, c := range changes {
			s := statsOf(v)
			c.set(&s)
			err := s.CheckValues(&v)
			var m *StatisticsMismatch
			require.True(t, errors.As(err, &m), "%s %s: %v", dt, c.stat, err)
			require.Equal(t, c.stat, m.Statistic[:len(c.stat)], "%s: %v", dt, err)
			require.Contains(t, err.Error(), " in the page body but ")
		}
	}
}

// TestCheckSumOrder: the sums are the writer's sequence of additions, so a
// reordered page fails on its sum where rounding tells (DOUBLE), and an
// INT32 sum past 32 bits is a long.
func TestCheckSumOrder(t *testing.T) {
	d := Values{Type: Double, Float64s: []float64{1e16, 1, -1e16, 1, 3}}
	s := statsOf(d)
	require.NoError(t, s.CheckValues(&d))
	// The same values in another order, first and last kept: in doubles
	// 1e16+1 rounds to 1e16, so the writer's sum is 4, this order's 5.
	d.Float64s = []float64{1e16, -1e16, 1, 1, 3}
	var m *StatisticsMismatch
	require.ErrorAs(t, s.CheckValues(&d), &m)
	require.Equal(t, "sum", m.Statistic)
	require.Equal(t, "sum is 5 in the page body but 4 in its statistics", m.Error())
	i := Values{Type: Int32, Int32s: []int32{math.MaxInt32, math.MaxInt32, 1}}
	s = statsOf(i)
	require.Equal(t, int64(2*math.MaxInt32+1), s.SumInt)
	require.NoError(t, s.CheckValues(&i))
	// An older writer's INT32 sum, a double in the same bytes.
	s.SumInt = int64(math.Float64bits(2*math.MaxInt32 + 1))
	require.NoError(t, s.CheckValues(&i))
	s.SumInt = int64(math.Float64bits(2 * math.MaxInt32))
	require.ErrorAs(t, s.CheckValues(&i), &m)
	require.Equal(t, "sum", m.Statistic)
	// NaN: never the min or max unless first, as the writer compares.
	f := Values{Type: Float, Float32s: []float32{1, float32(math.NaN()), -2}}
	s = statsOf(f)
	require.NoError(t, s.CheckValues(&f))
	f = Values{Type: Float, Float32s: []float32{float32(math.NaN()), 1}}
	s = statsOf(f)
	require.NoError(t, s.CheckValues(&f))
}

// TestCheckTimes covers the time checks and nulls being skipped.
func TestCheckTimes(t *testing.T) {
	s := Statistics{Count: 3, StartTime: 1, EndTime: 9}
	require.NoError(t, s.CheckTimes([]int64{1, 5, 9}))
	for _, c := range []struct {
		ts   []int64
		stat string
	}{{[]int64{1, 9}, "count"}, {[]int64{2, 5, 9}, "start time"}, {[]int64{1, 5, 8}, "end time"}} {
		var m *StatisticsMismatch
		require.ErrorAs(t, s.CheckTimes(c.ts), &m)
		require.Equal(t, c.stat, m.Statistic)
	}
	v := Values{Type: Int32, Int32s: []int32{0, 4, 0, 6}, Null: []bool{true, false, true, false}}
	st := statsOf(Values{Type: Int32, Int32s: []int32{4, 6}})
	require.NoError(t, st.CheckValues(&v))
	v.Int32s[3] = 7
	require.Error(t, st.CheckValues(&v))
}

// verifyFile writes an aligned device and a non-aligned one of every
// checked type, PLAIN and uncompressed so that damage lands on known
// values, in pages of 4 points: chunks of 5 points have two pages, with
// statistics in their headers; "one" has a single page, whose statistics
// are the chunk's in the index.
func verifyFile(t *testing.T) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &WriteOptions{MaxPointsPerPage: 4})
	require.NoError(t, err)
	types := []DataType{Boolean, Int32, Date, Int64, Timestamp, Float, Double, Text, String, Blob}
	times := []int64{10, 20, 30, 40, 50}
	var cols []AlignedColumn
	var series []NonAlignedSeries
	for _, dt := range types {
		ss := SeriesSchema{Name: "s_" + dt.String(), DataType: dt, Encoding: encoding.Plain, Compression: encoding.Uncompressed}
		cols = append(cols, AlignedColumn{SeriesSchema: ss, Values: verifyValues(dt)})
		series = append(series, NonAlignedSeries{SeriesSchema: ss, Times: times, Values: verifyValues(dt)})
	}
	require.NoError(t, w.WriteAligned(NewDeviceID("root", "al"), times, cols))
	one := SeriesSchema{Name: "one", DataType: Double, Encoding: encoding.Plain, Compression: encoding.Uncompressed}
	series = append(series, NonAlignedSeries{SeriesSchema: one, Times: times[:3], Values: Values{Type: Double, Float64s: []float64{1, 3, 2}}})
	require.NoError(t, w.WriteNonAligned(NewDeviceID("root", "na"), series))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// verifyPage finds page i of the chunk of measurement m of device dev.
func verifyPage(t *testing.T, b []byte, dev DeviceID, m string, i int) (*Chunk, *Page) {
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	ss, err := f.Series(dev)
	require.NoError(t, err)
	for k := range ss {
		if ss[k].Measurement == m {
			c, err := f.ReadChunk(ss[k].Chunks[0].Offset)
			require.NoError(t, err)
			return c, &c.Pages[i]
		}
	}
	t.Fatalf("no series %q", m)
	return nil, nil
}

// damageStats rewrites the statistics in the header of page i of m.
func damageStats(t *testing.T, b []byte, dev DeviceID, m string, i int, set func(*Statistics)) []byte {
	_, p := verifyPage(t, b, dev, m, i)
	h := p.Header
	require.NotNil(t, h.Statistics)
	at := h.Offset + int64(len(appendUVarint(nil, uint32(h.UncompressedSize)))+len(appendUVarint(nil, uint32(h.CompressedSize))))
	old := h.Statistics.AppendTo(nil)
	require.Equal(t, old, b[at:at+int64(len(old))])
	s := *h.Statistics
	set(&s)
	nw := s.AppendTo(nil)
	require.Len(t, nw, len(old))
	out := bytes.Clone(b)
	copy(out[at:], nw)
	return out
}

// damageBody adds delta to the byte back bytes before the end of the body
// of page i of m: the last value's last byte, for back 1 and PLAIN.
func damageBody(t *testing.T, b []byte, dev DeviceID, m string, i, back int, delta byte) []byte {
	_, p := verifyPage(t, b, dev, m, i)
	out := bytes.Clone(b)
	out[p.Header.End()-int64(back)] += delta
	return out
}

// TestReadRowsVerify damages page statistics and bodies of the row helpers'
// files: ReadAligned and ReadNonAligned fail naming the statistic, keep the
// values with a warning under Lenient, and read silently with NoVerify.
func TestReadRowsVerify(t *testing.T) {
	clean := verifyFile(t)
	al, na := NewDeviceID("root", "al"), NewDeviceID("root", "na")
	cases := []struct {
		name, stat string
		dev        DeviceID
		damage     func() []byte
	}{
		{"aligned INT32 max", "max", al, func() []byte {
			return damageStats(t, clean, al, "s_INT32", 0, func(s *Statistics) { s.MaxInt++ })
		}},
		{"aligned time start", "start time", al, func() []byte {
			return damageStats(t, clean, al, "", 0, func(s *Statistics) { s.StartTime-- })
		}},
		{"aligned DOUBLE body", "last", al, func() []byte { return damageBody(t, clean, al, "s_DOUBLE", 0, 1, 1) }},
		{"non-aligned TEXT last", "last", na, func() []byte {
			return damageStats(t, clean, na, "s_TEXT", 1, func(s *Statistics) { s.Last[0]++ })
		}},
		{"non-aligned INT64 sum", "sum", na, func() []byte {
			return damageStats(t, clean, na, "s_INT64", 0, func(s *Statistics) { s.Sum++ })
		}},
		{"single-page body", "last", na, func() []byte { return damageBody(t, clean, na, "one", 0, 1, 1) }},
	}
	read := func(b []byte, o *ReadOptions, dev DeviceID) (*File, error) {
		f, err := Open(bytes.NewReader(b), int64(len(b)), o)
		require.NoError(t, err)
		ss, err := f.Series(dev)
		require.NoError(t, err)
		if dev.Equal(al) {
			_, err = f.ReadAligned(ss)
			return f, err
		}
		for k := range ss {
			if _, _, err = f.ReadNonAligned(&ss[k]); err != nil {
				break
			}
		}
		return f, err
	}
	for _, dev := range []DeviceID{al, na} {
		_, err := read(clean, nil, dev)
		require.NoError(t, err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.damage()
			_, err := read(b, nil, c.dev)
			require.ErrorIs(t, err, ErrCorrupt)
			require.Contains(t, err.Error(), c.stat+" is ")
			require.Contains(t, err.Error(), "--no-verify")
			f, err := read(b, &ReadOptions{Lenient: true}, c.dev)
			require.NoError(t, err)
			require.Len(t, f.Warnings(), 1)
			require.Contains(t, f.Warnings()[0].Msg, c.stat+" is ")
			f, err = read(b, &ReadOptions{NoVerify: true}, c.dev)
			require.NoError(t, err)
			require.Empty(t, f.Warnings())
		})
	}
}

// TestCheckFast: without exact, count, first, last and the sum are
// checked, the sum within its rounding bound, and min and max are not.
func TestCheckFast(t *testing.T) {
	d := Values{Type: Double, Float64s: []float64{1e16, 1, -1e16, 1, 3, 2}}
	s := statsOf(d)
	require.NoError(t, s.CheckFloat64s(d.Float64s, false))
	require.NoError(t, s.CheckFloat64s(d.Float64s, true))
	// The same values in another order, first and last kept: within the
	// bound, while the exact check tells the orders apart.
	r := []float64{1e16, -1e16, 1, 1, 3, 2}
	require.NoError(t, s.CheckFloat64s(r, false))
	var m *StatisticsMismatch
	require.ErrorAs(t, s.CheckFloat64s(r, true), &m)
	require.Equal(t, "sum", m.Statistic)
	// A value moved by more than the bound fails.
	r[2] = 1e9
	require.ErrorAs(t, s.CheckFloat64s(r, false), &m)
	require.Equal(t, "sum", m.Statistic)
	for _, c := range []struct {
		stat string
		set  func(*Statistics)
		fast bool // the fast check sees it
	}{
		{"min", func(s *Statistics) { s.MinInt--; s.MinFloat-- }, false},
		{"max", func(s *Statistics) { s.MaxInt++; s.MaxFloat++ }, false},
		{"first", func(s *Statistics) { s.FirstInt++; s.FirstFloat++ }, true},
		{"last", func(s *Statistics) { s.LastInt--; s.LastFloat-- }, true},
		{"sum", func(s *Statistics) { s.SumInt += 3; s.Sum += 3 }, true},
		{"count", func(s *Statistics) { s.Count-- }, true},
	} {
		for _, dt := range []DataType{Int32, Int64, Float, Double} {
			v := verifyValues(dt)
			st := statsOf(v)
			c.set(&st)
			var err error
			switch dt {
			case Int32:
				err = st.CheckInt32s(v.Int32s, false)
			case Int64:
				err = st.CheckInt64s(v.Int64s, false)
			case Float:
				err = st.CheckFloat32s(v.Float32s, false)
			case Double:
				err = st.CheckFloat64s(v.Float64s, false)
			}
			if !c.fast {
				require.NoError(t, err, "%s %s", dt, c.stat)
				continue
			}
			require.ErrorAs(t, err, &m, "%s %s", dt, c.stat)
			require.Equal(t, c.stat, m.Statistic, "%s", dt)
		}
	}
}
