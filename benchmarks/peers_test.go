package benchmarks

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/tsarrow/tsarrow/arrowconv"
)

// peerFile returns the cached peer file of a format at the configured row
// count, writing it outside the timed region, and its size.
func peerFile(b *testing.B, format string) (string, int, int64) {
	b.Helper()
	rows, err := Rows()
	if err != nil {
		b.Fatal(err)
	}
	p, err := EnsurePeer(format, rows)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return p, rows, st.Size()
}

// peerScan is one peer read of a whole file: rows and Arrow output bytes,
// counted as scanFile counts them.
type peerScan func(path string, workers int) (rows, outBytes int64, err error)

// BenchmarkPeerParquetScan reads the generated table's rows from a Parquet
// file with arrow-go's pqarrow (file.OpenParquetFile, a pqarrow
// FileReader's RecordReader over every column and row group, batches of
// arrowconv.DefaultBatchSize rows; Parallel decoding of the columns with
// more than one worker). Parquet is what users convert time series to
// when they leave TsFile, so it is the peer of a TsFile scan: the ZSTD file
// against the default mix, the uncompressed one against PLAIN. Between the
// timed iterations, outside the timer, it scans the matching TsFile
// variant with arrowconv and the same worker count (as BenchmarkScan
// does), so x-tsarrow, TsFile's speed over Parquet's, compares reads that
// met the same machine noise. file-MB and tsfile-MB are the two file
// sizes.
func BenchmarkPeerParquetScan(b *testing.B) {
	for _, p := range []struct{ format, variant string }{{PeerParquet, VariantDefault}, {PeerParquetNone, VariantPlain}} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", p.format, w), func(b *testing.B) {
				benchPeer(b, p.format, p.variant, w, scanParquet)
			})
		}
	}
}

// BenchmarkPeerIPCScan reads the same rows from an uncompressed Arrow IPC
// file with arrow-go's ipc.FileReader (every record batch read from disk
// into fresh buffers; with two workers, two goroutines read alternate
// batches). Nothing is decoded, so this is the floor any file format's
// scan is measured against. Each TsFile variant is scanned between the
// timed iterations as in BenchmarkPeerParquetScan: x-tsarrow is the TsFile
// scan's speed over the IPC read's.
func BenchmarkPeerIPCScan(b *testing.B) {
	for _, v := range Variants {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", v, w), func(b *testing.B) {
				benchPeer(b, PeerIPC, v, w, scanIPC)
			})
		}
	}
}

func benchPeer(b *testing.B, format, variant string, workers int, scan peerScan) {
	path, want, size := peerFile(b, format)
	tsPath, _ := benchFile(b, variant)
	st, err := os.Stat(tsPath)
	if err != nil {
		b.Fatal(err)
	}
	out, ts := interleaved(b, want,
		func() (int64, int64, error) { return scan(path, workers) },
		func(bool, int64) error {
			_, _, err := scanFile(tsPath, &arrowconv.Options{Workers: workers})
			return err
		})
	b.SetBytes(out)
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(want)/perOp, "rows/s")
	b.ReportMetric(float64(out)/perOp/1e9, "decoded-GB/s")
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "tsarrow-ns/op")
	b.ReportMetric(b.Elapsed().Seconds()/ts.Seconds(), "x-tsarrow")
	b.ReportMetric(float64(size)/1e6, "file-MB")
	b.ReportMetric(float64(st.Size())/1e6, "tsfile-MB")
}

// scanParquet reads every row of a Parquet file with pqarrow.
func scanParquet(path string, workers int) (rows, outBytes int64, err error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return 0, 0, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{
		Parallel:  workers > 1,
		BatchSize: arrowconv.DefaultBatchSize,
	}, zeroReuse)
	if err != nil {
		return 0, 0, err
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return 0, 0, err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		rows += rec.NumRows()
		outBytes += RecordBytes(rec)
	}
	return rows, outBytes, rr.Err()
}

// scanIPC reads every record batch of an Arrow IPC file, with workers
// goroutines taking alternate batches, each through its own
// ipc.FileReader (one reader's RecordBatchAt is not safe for concurrent
// use with dictionary columns). The batch bodies are read into reused,
// unzeroed buffers (every byte is overwritten by the read), so that the
// floor is the copy out of the page cache and the batch assembly, not the
// Go heap.
func scanIPC(path string, workers int) (rows, outBytes int64, err error) {
	workers = max(workers, 1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			k, m, werr := scanIPCPart(path, w, workers)
			mu.Lock()
			rows, outBytes = rows+k, outBytes+m
			if werr != nil && err == nil {
				err = werr
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return rows, outBytes, err
}

// scanIPCPart reads batches first, first+step, ... of an IPC file.
func scanIPCPart(path string, first, step int) (rows, outBytes int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(rawReuse))
	if err != nil {
		return 0, 0, err
	}
	defer r.Close()
	for i := first; i < r.NumRecords(); i += step {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			return rows, outBytes, err
		}
		rows, outBytes = rows+rec.NumRows(), outBytes+RecordBytes(rec)
		rec.Release()
	}
	return rows, outBytes, nil
}

// reuseAllocator keeps freed buffers of 4 KiB and more for reuse, by
// power-of-two size class, as arrowconv's default allocator does for
// tsarrow's own scans, so that the peers' reads are not slowed by taking
// every batch fresh from the Go heap. With zero set, Allocate clears a
// reused buffer as the Go allocator would.
type reuseAllocator struct {
	zero    bool
	classes [48]sync.Pool
}

var (
	// zeroReuse serves pqarrow, whose builders may count on zeroed memory.
	zeroReuse = &reuseAllocator{zero: true}
	// rawReuse serves the IPC reader, which reads over every byte of the
	// buffers it allocates.
	rawReuse = &reuseAllocator{}
)

const reuseMin = 1 << 12

func (a *reuseAllocator) Allocate(size int) []byte {
	if size < reuseMin {
		return make([]byte, size)
	}
	c := bits.Len(uint(size - 1))
	if b, ok := a.classes[c].Get().(*[]byte); ok {
		if a.zero {
			clear((*b)[:cap(*b)]) // Reallocate may grow into the rest
		}
		return (*b)[:size]
	}
	return make([]byte, size, 1<<c)
}

func (a *reuseAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *reuseAllocator) Free(b []byte) {
	c := cap(b)
	if c < reuseMin || c&(c-1) != 0 {
		return
	}
	b = b[:c]
	a.classes[bits.Len(uint(c-1))].Put(&b)
}
