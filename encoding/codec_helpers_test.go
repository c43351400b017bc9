package encoding_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// This file holds the test helpers that several codecs' tests share, so that each codec's
// test file keeps only what is particular to it.

// xorPairOf returns the entry of xorPairs for enc and the Java type name typ.
func xorPairOf(enc encoding.Encoding, typ string) xorPair {
	for _, p := range xorPairs {
		if p.enc == enc && p.typ == typ {
			return p
		}
	}
	panic(enc.String() + " " + typ)
}

// checkGoldenInt32 checks that v appended to prefix gives prefix followed by want, and that
// want decodes to v.
func checkGoldenInt32(t *testing.T, enc encoding.Encoding, prefix []byte, v []int32, want []byte) {
	t.Helper()
	got, err := encoding.AppendEncodedInt32(enc, prefix, v)
	require.NoError(t, err)
	require.Equal(t, want, got)
	dst := make([]int32, len(v))
	require.NoError(t, encoding.DecodeInt32(enc, dst, want))
	require.Equal(t, v, dst)
}

// srRoundTripsAll runs srRoundTrips for enc on every value type, with the series of
// srIntSeries and srFloatSeries.
func srRoundTripsAll(t *testing.T, enc encoding.Encoding, lengths []int) {
	t.Run("INT32", func(t *testing.T) { srRoundTrips(t, enc, lengths, srIntSeries[int32]) })
	t.Run("INT64", func(t *testing.T) { srRoundTrips(t, enc, lengths, srIntSeries[int64]) })
	t.Run("FLOAT", func(t *testing.T) { srRoundTrips(t, enc, lengths, srFloatSeries[float32]) })
	t.Run("DOUBLE", func(t *testing.T) { srRoundTrips(t, enc, lengths, srFloatSeries[float64]) })
}

// srCheckErrorsAll runs srCheckErrors for enc on the series of n values of every value type,
// seeded with seed, seed+1, seed+2 and seed+3 in the order INT32, INT64, FLOAT, DOUBLE.
func srCheckErrorsAll(t *testing.T, enc encoding.Encoding, n int, seed uint64) {
	t.Helper()
	for _, v := range srIntSeries[int32](n, seed) {
		srCheckErrors(t, enc, v)
	}
	for _, v := range srIntSeries[int64](n, seed+1) {
		srCheckErrors(t, enc, v)
	}
	for _, v := range srFloatSeries[float32](n, seed+2) {
		srCheckErrors(t, enc, v)
	}
	for _, v := range srFloatSeries[float64](n, seed+3) {
		srCheckErrors(t, enc, v)
	}
}
