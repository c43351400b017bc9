package tsfile

import (
	"bytes"
	"math"
)

// Statistics summarise the values of a page, a chunk or a whole series.
// Which fields are meaningful depends on Type:
//
//	BOOLEAN           FirstBool, LastBool, TrueCount
//	INT32, DATE       MinInt..LastInt (int32 range), SumInt
//	INT64, TIMESTAMP  MinInt..LastInt, Sum
//	FLOAT, DOUBLE     MinFloat..LastFloat, Sum
//	TEXT              First, Last
//	STRING            First, Last, Min, Max
//	BLOB, OBJECT, VECTOR  only the common fields
type Statistics struct {
	Type      DataType
	Count     int64 // values covered; non-null values for an aligned value column
	StartTime int64 // inclusive
	EndTime   int64 // inclusive

	MinInt, MaxInt, FirstInt, LastInt         int64
	MinFloat, MaxFloat, FirstFloat, LastFloat float64
	Sum                                       float64
	SumInt                                    int64

	FirstBool, LastBool bool
	TrueCount           int64

	First, Last, Min, Max []byte
}

// readStatistics decodes Statistics of type t.
func (d *buf) statistics(t DataType) Statistics {
	s := Statistics{Type: t}
	s.Count = int64(d.uvarint("statistics count"))
	s.StartTime = d.int64("statistics start_time")
	s.EndTime = d.int64("statistics end_time")
	switch t {
	case Boolean:
		s.FirstBool = d.bool1("statistics first")
		s.LastBool = d.bool1("statistics last")
		s.TrueCount = d.int64("statistics true_count")
	case Int32, Date:
		s.MinInt = int64(d.int32("statistics min"))
		s.MaxInt = int64(d.int32("statistics max"))
		s.FirstInt = int64(d.int32("statistics first"))
		s.LastInt = int64(d.int32("statistics last"))
		s.SumInt = d.int64("statistics sum")
	case Int64, Timestamp:
		s.MinInt = d.int64("statistics min")
		s.MaxInt = d.int64("statistics max")
		s.FirstInt = d.int64("statistics first")
		s.LastInt = d.int64("statistics last")
		s.Sum = d.float64("statistics sum")
	case Float:
		s.MinFloat = float64(d.float32("statistics min"))
		s.MaxFloat = float64(d.float32("statistics max"))
		s.FirstFloat = float64(d.float32("statistics first"))
		s.LastFloat = float64(d.float32("statistics last"))
		s.Sum = d.float64("statistics sum")
	case Double:
		s.MinFloat = d.float64("statistics min")
		s.MaxFloat = d.float64("statistics max")
		s.FirstFloat = d.float64("statistics first")
		s.LastFloat = d.float64("statistics last")
		s.Sum = d.float64("statistics sum")
	case Text:
		s.First, _ = d.binary32("statistics first")
		s.Last, _ = d.binary32("statistics last")
	case String:
		s.First, _ = d.binary32("statistics first")
		s.Last, _ = d.binary32("statistics last")
		s.Min, _ = d.binary32("statistics min")
		s.Max, _ = d.binary32("statistics max")
	case Blob, Object, Vector:
	default:
		d.fail("statistics of unsupported data type %s", t)
	}
	return s
}

// AppendTo appends the serialized Statistics to dst.
func (s *Statistics) AppendTo(dst []byte) []byte {
	dst = appendUVarint(dst, uint32(s.Count))
	dst = appendInt64(dst, s.StartTime)
	dst = appendInt64(dst, s.EndTime)
	switch s.Type {
	case Boolean:
		dst = appendBool(dst, s.FirstBool)
		dst = appendBool(dst, s.LastBool)
		dst = appendInt64(dst, s.TrueCount)
	case Int32, Date:
		for _, v := range [...]int64{s.MinInt, s.MaxInt, s.FirstInt, s.LastInt} {
			dst = appendInt32(dst, int32(v))
		}
		dst = appendInt64(dst, s.SumInt)
	case Int64, Timestamp:
		for _, v := range [...]int64{s.MinInt, s.MaxInt, s.FirstInt, s.LastInt} {
			dst = appendInt64(dst, v)
		}
		dst = appendInt64(dst, int64(math.Float64bits(s.Sum)))
	case Float:
		for _, v := range [...]float64{s.MinFloat, s.MaxFloat, s.FirstFloat, s.LastFloat} {
			dst = appendInt32(dst, int32(math.Float32bits(float32(v))))
		}
		dst = appendInt64(dst, int64(math.Float64bits(s.Sum)))
	case Double:
		for _, v := range [...]float64{s.MinFloat, s.MaxFloat, s.FirstFloat, s.LastFloat, s.Sum} {
			dst = appendInt64(dst, int64(math.Float64bits(v)))
		}
	case Text:
		dst = appendBinary32(dst, s.First, true)
		dst = appendBinary32(dst, s.Last, true)
	case String:
		for _, v := range [][]byte{s.First, s.Last, s.Min, s.Max} {
			dst = appendBinary32(dst, v, true)
		}
	}
	return dst
}

// Overlaps reports whether the inclusive time range [start, end] can hold a
// point covered by s.
func (s *Statistics) Overlaps(start, end int64) bool {
	return s.Count > 0 && s.StartTime <= end && s.EndTime >= start
}

// statsBuilder accumulates Statistics the way the reference writer does,
// one value at a time in time order.
type statsBuilder struct {
	s     Statistics
	empty bool
}

func newStatsBuilder(t DataType) *statsBuilder {
	return &statsBuilder{s: Statistics{Type: t}, empty: true}
}

func (b *statsBuilder) time(t int64) {
	if b.empty {
		b.s.StartTime = t
		b.empty = false
	}
	b.s.EndTime = t
	b.s.Count++
}

func (b *statsBuilder) addInt(t int64, v int64) {
	first := b.empty
	b.time(t)
	s := &b.s
	if first {
		s.MinInt, s.MaxInt, s.FirstInt = v, v, v
	}
	s.MinInt = min(s.MinInt, v)
	s.MaxInt = max(s.MaxInt, v)
	s.LastInt = v
	if s.Type == Int32 || s.Type == Date {
		s.SumInt += v
	} else {
		s.Sum += float64(v)
	}
}

func (b *statsBuilder) addFloat(t int64, v float64) {
	first := b.empty
	b.time(t)
	s := &b.s
	if first {
		s.MinFloat, s.MaxFloat, s.FirstFloat = v, v, v
	}
	// Comparisons written out so NaN never replaces a number, matching
	// Java's "v < min" updates.
	if v < s.MinFloat {
		s.MinFloat = v
	}
	if v > s.MaxFloat {
		s.MaxFloat = v
	}
	s.LastFloat = v
	s.Sum += v
}

func (b *statsBuilder) addBool(t int64, v bool) {
	first := b.empty
	b.time(t)
	if first {
		b.s.FirstBool = v
	}
	b.s.LastBool = v
	if v {
		b.s.TrueCount++
	}
}

func (b *statsBuilder) addBinary(t int64, v []byte) {
	first := b.empty
	b.time(t)
	s := &b.s
	if first {
		s.First = append([]byte{}, v...)
		if s.Type == String {
			s.Min = append([]byte{}, v...)
			s.Max = append([]byte{}, v...)
		}
	}
	s.Last = append(s.Last[:0], v...)
	if s.Type == String {
		if bytes.Compare(v, s.Min) < 0 {
			s.Min = append(s.Min[:0], v...)
		}
		if bytes.Compare(v, s.Max) > 0 {
			s.Max = append(s.Max[:0], v...)
		}
	}
}

// merge folds a later Statistics o of the same type into b.
func (b *statsBuilder) merge(o *Statistics) {
	if o.Count == 0 {
		return
	}
	if b.empty {
		b.s = *o
		b.s.First = append([]byte(nil), o.First...)
		b.s.Last = append([]byte(nil), o.Last...)
		b.s.Min = append([]byte(nil), o.Min...)
		b.s.Max = append([]byte(nil), o.Max...)
		b.empty = false
		return
	}
	s := &b.s
	s.Count += o.Count
	s.StartTime = min(s.StartTime, o.StartTime)
	s.EndTime = max(s.EndTime, o.EndTime)
	switch s.Type {
	case Boolean:
		s.LastBool = o.LastBool
		s.TrueCount += o.TrueCount
	case Int32, Date, Int64, Timestamp:
		s.MinInt = min(s.MinInt, o.MinInt)
		s.MaxInt = max(s.MaxInt, o.MaxInt)
		s.LastInt = o.LastInt
		s.SumInt += o.SumInt
		s.Sum += o.Sum
	case Float, Double:
		if o.MinFloat < s.MinFloat {
			s.MinFloat = o.MinFloat
		}
		if o.MaxFloat > s.MaxFloat {
			s.MaxFloat = o.MaxFloat
		}
		s.LastFloat = o.LastFloat
		s.Sum += o.Sum
	case Text, String:
		s.Last = append(s.Last[:0], o.Last...)
		if s.Type == String {
			if bytes.Compare(o.Min, s.Min) < 0 {
				s.Min = append(s.Min[:0], o.Min...)
			}
			if bytes.Compare(o.Max, s.Max) > 0 {
				s.Max = append(s.Max[:0], o.Max...)
			}
		}
	}
}

func (b *statsBuilder) result() Statistics {
	s := b.s
	s.First = append([]byte(nil), b.s.First...)
	s.Last = append([]byte(nil), b.s.Last...)
	s.Min = append([]byte(nil), b.s.Min...)
	s.Max = append([]byte(nil), b.s.Max...)
	if s.Type != String {
		s.Min, s.Max = nil, nil
	}
	if s.Type != Text && s.Type != String {
		s.First, s.Last = nil, nil
	}
	return s
}
