package encoding_test

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// javaSafePages returns k random pages of the shapes that reach the layouts the upstream Java
// decoders fail on: all-zero and sparse pages (SEPARATE_STORAGE split at width 0), pages of
// one or two values and pages whose cut would leave one value in a LAMINAR array, among
// ordinary ones. Sizes are mostly small, where those layouts are likely, with some large.
func javaSafePages(r *rand.Rand, k int) [][]int64 {
	edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	wide := func() int64 { return r.Int64() >> r.IntN(64) * int64(1-2*r.IntN(2)) }
	pages := make([][]int64, 0, k)
	for len(pages) < k {
		var n int
		switch r.IntN(8) {
		case 0:
			n = 1
		case 1:
			n = 2
		case 2:
			n = 1 + r.IntN(3000)
		default:
			n = 1 + r.IntN(40)
		}
		v := make([]int64, n)
		switch shape := r.IntN(10); shape {
		case 0: // all zero
		case 1: // one non-zero value somewhere, or at either end
			v[[]int{0, n - 1, r.IntN(n)}[r.IntN(3)]] = wide()
		case 2: // sparse
			for i := range v {
				if r.IntN(8) == 0 {
					v[i] = wide()
				}
			}
		case 3: // a wide head, then small values
			v[0] = wide()
			for i := 1; i < n; i++ {
				v[i] = r.Int64N(3) - 1
			}
		case 4:
			for i := range v {
				v[i] = edges[r.IntN(len(edges))]
			}
		case 5: // decaying
			s := r.IntN(40)
			for i := range v {
				v[i] = (int64(n-i) << s) / int64(n)
			}
		case 6:
			for i := range v {
				v[i] = int64(r.Uint64())
			}
		case 7: // small
			for i := range v {
				v[i] = r.Int64N(17) - 8
			}
		default:
			for i := range v {
				v[i] = wide()
			}
		}
		pages = append(pages, v)
	}
	return pages
}

// requireJavaSafe checks the layout rules that keep a block readable by the upstream Java
// decoders (see sepstorage.go and laminar.go): a SEPARATE_STORAGE split width of at least 1,
// and a LAMINAR cut that leaves no array of exactly one value.
func requireJavaSafe(t *testing.T, e encoding.Encoding, v []int64, b []byte) {
	t.Helper()
	if len(v) == 0 {
		return
	}
	switch e {
	case encoding.SeparateStorage:
		require.NotZero(t, binary.BigEndian.Uint32(b[4:]), "SEPARATE_STORAGE split width 0 for %v", v)
	case encoding.Laminar:
		p := int(binary.BigEndian.Uint32(b[4:]))
		nz := 0
		for _, x := range v[p:] {
			if x != 0 {
				nz++
			}
		}
		require.NotEqual(t, 1, p, "LAMINAR dense array of one value for %v", v)
		require.NotEqual(t, 1, nz, "LAMINAR sparse array of one value for %v (cut %d)", v, p)
	}
}

// TestIntPackJavaSafeRoundTrip is the property test of the Java-safe encoders: over random
// pages of every shape, each encoder's output decodes here to its input, counts its values,
// and keeps the layout rules of requireJavaSafe; the one page LAMINAR cannot write so, a
// single non-zero value, is refused with ErrLaminarSingleValue.
func TestIntPackJavaSafeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 16))
	pages := javaSafePages(r, 3000)
	pages = append(pages, [][]int64{{0}, {7}, {-1}, {math.MinInt64}, {0, 0}, {0, 5}, {5, 0}, {5, 5}, {0, 0, 9}, {9, 0, 0}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}...)

	refused := 0
	for _, v := range pages {
		for _, e := range intPackEncodings {
			b, err := encoding.AppendEncodedInt64(e, nil, v)
			if e == encoding.Laminar && len(v) == 1 && v[0] != 0 {
				require.ErrorIs(t, err, encoding.ErrLaminarSingleValue, "%v", v)
				require.NotErrorIs(t, err, encoding.ErrUnsupported)
				require.Contains(t, err.Error(), fmt.Sprintf("one value %d", v[0]))
				refused++
				continue
			}
			require.NoError(t, err, "%v %v", e, v)
			requireJavaSafe(t, e, v, b)
			got := make([]int64, len(v))
			require.NoError(t, encoding.DecodeInt64(e, got, b), "%v %v", e, v)
			require.Equal(t, v, got, "%v", e)
			c, err := encoding.CountInt64(e, b)
			require.NoError(t, err)
			require.Equal(t, len(v), c)
		}
	}
	require.NotZero(t, refused, "the pages include single non-zero values")

	// INT32: the same rule, through the 32-bit entry points.
	_, err := encoding.AppendEncodedInt32(encoding.Laminar, nil, []int32{-3})
	require.ErrorIs(t, err, encoding.ErrLaminarSingleValue)
	b, err := encoding.AppendEncodedInt32(encoding.Laminar, nil, []int32{0})
	require.NoError(t, err)
	require.Equal(t, "00000001000000000000000000000000", fmt.Sprintf("%x", b))
}

// TestIntPackDumpJavaPages writes random pages and this package's encoding of them, one
// "encoding values hex" line each, to the file named by TSARROW_INTPACK_JAVA_PAGES, for a
// harness that runs the upstream Java decoders on them (see testdata/intpack-java-checked.txt).
// It is skipped unless that variable is set.
func TestIntPackDumpJavaPages(t *testing.T) {
	path := os.Getenv("TSARROW_INTPACK_JAVA_PAGES")
	if path == "" {
		t.Skip("TSARROW_INTPACK_JAVA_PAGES not set")
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(2026, 12))
	for _, v := range javaSafePages(r, 1500) {
		vs := make([]string, len(v))
		for i, x := range v {
			vs[i] = fmt.Sprint(x)
		}
		for _, e := range intPackEncodings {
			b, err := encoding.AppendEncodedInt64(e, nil, v)
			if errors.Is(err, encoding.ErrLaminarSingleValue) {
				continue
			}
			require.NoError(t, err)
			fmt.Fprintf(w, "%d %s %x\n", e, strings.Join(vs, ","), b)
		}
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// TestIntPackJavaCheckedGolden pins pages on which the upstream Java decoders fail on their
// own encoders' bytes (testdata/intpack-java-checked.txt, whose header says which decoders
// and when): the encoders here write exactly the bytes those decoders were seen to read
// correctly, and the decoder here reads both those and the upstream encoder's bytes.
func TestIntPackJavaCheckedGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/intpack-java-checked.txt")
	require.NoError(t, err)
	count := map[encoding.Encoding]int{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		require.Len(t, f, 5, "line %d", i+1)
		var code int
		_, err := fmt.Sscan(f[0], &code)
		require.NoError(t, err)
		e := encoding.Encoding(code)
		require.Contains(t, []encoding.Encoding{encoding.SeparateStorage, encoding.Laminar}, e, "line %d", i+1)
		var v []int64
		for _, s := range strings.Split(f[1], ",") {
			var x int64
			_, err := fmt.Sscan(s, &x)
			require.NoError(t, err)
			v = append(v, x)
		}
		count[e]++
		ours, err := hex.DecodeString(f[2])
		require.NoError(t, err)
		upstream, err := hex.DecodeString(f[3])
		require.NoError(t, err)
		require.NotEqual(t, ours, upstream, "line %d", i+1)

		got, err := encoding.AppendEncodedInt64(e, nil, v)
		require.NoError(t, err, "line %d", i+1)
		require.Equal(t, f[2], hex.EncodeToString(got), "line %d: %v bytes differ from the Java-checked ones", i+1, e)
		for _, src := range [][]byte{ours, upstream} {
			dst := make([]int64, len(v))
			require.NoError(t, encoding.DecodeInt64(e, dst, src), "line %d", i+1)
			require.Equal(t, v, dst, "line %d", i+1)
		}
	}
	require.Greater(t, count[encoding.SeparateStorage], 40)
	require.Greater(t, count[encoding.Laminar], 40)
}
