package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

func loadSample(b *testing.B) []byte {
	data, err := os.ReadFile("../testdata/sample.tsfile")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkSampleToArrow opens the bundled sample from memory and reads
// every row of its table as record batches.
func BenchmarkSampleToArrow(b *testing.B) {
	data := loadSample(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			b.Fatal(err)
		}
		rdr, err := arrowconv.NewTableReader(f, "weather", nil)
		if err != nil {
			b.Fatal(err)
		}
		rows := int64(0)
		for rdr.Next() {
			rows += rdr.RecordBatch().NumRows()
		}
		if err := rdr.Err(); err != nil {
			b.Fatal(err)
		}
		rdr.Release()
		if rows != 1500 {
			b.Fatalf("read %d rows", rows)
		}
	}
}

// BenchmarkSampleArrowIPCFloor reads the same rows from an Arrow IPC
// stream in memory: no decoding, the floor a TsFile reader is measured
// against.
func BenchmarkSampleArrowIPCFloor(b *testing.B) {
	data := loadSample(b)
	f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		b.Fatal(err)
	}
	rdr, err := arrowconv.NewTableReader(f, "weather", nil)
	if err != nil {
		b.Fatal(err)
	}
	var ipcBuf bytes.Buffer
	w := ipc.NewWriter(&ipcBuf, ipc.WithSchema(rdr.Schema()))
	for rdr.Next() {
		if err := w.Write(rdr.RecordBatch()); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	rdr.Release()
	stream := ipcBuf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := ipc.NewReader(bytes.NewReader(stream), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			b.Fatal(err)
		}
		rows := int64(0)
		for r.Next() {
			rows += r.RecordBatch().NumRows()
		}
		r.Release()
		if rows != 1500 {
			b.Fatalf("read %d rows", rows)
		}
	}
}

// benchFile returns the generated file of a variant at the configured row
// count ($TSARROW_BENCH_ROWS), generating it outside the timed region.
func benchFile(b *testing.B, variant string) (string, int) {
	b.Helper()
	rows, err := Rows()
	if err != nil {
		b.Fatal(err)
	}
	p, err := Ensure(variant, rows)
	if err != nil {
		b.Fatal(err)
	}
	return p, rows
}

// BenchmarkScan reads every row of the generated table as record batches
// (tsfile.OpenFile, arrowconv.NewTableReader, Next until the end), for each
// variant at one and two decode workers. Beside ns/op it reports rows/s,
// decoded-GB/s (the bytes of the Arrow buffers the batches reference, the
// same figure as MB/s), memcpy-GB/s (a copy of that many bytes between
// two preallocated buffers of that size, timed between the scans, outside
// the timer) and x-memcpy, the ratio of the two. With more than one worker
// it also reports x-1worker, the speedup over a one-worker scan run
// between the timed iterations (outside the timer), so that ratio too
// compares scans that met the same machine noise.
func BenchmarkScan(b *testing.B) {
	for _, v := range Variants {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", v, w), func(b *testing.B) { benchScan(b, v, w) })
		}
	}
}

func benchScan(b *testing.B, variant string, workers int) {
	path, want := benchFile(b, variant)
	var mc memcpyClock
	var serial time.Duration
	out, _ := interleaved(b, want,
		func() (int64, int64, error) { return scanFile(path, &arrowconv.Options{Workers: workers}) },
		func(warmUp bool, n int64) error {
			mc.run(n)
			if workers == 1 {
				return nil
			}
			start := time.Now()
			_, _, err := scanFile(path, &arrowconv.Options{Workers: 1})
			if !warmUp {
				serial += time.Since(start)
			}
			return err
		})
	b.SetBytes(out)
	perOp := b.Elapsed().Seconds() / float64(b.N)
	gbps := float64(out) / perOp / 1e9
	b.ReportMetric(float64(want)/perOp, "rows/s")
	b.ReportMetric(gbps, "decoded-GB/s")
	b.ReportMetric(mc.gbps(), "memcpy-GB/s")
	b.ReportMetric(gbps/mc.gbps(), "x-memcpy")
	if workers > 1 {
		b.ReportMetric(serial.Seconds()/b.Elapsed().Seconds(), "x-1worker")
	}
}

// scanFile reads every row of the table of the file at path and returns
// the rows and the Arrow output bytes.
func scanFile(path string, opts *arrowconv.Options) (rows, outBytes int64, err error) {
	return scanFileWith(path, ReadOptions(), opts)
}

// RecordBytes is the size of the Arrow output of a batch: the bytes of the
// buffers its columns reference. A batch sliced out of larger buffers
// counts only its own range, so batches of one buffer are not counted
// twice; a dictionary counts with every batch that carries it.
func RecordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	l, off := int64(d.Len()), d.Offset()
	bufs := d.Buffers()
	var n int64
	if len(bufs) > 0 && bufs[0] != nil {
		n += bitutil.BytesForBits(l)
	}
	switch dt := d.DataType().(type) {
	case *arrow.DictionaryType:
		n += l * int64(dt.IndexType.(arrow.FixedWidthDataType).BitWidth()/8)
		if dict := d.Dictionary(); dict != nil {
			n += dataBytes(dict)
		}
	case *arrow.BooleanType:
		n += bitutil.BytesForBits(l)
	case arrow.FixedWidthDataType:
		n += l * int64(dt.BitWidth()/8)
	case *arrow.StringType, *arrow.BinaryType:
		offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[off : off+int(l)+1]
		n += (l+1)*4 + int64(offs[l]-offs[0])
	case *arrow.StringViewType, *arrow.BinaryViewType:
		n += l * int64(arrow.ViewHeaderSizeBytes)
		for _, b := range bufs[2:] {
			if b != nil {
				n += int64(b.Len())
			}
		}
	default:
		for _, b := range bufs[1:] {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			n += dataBytes(c)
		}
	}
	return n
}

// The memcpy baseline's buffers, kept across benchmarks so each run pays
// for allocating and faulting them in once. They are mapped outside the
// Go heap: two live buffers of the output size on the heap would raise
// the collector's goal by twice that, so that during the scans they are
// compared with the collector would hardly run and every allocation
// would take fresh pages, each a page fault, which is not what a program
// reading a TsFile sees.
var mcSrc, mcDst []byte

// memcpyClock times copy() between two preallocated buffers of the output
// size. It runs between the timed iterations of a benchmark, outside its
// timer, so the baseline sees the same machine noise as the figure it is
// compared with.
type memcpyClock struct {
	copied  int64
	elapsed time.Duration
}

// run copies n bytes at least twice and for at least 50 ms.
func (m *memcpyClock) run(n int64) {
	if n <= 0 {
		return
	}
	if int64(len(mcSrc)) < n {
		unmapBuffer(mcSrc)
		unmapBuffer(mcDst)
		mcSrc, mcDst = mapBuffer(n), mapBuffer(n)
		for i := range mcSrc {
			mcSrc[i] = byte(i * 7)
		}
		copy(mcDst, mcSrc) // fault the destination in
	}
	src, dst := mcSrc[:n], mcDst[:n]
	// One copy untimed first: between calls the host may take back the
	// pages of these buffers (one full run measured 2.9-4.6 GB/s, a
	// quarter of every other run, while the scans beside it ran at their
	// usual speed), and the baseline is the copy, not their return.
	copy(dst, src)
	start := time.Now()
	for reps := 0; reps < 2 || time.Since(start) < 50*time.Millisecond; reps++ {
		copy(dst, src)
		m.copied += n
	}
	m.elapsed += time.Since(start)
}

// gbps is the copy rate in GB/s.
func (m *memcpyClock) gbps() float64 {
	if m.elapsed <= 0 {
		return 0
	}
	return float64(m.copied) / m.elapsed.Seconds() / 1e9
}

// BenchmarkMemcpy is the baseline alone, at the output size of a scan of
// the generated table (so a run of -bench Memcpy needs the file too).
func BenchmarkMemcpy(b *testing.B) {
	path, _ := benchFile(b, VariantPlain)
	_, out, err := scanFile(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	var mc memcpyClock
	mc.run(out)
	b.SetBytes(out)
	for b.Loop() {
		copy(mcDst[:out], mcSrc[:out])
	}
}

// interleaved runs the benchmark loop over timed, which must read want
// rows, and runs between, given the output bytes of that read, after each
// iteration with the timer stopped, so that a baseline meets the same
// machine noise. A first round of both runs untimed, with warmUp true:
// between must not count it in a figure of its own. It returns the output
// bytes of one timed read and the total time spent in the timed rounds'
// between.
func interleaved(b *testing.B, want int, timed func() (rows, outBytes int64, err error), between func(warmUp bool, outBytes int64) error) (out int64, spent time.Duration) {
	b.ReportAllocs()
	// One round untimed first, so that every timed round follows one.
	// A benchmark starts after a collection that empties the pools the
	// reader takes its buffers from, and on these virtual machines a page
	// the Go runtime gave back costs microseconds to fault in again (the
	// memcpy baseline's 1.6 GB took 8 s the first time). The first timed
	// read paid for that while its between half, run after it, did not:
	// in three -count 3 runs, x-1worker of PLAIN at 2 workers averaged
	// 1.56 in the first sample of a run and 1.66 in the later ones.
	if _, n, err := timed(); err != nil {
		b.Fatal(err)
	} else if err := between(true, n); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rows, n, err := timed()
		if err != nil {
			b.Fatal(err)
		}
		if rows != int64(want) {
			b.Fatalf("read %d rows, want %d", rows, want)
		}
		out = n
		b.StopTimer()
		start := time.Now()
		if err := between(false, n); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(start)
		b.StartTimer()
	}
	return out, spent
}
