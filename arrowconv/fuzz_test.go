package arrowconv

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
			if _, ok := f.SchemaOf(name); ok {
				drainQuiet(NewTableReader(f, name, o))
			} else {
				tree = true
			}
		}
		if tree {
			drainQuiet(NewTreeReader(f, "", o))
		}
	}
	return rows
}

// syntheticSeeds are the files of our own writer the fuzz seeds start from.
func syntheticSeeds(t testing.TB) map[string][]byte {
	w := syntheticTable(t)
	tw, _ := syntheticTree(t)
	return map[string][]byte{"table": w.bytes(), "tree": tw.bytes()}
}

func fuzzSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	// Read directly: interopPath would skip the synthetic seeds too
	// where the interop corpus is absent.
	if b, err := os.ReadFile(filepath.Join(interopDir, j01+".tsfile")); err == nil {
		seeds = append(seeds, b)
	}
	for _, name := range []string{"table", "tree"} {
		seeds = append(seeds, syntheticSeeds(t)[name])
	}
	return seeds
}

var writeFuzzCorpus = flag.Bool("write-fuzz-corpus", false, "write FuzzReader's named seeds to testdata/fuzz/FuzzReader/")

// addSeed adds a seed to f and, with -write-fuzz-corpus, writes it to the
// target's corpus directory in the fuzzer's file format, so that the
// committed corpus (regenerated with go test ./arrowconv -run '^FuzzReader$'
// -args -write-fuzz-corpus) and the f.Add seeds cannot drift apart.
func addSeed(f *testing.F, name string, data []byte, batch uint16, off uint32, patch []byte) {
	f.Helper()
	f.Add(data, batch, off, patch)
	if !*writeFuzzCorpus {
		return
	}
	b := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\nuint16(%d)\nuint32(%d)\n[]byte(%q)\n", data, batch, off, patch)
	if len(b) > 64<<10 {
		f.Fatalf("seed %s is %d bytes; the committed corpus runs in every go test", name, len(b))
	}
	dir := filepath.Join("testdata", "fuzz", f.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		f.Fatal(err)
	}
}

// FuzzReader feeds damaged files to the readers: they may fail but must not
// panic, hang or leak. Each conversion takes a millisecond or so, so run it
// with a short -fuzzminimizetime (such as 100x, as .ci/fuzz-smoke does):
// the default minute per new input looks like a stall and spends the
// -fuzztime budget on minimizing.
//
// The file is data with patch written over it at off: inserting or
// deleting bytes in data shifts every offset after it and mostly fails at
// the footer, while a patch damages chunks and index in place and leaves
// the rest readable. The interop file is a seed only when present: it is
// upstream's and must not be committed into the corpus.
func FuzzReader(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(interopDir, j01+".tsfile")); err == nil {
		f.Add(b, uint16(0), uint32(0), []byte{})
		f.Add(b[:len(b)/2], uint16(7), uint32(0), []byte{})
	}
	for name, s := range syntheticSeeds(f) {
		addSeed(f, name, s, 0, 0, []byte{})
		addSeed(f, name+"-batch-3", s, 2, uint32(len(s)/3), []byte{0x7f})
		addSeed(f, name+"-half", s[:len(s)/2], 7, 0, []byte{})
	}
	f.Fuzz(func(t *testing.T, data []byte, batch uint16, off uint32, patch []byte) {
		if len(data) > 0 && len(patch) > 0 {
			data = bytes.Clone(data)
			copy(data[int(off%uint32(len(data))):], patch)
		}
		convertAll(t, data, int(batch%1000)+1)
	})
}

// TestCorruptFiles is the deterministic part of FuzzReader: every
// truncation point of the synthetic files and a sample of j01's, and byte
// substitutions spread over the files.
func TestCorruptFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, seed := range fuzzSeeds(t) {
		// Every byte of the small synthetic files; a sample of j01; under
		// -short, about a hundred points of each.
		step := max(1, len(seed)/400)
		if testing.Short() {
			step = max(1, len(seed)/100)
		}
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
