package arrowconv

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/tsfile"
)

// convertAll reads every table of a file, table-model or tree-model, with
// the given batch size and returns the rows read (at most about 20000). It
// fails the test on a leak; errors from the file are expected and ignored.
//
// A damaged count can make a page claim millions of timestamps, up to
// ReadOptions.MaxPagePoints; a lower limit than the default keeps each
// conversion fast without changing what is checked.
func convertAll(t testing.TB, data []byte, batch int) int {
	f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), &tsfile.ReadOptions{MaxPagePoints: 1 << 16})
	if err != nil {
		return 0
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	opts := &Options{Allocator: mem, BatchSize: batch}
	rows := 0
	drainQuiet := func(r *Reader, err error) {
		if err != nil {
			return
		}
		defer r.Release()
		// Many rows are fine to read but slow to check; stopping early
		// also tests releasing a reader mid-stream.
		for rows < 20000 && r.Next() {
			rec := r.RecordBatch()
			rows += int(rec.NumRows())
			for _, c := range rec.Columns() {
				checkArray(t, c)
			}
		}
	}
	// The second pass takes the pushdown paths: a time range (page reads
	// by ReadChunkPages, statistics skips, trimming), a limit and two
	// decode workers.
	pushed := &Options{Allocator: mem, BatchSize: batch, Workers: 2, Limit: int64(5000 + batch),
		Time: &TimeRange{Start: int64(batch) * 3, End: int64(batch) * 300}}
	for _, o := range []*Options{opts, pushed} {
		tree := false
		for _, name := range f.Tables() {
			if _, ok := f.TableSchema(name); ok {
				drainQuiet(NewTableReader(f, name, o))
			} else {
				tree = true
			}
		}
		if tree {
			drainQuiet(NewTreeReader(f, nil, o))
		}
	}
	return rows
}

func fuzzSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	if b, err := os.ReadFile(interopPath(t, j01+".tsfile")); err == nil {
		seeds = append(seeds, b)
	}
	w := syntheticTable(t)
	seeds = append(seeds, w.bytes())
	tw, _ := syntheticTree(t)
	return append(seeds, tw.bytes())
}

// FuzzReader feeds damaged files to the readers: they may fail but must not
// panic, hang or leak. Each conversion takes a millisecond or so, so run it
// with a short -fuzzminimizetime (such as 2s); the default minute per new
// input looks like a stall.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, uint16(0))
		f.Add(s[:len(s)/2], uint16(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, batch uint16) {
		convertAll(t, data, int(batch%1000)+1)
	})
}

// TestCorruptFiles is the deterministic part of FuzzReader: every
// truncation point of the synthetic files and a sample of j01's, and byte
// substitutions spread over the files.
func TestCorruptFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, seed := range fuzzSeeds(t) {
		// Every byte of the small synthetic files; a sample of j01.
		step := max(1, len(seed)/400)
		for n := 0; n < len(seed); n += step {
			convertAll(t, seed[:n], 3)
		}
		buf := make([]byte, len(seed))
		for off := 0; off < len(seed); off += step {
			for _, v := range []byte{seed[off] ^ 0xff, byte(rng.Uint32())} {
				copy(buf, seed)
				buf[off] = v
				convertAll(t, buf, 1+int(rng.Uint32()%50))
			}
		}
	}
}
