package tsfile

import (
	"fmt"

	"github.com/tsarrow/tsarrow/bitmap"
	"github.com/tsarrow/tsarrow/encoding"
)

// Values is a column of values of one data type: the writer's input and
// the row-oriented helpers' output. Exactly the slice for Type is used:
// Bools (BOOLEAN), Int32s (INT32, DATE), Int64s (INT64, TIMESTAMP),
// Float32s (FLOAT), Float64s (DOUBLE), Binaries (TEXT, STRING, BLOB,
// OBJECT). Null, when non-nil, marks null positions; a null position's
// slot holds the zero value.
type Values struct {
	Type     DataType
	Null     []bool
	Bools    []bool
	Int32s   []int32
	Int64s   []int64
	Float32s []float32
	Float64s []float64
	Binaries [][]byte

	// quirk is a writer quirk a page's values were read around
	// (decodeDense), for the reader to note with the page's offset.
	quirk WriterQuirk
	// round is how a lossy encoding rounded a FLOAT or DOUBLE page's
	// values (decodeDense), for the statistics check.
	round FloatRounding
}

// Len returns the number of positions.
func (v *Values) Len() int {
	switch v.Type {
	case Boolean:
		return len(v.Bools)
	case Int32, Date:
		return len(v.Int32s)
	case Int64, Timestamp:
		return len(v.Int64s)
	case Float:
		return len(v.Float32s)
	case Double:
		return len(v.Float64s)
	}
	return len(v.Binaries)
}

// IsNull reports whether position i is null.
func (v *Values) IsNull(i int) bool { return v.Null != nil && v.Null[i] }

// NewValues returns an empty column of type t with room for n positions.
func NewValues(t DataType, n int) Values {
	v := Values{Type: t}
	v.resize(n)
	return v
}

func (v *Values) resize(n int) {
	switch v.Type {
	case Boolean:
		v.Bools = make([]bool, n)
	case Int32, Date:
		v.Int32s = make([]int32, n)
	case Int64, Timestamp:
		v.Int64s = make([]int64, n)
	case Float:
		v.Float32s = make([]float32, n)
	case Double:
		v.Float64s = make([]float64, n)
	default:
		v.Binaries = make([][]byte, n)
	}
}

// decodeDense decodes exactly n values of type t from a value stream.
// n comes from a time stream, which a few bytes can make claim millions of
// values, so what is allocated for them is checked against src first where
// the encoding allows: PLAIN spends at least a byte a value, and binary
// values are sized only once decoded (AppendBinary bounds n itself).
func decodeDense(t DataType, enc Encoding, src []byte, n int) (Values, error) {
	if enc == encoding.Plain && n > len(src) {
		return Values{Type: t}, fmt.Errorf("%d PLAIN %s values cannot fit in %d bytes: %w", n, t, len(src), encoding.ErrCorrupt)
	}
	v := Values{Type: t}
	if !t.IsBinary() {
		v = NewValues(t, n)
	}
	var err error
	switch t {
	case Boolean:
		err = encoding.DecodeBool(enc, v.Bools, src)
	case Int32, Date:
		err = encoding.DecodeInt32(enc, v.Int32s, src)
	case Int64, Timestamp:
		err = encoding.DecodeInt64(enc, v.Int64s, src)
	case Float:
		v.round, v.quirk, err = DecodeFloat32Page(enc, v.Float32s, src)
	case Double:
		v.round, v.quirk, err = DecodeFloat64Page(enc, v.Float64s, src)
	case Text, String, Blob, Object:
		var offs []int32
		var data []byte
		offs, data, err = encoding.AppendBinary(enc, make([]int32, 1, min(n, len(src))+1), nil, n, src)
		if err == nil {
			v = NewValues(t, n)
			for i := 0; i < n; i++ {
				v.Binaries[i] = data[offs[i]:offs[i+1]:offs[i+1]]
			}
		}
	default:
		err = fmt.Errorf("data type %s has no values: %w", t, encoding.ErrUnsupported)
	}
	return v, err
}

// decodeTimes decodes an aligned time page payload (off is its absolute
// offset) with the time chunk's own encoding, appending to dst. A stream
// declaring more than maxPoints timestamps is refused before anything is
// allocated: a few bytes of TS_2DIFF can claim billions of values.
func decodeTimes(h *ChunkHeader, payload []byte, off int64, dst []int64, maxPoints int) ([]int64, error) {
	if _, err := CountTimes(h.Encoding, payload, off, maxPoints); err != nil {
		return dst, err
	}
	out, err := encoding.AppendAllInt64(h.Encoding, dst, payload)
	if err != nil {
		return dst, CodecError(off, "aligned time page", err)
	}
	return out, nil
}

// decodeValuePage decodes an aligned value page payload covering the given
// number of positions (from the matching time page).
func decodeValuePage(h *ChunkHeader, payload []byte, off int64, positions int) (Values, error) {
	n, present, enc, err := SplitValuePage(payload, off)
	if err != nil {
		return Values{}, err
	}
	if n != positions {
		return Values{}, corruptf(off, "aligned value page", "position_count %d differs from the time page's %d timestamps", n, positions)
	}
	k := bitmap.CountMSB(present, n)
	dense, err := decodeDense(h.DataType, h.Encoding, enc, k)
	if err != nil {
		return Values{}, CodecError(off, "aligned value page", err)
	}
	if k == n {
		return dense, nil
	}
	v := NewValues(h.DataType, n)
	v.quirk, v.round = dense.quirk, dense.round
	v.Null = make([]bool, n)
	for i := range v.Null {
		v.Null[i] = !bitmap.GetMSB(present, i)
	}
	switch h.DataType {
	case Boolean:
		bitmap.Scatter(v.Bools, dense.Bools, present, n)
	case Int32, Date:
		bitmap.Scatter(v.Int32s, dense.Int32s, present, n)
	case Int64, Timestamp:
		bitmap.Scatter(v.Int64s, dense.Int64s, present, n)
	case Float:
		bitmap.Scatter(v.Float32s, dense.Float32s, present, n)
	case Double:
		bitmap.Scatter(v.Float64s, dense.Float64s, present, n)
	default:
		bitmap.Scatter(v.Binaries, dense.Binaries, present, n)
	}
	return v, nil
}

// nullValues returns a column of n null positions, for empty value pages and
// absent value chunks.
func nullValues(t DataType, n int) Values {
	v := NewValues(t, n)
	v.Null = make([]bool, n)
	for i := range v.Null {
		v.Null[i] = true
	}
	return v
}

// decodeNonAlignedPage decodes a non-aligned page payload: the time stream
// with timeEnc (not recorded in the file) and the value stream with the
// chunk's encoding; both must hold the same number of points.
func decodeNonAlignedPage(h *ChunkHeader, timeEnc Encoding, payload []byte, off int64, maxPoints int) ([]int64, Values, error) {
	ts, vs, err := SplitNonAlignedPage(payload, off)
	if err != nil {
		return nil, Values{}, err
	}
	if _, err := CountTimes(timeEnc, ts, off, maxPoints); err != nil {
		return nil, Values{}, err
	}
	times, err := encoding.AppendAllInt64(timeEnc, nil, ts)
	if err != nil {
		return nil, Values{}, CodecError(off, "non-aligned page time stream", err)
	}
	vals, err := decodeDense(h.DataType, h.Encoding, vs, len(times))
	if err != nil {
		return nil, Values{}, CodecError(off, "non-aligned page value stream", err)
	}
	return times, vals, nil
}
