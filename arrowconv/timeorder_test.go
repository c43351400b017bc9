package arrowconv

import (
	"bytes"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// TestDamagedTimeStreamRefused (issue 36): single bytes of time streams,
// found by the page sweep (pagesweep_test.go), that read to other rows
// with no error before the time-order check: the timestamps they damage
// stay within the page's statistics, but no longer increase. A default
// read fails naming the page; a lenient one warns and reads the points in
// time order, as many rows as the damaged page then holds.
func TestDamagedTimeStreamRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string // interop file
		off  int64  // the byte changed (a page body's, uncompressed)
		xor  byte
		what string // in the error
	}{
		// A packed delta of a TS_2DIFF block of a non-aligned BLOB page:
		// the block's later timestamps move back by 36.12 s, behind the
		// one before them (25,000 rows read as 25,129, exit 0).
		{"non-aligned time stream", "j10_tree_nonaligned", 486322, 0xf3, "follows"},
		// The first value of the middle block of an aligned time page:
		// its timestamps jump ahead of the next block's, while the page's
		// first and last, which the statistics hold, stay.
		{"aligned time page", "j01_table_all_types_plain", 76, 0x01, "follows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := interopPath(t, tc.file+".tsfile")
			good, err := os.ReadFile(path)
			require.NoError(t, err)
			var dev tsfile.DeviceID
			found := false
			for _, pg := range sweepBodies(t, 0, good) {
				if tc.off >= pg.from && tc.off < pg.to {
					dev, found = pg.dev, true
				}
			}
			require.True(t, found, "offset %d lies in a page body", tc.off)
			want, err := readDevice(good, nil, dev)
			require.NoError(t, err)
			defer release(want)

			b := bytes.Clone(good)
			b[tc.off] ^= tc.xor
			// Without the check the rows differ silently: NoVerify reads
			// them so (the flip is one that matters).
			got, err := readDevice(b, &tsfile.ReadOptions{NoVerify: true}, dev)
			require.NoError(t, err)
			require.False(t, sameRows(want, got), "the flip changes rows")
			release(got)

			_, err = readDevice(b, nil, dev)
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.ErrorContains(t, err, tc.what)
			require.ErrorContains(t, err, "strictly increase")
			require.ErrorContains(t, err, "--lenient")
			var fe *tsfile.FormatError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, "page", fe.Structure)

			// Lenient: a warning, and the read goes on.
			f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: true})
			require.NoError(t, err)
			var r *Reader
			opts := &Options{Allocator: memory.DefaultAllocator, Devices: []tsfile.DeviceID{dev}}
			if _, ok := f.SchemaOf(dev.Table()); ok {
				r, err = NewTableReader(f, dev.Table(), opts)
			} else {
				r, err = NewTreeReader(f, "", opts)
			}
			require.NoError(t, err)
			defer r.Release()
			rows := 0
			for r.Next() {
				rows += int(r.RecordBatch().NumRows())
			}
			require.NoError(t, r.Err())
			require.Positive(t, rows)
			warned := false
			for _, w := range f.Warnings() {
				warned = warned || bytes.Contains([]byte(w.Msg), []byte("strictly increase"))
			}
			require.True(t, warned, "a lenient read warns: %v", f.Warnings())
		})
	}
}

// TestTreeOutOfOrderPageRefused: pages whose timestamps go back, which
// the out-of-order fixtures of tree_test.go hold and no upstream writer
// writes, fail a default read and read, sorted, under Lenient (as
// TestTreeStreamOutOfOrder checks row by row).
func TestTreeOutOfOrderPageRefused(t *testing.T) {
	w := treeOutOfOrder(t, 99, 4)
	w.open() // checks the fixture reads back under Lenient
	b := w.bytes()
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{NonAlignedTimeEncoding: treePlainTimes.NonAlignedTimeEncoding})
	require.NoError(t, err)
	r, err := NewTreeReader(f, "", &Options{Allocator: memory.DefaultAllocator})
	require.NoError(t, err)
	defer r.Release()
	for r.Next() {
	}
	require.ErrorIs(t, r.Err(), tsfile.ErrCorrupt)
	require.ErrorContains(t, r.Err(), "strictly increase")
}
