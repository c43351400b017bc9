package tsfile

import (
	"bytes"
	"os"
	"testing"
)

// The fuzz targets check one property: no input makes a parser panic, hang
// or return an error that is not a FormatError. Seeds are real structures.

func seedFiles(f *testing.F) {
	f.Add(smallFile(f))
	if b, err := os.ReadFile("../testdata/sample.tsfile"); err == nil {
		f.Add(b)
	}
}

func FuzzOpenAndScan(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := readAll(b); err != nil && !isFormatError(err) {
			t.Fatalf("not a FormatError: %v", err)
		}
		s, err := NewScanner(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			return
		}
		for i := 0; s.Next() && i < 1<<16; i++ {
		}
		if s.Err() != nil && !isFormatError(s.Err()) {
			t.Fatalf("scanner error not a FormatError: %v", s.Err())
		}
	})
}

func fuzzStructure(f *testing.F, seeds [][]byte, parse func(d *buf)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := newBuf(b, 0, "fuzz")
		parse(d)
		if d.err != nil && !isFormatError(d.err) {
			t.Fatalf("not a FormatError: %v", d.err)
		}
	})
}

func FuzzDeviceID(f *testing.F) {
	fuzzStructure(f, [][]byte{{3, 14, 'w', 'e', 'a', 't', 'h', 'e', 'r', 2, 'a', 1}, {0}}, func(d *buf) { d.deviceID(16) })
}

func FuzzChunkHeader(f *testing.F) {
	fuzzStructure(f, [][]byte{{0x85, 0x00, 0x4a, 0x06, 0x00, 0x04}, {0x41, 0x02, 's', 0xac, 0x02, 0x01, 0x01, 0x02}}, func(d *buf) {
		h := d.chunkHeader()
		if d.err == nil {
			for d.err == nil && d.remaining() > 0 {
				p := d.pageHeader(&h)
				d.bytesN(p.CompressedSize, "page")
			}
		}
	})
}

func FuzzStatistics(f *testing.F) {
	fuzzStructure(f, [][]byte{append([]byte{3}, make([]byte, 60)...)}, func(d *buf) {
		t := DataType(d.byte1("type") % 13)
		d.statistics(t)
	})
}

func FuzzIndexNode(f *testing.F) {
	opts := (&ReadOptions{}).withDefaults()
	fuzzStructure(f, [][]byte{h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'b'}, be64(150), be64(200), []byte{3})}, func(d *buf) {
		dev := d.remaining() > 0 && d.b[0]&1 == 1
		d.indexNode(&opts, dev)
	})
}

func FuzzTimeseriesMetadata(f *testing.F) {
	fuzzStructure(f, [][]byte{h([]byte{0x80, 0, 6, 8, 2}, be64(1), be64(2), be64(13))}, func(d *buf) {
		for d.err == nil && d.remaining() > 0 {
			d.timeseriesMetadata()
		}
	})
}

func FuzzFileMetadata(f *testing.F) {
	opts := (&ReadOptions{}).withDefaults()
	b := smallFile(f)
	l := int(b[len(b)-10])<<24 | int(b[len(b)-9])<<16 | int(b[len(b)-8])<<8 | int(b[len(b)-7])
	fuzzStructure(f, [][]byte{b[len(b)-10-l : len(b)-10]}, func(d *buf) {
		d.fileMetadata(&opts)
	})
}
