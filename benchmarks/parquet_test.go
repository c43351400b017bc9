package benchmarks

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/tsfile"
)

// The Parquet settings of both sides of BenchmarkToParquet.
const (
	parquetCompression = "zstd" // arrowconv's default
	parquetRowGroup    = export.DefaultRowGroupSize
)

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkToParquet converts the generated table to Parquet with
// export.WriteParquet (open, decode, encode; output counted and
// discarded), for each variant at one and two decode workers. Between the
// timed iterations (outside the timer) it times the baseline: arrow-go's
// pqarrow writing the same records, decoded beforehand and held in memory,
// with the same compression and row group size. It reports rows/s,
// pqarrow-ns/op, x-pqarrow (time over the baseline's time; the target is
// at most 1.3) and the Parquet sizes of both.
func BenchmarkToParquet(b *testing.B) {
	for _, v := range Variants {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", v, w), func(b *testing.B) { benchToParquet(b, v, w) })
		}
	}
}

func benchToParquet(b *testing.B, variant string, workers int) {
	path, want := benchFile(b, variant)
	held, err := heldRecords(path)
	if err != nil {
		b.Fatal(err)
	}
	var out, baseOut int64
	var base time.Duration
	b.ReportAllocs()
	for b.Loop() {
		cw := &countingWriter{}
		rows, err := fileToParquet(cw, path, workers)
		if err != nil {
			b.Fatal(err)
		}
		if rows != int64(want) {
			b.Fatalf("wrote %d rows, want %d", rows, want)
		}
		out = cw.n
		b.StopTimer()
		start := time.Now()
		if baseOut, err = pqarrowWrite(held); err != nil {
			b.Fatal(err)
		}
		base += time.Since(start)
		b.StartTimer()
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(want)/perOp, "rows/s")
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "pqarrow-ns/op")
	b.ReportMetric(b.Elapsed().Seconds()/base.Seconds(), "x-pqarrow")
	b.ReportMetric(float64(out)/1e6, "parquet-MB")
	b.ReportMetric(float64(baseOut)/1e6, "pqarrow-MB")
}

// fileToParquet is the measured path: TsFile on disk to Parquet on w.
func fileToParquet(w io.Writer, path string, workers int) (int64, error) {
	f, err := tsfile.OpenFile(path, nil)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rdr, err := arrowconv.NewTableReader(f, Table, &arrowconv.Options{Workers: workers})
	if err != nil {
		return 0, err
	}
	defer rdr.Release()
	return export.WriteParquet(w, rdr, &export.ParquetOptions{Compression: parquetCompression, RowGroupSize: parquetRowGroup})
}

// pqarrowWrite is the baseline: the held records written by pqarrow into
// row groups of parquetRowGroup rows, compressed with parquetCompression,
// statistics and dictionary encoding on (pqarrow's defaults), the Arrow
// schema stored. It returns the Parquet size.
func pqarrowWrite(h *held) (int64, error) {
	cw := &countingWriter{}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(parquetRowGroup),
	)
	fw, err := pqarrow.NewFileWriter(h.schema, cw, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return 0, err
	}
	for _, rec := range h.recs {
		if err := fw.WriteBuffered(rec); err != nil {
			fw.Close()
			return 0, err
		}
	}
	if err := fw.Close(); err != nil {
		return 0, err
	}
	return cw.n, nil
}

// held is a table decoded once and kept in memory, as the baseline's input.
type held struct {
	path   string
	schema *arrow.Schema
	recs   []arrow.RecordBatch
}

// heldCache keeps the records of the last file asked for, so the rounds
// of one benchmark decode it once.
var heldCache *held

func heldRecords(path string) (*held, error) {
	if heldCache != nil && heldCache.path == path {
		return heldCache, nil
	}
	if heldCache != nil {
		for _, r := range heldCache.recs {
			r.Release()
		}
		heldCache = nil
	}
	f, err := tsfile.OpenFile(path, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rdr, err := arrowconv.NewTableReader(f, Table, nil)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	h := &held{path: path, schema: rdr.Schema()}
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rec.Retain()
		h.recs = append(h.recs, rec)
	}
	if err := rdr.Err(); err != nil {
		for _, r := range h.recs {
			r.Release()
		}
		return nil, err
	}
	heldCache = h
	return h, nil
}
