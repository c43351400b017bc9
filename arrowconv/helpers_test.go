package arrowconv

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/internal/testkit"
)

// The helpers these tests share with those of other packages.
const (
	interopDir = testkit.InteropDir
	nullCell   = testkit.NullCell
)

var (
	interopPath  = testkit.InteropPath
	canonFloat32 = testkit.CanonFloat32
	canonFloat64 = testkit.CanonFloat64
	checkedMem   = testkit.CheckedMem
)

// canonArrow returns a canonical string for row i of a: the interop CSV
// spelling for most types, the bit pattern for floats so -0.0 and every
// NaN payload are compared exactly.
func canonArrow(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return nullCell
	}
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Timestamp:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Float32:
		return canonFloat32(a.Value(i))
	case *array.Float64:
		return canonFloat64(a.Value(i))
	case *array.String:
		// Value aliases the array's buffer, which the default allocator
		// reuses once the batch is released; rows outlive their batch.
		return strings.Clone(a.Value(i))
	case *array.StringView:
		return strings.Clone(a.Value(i))
	case *array.Dictionary:
		return canonArrow(a.Dictionary(), a.GetValueIndex(i))
	case *array.Binary:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC().Format("2006-01-02")
	}
	panic(fmt.Sprintf("canonArrow: unexpected %T", a))
}

// canonCell returns the canonical form of a CSV cell of a column of type
// dt, matching canonArrow. An empty cell is null.
func canonCell(t testing.TB, dt arrow.DataType, cell string) string {
	if cell == "" {
		return nullCell
	}
	switch dt.ID() {
	case arrow.FLOAT32:
		v, err := strconv.ParseFloat(cell, 32)
		require.NoError(t, err)
		return canonFloat32(float32(v))
	case arrow.FLOAT64:
		v, err := strconv.ParseFloat(cell, 64)
		require.NoError(t, err)
		if math.IsNaN(v) {
			// A CSV "NaN" (Java's Double.toString) is Java's canonical
			// NaN, which the Java writers store; Go's math.NaN has other bits.
			v = math.Float64frombits(0x7ff8000000000000)
		}
		return canonFloat64(v)
	}
	return cell
}

// table is a result in canonical form.
type table struct {
	header  []string
	rows    [][]string
	records int
	sizes   []int
	nulls   []int
}

func fieldNames(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// sampleAndJava returns the paths of sample.tsfile and of the upstream
// Java files j01, j02 and j10 of the interop corpus.
func sampleAndJava(t testing.TB) []string {
	t.Helper()
	paths := []string{filepath.Join("..", "testdata", "sample.tsfile")}
	for _, name := range []string{testkit.J01, "j02_table_multipage_default_encodings", "j10_tree_nonaligned"} {
		paths = append(paths, interopPath(t, name+".tsfile"))
	}
	return paths
}

// drain reads every record of r in canonical form and releases r.
func drain(t testing.TB, r array.RecordReader) *table {
	t.Helper()
	defer r.Release()
	out := &table{header: fieldNames(r.Schema())}
	out.nulls = make([]int, len(out.header))
	for r.Next() {
		rec := r.RecordBatch()
		require.True(t, rec.Schema().Equal(r.Schema()))
		out.records++
		out.sizes = append(out.sizes, int(rec.NumRows()))
		for c := 0; c < int(rec.NumCols()); c++ {
			col := rec.Column(c)
			require.Equal(t, int(rec.NumRows()), col.Len())
			checkArray(t, col)
			out.nulls[c] += col.NullN()
		}
		out.rows = appendRows(out.rows, rec)
	}
	require.NoError(t, r.Err())
	return out
}

// appendRows appends the rows of rec to rows in canonical form.
func appendRows(rows [][]string, rec arrow.RecordBatch) [][]string {
	for i := 0; i < int(rec.NumRows()); i++ {
		row := make([]string, rec.NumCols())
		for c := range row {
			row[c] = canonArrow(rec.Column(c), i)
		}
		rows = append(rows, row)
	}
	return rows
}

// requireBatches reads a file with each batch size, from the readers open
// returns, and checks the result against want: the same rows and null
// counts, in batches of exactly size rows but the last.
func requireBatches(t *testing.T, want [][]string, sizes []int, open func(*Options) (*Reader, error)) {
	t.Helper()
	mem := checkedMem(t)
	for _, size := range sizes {
		r, err := open(&Options{Allocator: mem, BatchSize: size})
		require.NoError(t, err)
		got := drain(t, r)
		require.Equal(t, want, got.rows, "batch size %d", size)
		nulls := make([]int, len(got.header))
		for _, row := range want {
			for c, cell := range row {
				if cell == nullCell {
					nulls[c]++
				}
			}
		}
		require.Equal(t, nulls, got.nulls, "batch size %d", size)
		require.Equal(t, (len(want)+size-1)/size, got.records, "batch size %d", size)
		for _, n := range got.sizes[:max(len(got.sizes)-1, 0)] {
			require.Equal(t, size, n, "batch size %d", size)
		}
		// The default (pooling) allocator reads the same.
		r, err = open(&Options{BatchSize: size})
		require.NoError(t, err)
		require.Equal(t, want, drain(t, r).rows, "batch size %d, default allocator", size)
		requireNoStaleBytes(t, size, open)
	}
}

// poisonAlloc hands out buffers full of junk, as a reused pool buffer
// (rawPool) or a C allocator may: the bytes of what is read must not
// depend on it.
type poisonAlloc struct{ memory.Allocator }

func (p poisonAlloc) Allocate(size int) []byte {
	b := p.Allocator.Allocate(size)
	for i := range b {
		b[i] = byte(0xa5 ^ i)
	}
	return b
}

// Reallocate moves b into a poisoned buffer unless it fits its capacity.
func (p poisonAlloc) Reallocate(size int, b []byte) []byte {
	nb := b[:min(size, cap(b))]
	if size > cap(b) {
		nb = p.Allocate(size)
		copy(nb, b)
		p.Free(b)
	}
	return nb
}

// requireNoStaleBytes reads open's stream with zeroed and with poisoned
// buffers and requires the same IPC bytes of both: every byte a batch
// holds, null slots and bitmap padding bits included, is written by the
// reader.
func requireNoStaleBytes(t *testing.T, size int, open func(*Options) (*Reader, error)) {
	t.Helper()
	ipcOf := func(mem memory.Allocator) []byte {
		r, err := open(&Options{Allocator: mem, BatchSize: size, Workers: 2})
		require.NoError(t, err)
		defer r.Release()
		var buf bytes.Buffer
		_, err = export.WriteIPC(&buf, r, &export.IPCOptions{Stream: true})
		require.NoError(t, err)
		return buf.Bytes()
	}
	clean := ipcOf(memory.NewGoAllocator())
	require.Equal(t, clean, ipcOf(poisonAlloc{memory.NewGoAllocator()}), "batch size %d: output depends on the allocator's junk", size)
}

// readCSV parses a CSV with a header into canonical rows, using the types
// of schema (whose field names must match the header).
func readCSV(t testing.TB, rd io.Reader, schema *arrow.Schema) *table {
	t.Helper()
	cr := csv.NewReader(rd)
	recs, err := cr.ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	out := &table{header: recs[0]}
	require.Equal(t, len(schema.Fields()), len(out.header))
	for c, f := range schema.Fields() {
		require.Equal(t, f.Name, out.header[c])
	}
	for _, rec := range recs[1:] {
		row := make([]string, len(rec))
		for c, cell := range rec {
			row[c] = canonCell(t, schema.Field(c).Type, cell)
		}
		out.rows = append(out.rows, row)
	}
	return out
}

func readGzipCSV(t testing.TB, path string, schema *arrow.Schema) *table {
	t.Helper()
	return readCSV(t, openGzip(t, path), schema)
}

// openGzip opens the gzipped file at path for the rest of the test.
func openGzip(t testing.TB, path string) io.Reader {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { fh.Close() })
	zr, err := gzip.NewReader(fh)
	require.NoError(t, err)
	return zr
}

// readGzipCSVByName is readGzipCSV for a CSV whose columns are those of
// schema in another order (upstream's tree reader lists measurements in
// index order): it puts them in schema order.
func readGzipCSVByName(t testing.TB, path string, schema *arrow.Schema) *table {
	t.Helper()
	recs, err := csv.NewReader(openGzip(t, path)).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	names := fieldNames(schema)
	require.ElementsMatch(t, names, recs[0], "columns of %s", path)
	col := make(map[string]int, len(names))
	for c, name := range recs[0] {
		col[name] = c
	}
	out := &table{header: names}
	for _, rec := range recs[1:] {
		row := make([]string, len(names))
		for c, name := range names {
			row[c] = canonCell(t, schema.Field(c).Type, rec[col[name]])
		}
		out.rows = append(out.rows, row)
	}
	return out
}

// keyed indexes rows by the given key columns, requiring keys to be
// unique, so two results compare as sets.
func keyed(t testing.TB, rows [][]string, key []int) map[string][]string {
	t.Helper()
	m := make(map[string][]string, len(rows))
	for _, r := range rows {
		var k []string
		for _, c := range key {
			k = append(k, r[c])
		}
		ks := strings.Join(k, "\x01")
		_, dup := m[ks]
		require.False(t, dup, "duplicate key %q", ks)
		m[ks] = r
	}
	return m
}

// requireSameSet compares two results as sets keyed by key columns,
// reporting the first differing cells by column name.
func requireSameSet(t testing.TB, want, got *table, key []int) {
	t.Helper()
	require.Equal(t, want.header, got.header)
	require.Equal(t, len(want.rows), len(got.rows))
	w, g := keyed(t, want.rows, key), keyed(t, got.rows, key)
	bad := 0
	for k, wr := range w {
		gr, ok := g[k]
		require.True(t, ok, "row %q missing", k)
		for c := range wr {
			if wr[c] != gr[c] {
				bad++
				if bad <= 10 {
					t.Errorf("row %q column %s: want %q, got %q", k, want.header[c], wr[c], gr[c])
				}
			}
		}
	}
	require.Zero(t, bad, "cells differ")
}

// checkArray verifies the structural invariants of an array that the
// reader builds by hand: its null count agrees with its validity bitmap,
// and variable-length offsets are monotonic and inside the data.
func checkArray(t testing.TB, a arrow.Array) {
	t.Helper()
	nulls := 0
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			nulls++
		}
	}
	require.Equal(t, nulls, a.NullN(), "null count of %s", a.DataType())
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		require.NoError(t, v.ValidateFull())
	}
}
