// Package benchmarks measures tsarrow against baselines in the same run,
// so results read as ratios on a noisy machine. Run:
//
//	go test -run XXX -bench . -benchmem ./benchmarks/
package benchmarks

import (
	"bytes"
	"os"
	"testing"

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
