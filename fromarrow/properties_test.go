package fromarrow

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestWriteTsFileProperties: footer properties given in Write.Properties
// reach the file as given (null apart from empty, bytes that are not
// UTF-8), except a table point count, which is counted again from the
// rows written: non-null FIELD values, TAG values not counted.
func TestWriteTsFileProperties(t *testing.T) {
	md := meta(arrowconv.MetaTable, "t")
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		tsField("dev", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG"),
		tsField("a", arrow.PrimitiveTypes.Int32),
		tsField("b", arrow.BinaryTypes.String),
	}, &md)
	rows := [][]any{{1, "x", 1, "p"}, {2, "x", nil, "q"}, {1, "y", 3, nil}, {3, "x", nil, nil}, {2, "y", 5, "r"}}
	// The naive count: non-null values of a and b.
	var points uint64
	for _, r := range rows {
		for _, v := range r[2:] {
			if v != nil {
				points++
			}
		}
	}
	require.EqualValues(t, 6, points)
	count := binary.BigEndian.AppendUint64(nil, points)

	plain := []tsfile.Property{
		{Key: "null", Null: true},
		{Key: "empty", Value: []byte{}},
		{Key: "binary", Value: []byte{0xff, 0x00, 0xfe}},
	}
	stale := tsfile.Property{Key: tsfile.TablePointCountPrefix + "t", Value: binary.BigEndian.AppendUint64(nil, 1000)}
	for _, tc := range []struct {
		name  string
		opts  Options
		count bool
	}{
		{name: "as given", opts: Options{Write: &tsfile.WriteOptions{Properties: plain}}},
		{name: "stale count", opts: Options{Write: &tsfile.WriteOptions{Properties: append(append([]tsfile.Property{}, plain...), stale)}}, count: true},
		{name: "asked", opts: Options{TablePointCount: true, Write: &tsfile.WriteOptions{Properties: plain}}, count: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := testkit.CheckedMem(t)
			b, _, err := writeTs(t, sc, tsBatches(t, mem, sc, rows, 2), &tc.opts)
			require.NoError(t, err)
			f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			got := f.Metadata.Properties[3:] // after the encryption properties
			want := plain
			if tc.count {
				want = append(append([]tsfile.Property{}, plain...), tsfile.Property{Key: stale.Key, Value: count})
			}
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, want[i].Key, got[i].Key)
				require.Equal(t, want[i].Null, got[i].Null, want[i].Key)
				require.True(t, bytes.Equal(want[i].Value, got[i].Value), "%s: %x", want[i].Key, got[i].Value)
			}
		})
	}
}
