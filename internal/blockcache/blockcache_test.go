package blockcache

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRead: random reads from many goroutines equal the bytes (the naive
// reference), in both modes; a second pass over cached blocks costs no
// request, and exact long runs are not cached.
func TestRead(t *testing.T) {
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i*7 + i/251)
	}
	for _, exact := range []bool{false, true} {
		var requests atomic.Int64
		c := New(int64(len(data)), 1000, 1000, func(p []byte, off int64) error {
			requests.Add(1)
			copy(p, data[off:])
			return nil
		})
		r := rand.New(rand.NewPCG(1, 2))
		type span struct{ off, n int }
		var spans []span
		for range 400 {
			off := r.IntN(len(data))
			spans = append(spans, span{off, 1 + r.IntN(min(3000, len(data)-off))})
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for _, s := range spans[g*100 : (g+1)*100] {
					p := make([]byte, s.n)
					if err := c.Read(p, int64(s.off), int64(s.off+s.n), exact); err != nil {
						t.Error(err)
						return
					}
					if !bytes.Equal(p, data[s.off:s.off+s.n]) {
						t.Errorf("exact=%v: bytes %d+%d differ", exact, s.off, s.n)
						return
					}
				}
			})
		}
		wg.Wait()
		// The whole file, block by block, now: cached blocks are free.
		before := requests.Load()
		for off := 0; off < len(data); off += 1000 {
			p := make([]byte, 10)
			if err := c.Read(p, int64(off), int64(off+10), exact); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p, data[off:off+10]) {
				t.Fatalf("block at %d differs", off)
			}
		}
		if got, limit := requests.Load()-before, int64(100); got >= limit {
			t.Errorf("exact=%v: %d requests for 100 blocks after 400 reads", exact, got)
		}
		if !exact && requests.Load()-before != 0 {
			// Without exact runs every block touched was cached; the
			// 400 reads touch nearly all of them, but not necessarily all.
			t.Logf("exact=false: %d blocks fetched in the second pass", requests.Load()-before)
		}
	}
}

// TestCloseCachesNothing: after Close, reads still answer but keep nothing.
func TestCloseCachesNothing(t *testing.T) {
	data := bytes.Repeat([]byte("tsarrow"), 1000)
	var requests atomic.Int64
	c := New(int64(len(data)), 100, 10, func(p []byte, off int64) error {
		requests.Add(1)
		copy(p, data[off:])
		return nil
	})
	p := make([]byte, 5)
	for range 2 {
		if err := c.Read(p, 10, 15, false); err != nil {
			t.Fatal(err)
		}
	}
	if requests.Load() != 1 {
		t.Fatalf("%d requests for one block read twice", requests.Load())
	}
	c.Close()
	for range 2 {
		if err := c.Read(p, 10, 15, false); err != nil {
			t.Fatal(err)
		}
	}
	if requests.Load() != 3 || string(p) != string(data[10:15]) {
		t.Fatalf("after Close: %d requests, %q", requests.Load(), p)
	}
}

// TestReadAt checks the io.ReaderAt contract ReadAt gives a reader of a
// 10-byte file: reads cut at the end say io.EOF, reads past it read
// nothing, and read is never asked for bytes outside the file.
func TestReadAt(t *testing.T) {
	data := []byte("0123456789")
	read := func(p []byte, off int64) error {
		if len(p) == 0 || off < 0 || off+int64(len(p)) > int64(len(data)) {
			t.Fatalf("read asked for [%d, %d)", off, off+int64(len(p)))
		}
		copy(p, data[off:])
		return nil
	}
	for _, c := range []struct {
		off     int64
		n       int
		want    string
		wantEOF bool
	}{
		{0, 4, "0123", false},
		{6, 4, "6789", false},
		{8, 4, "89", true},
		{10, 4, "", true},
		{12, 1, "", true},
		{10, 0, "", false},
		{3, 0, "", false},
	} {
		p := make([]byte, c.n)
		n, err := ReadAt(p, c.off, int64(len(data)), read)
		if string(p[:n]) != c.want || (err == io.EOF) != c.wantEOF || (err != nil && err != io.EOF) {
			t.Errorf("ReadAt(%d bytes at %d) = %q, %v; want %q, EOF %v", c.n, c.off, p[:n], err, c.want, c.wantEOF)
		}
	}
	boom := errors.New("boom")
	if n, err := ReadAt(make([]byte, 3), 2, 10, func([]byte, int64) error { return boom }); n != 0 || err != boom {
		t.Errorf("a failed read gave %d, %v; want 0, boom", n, err)
	}
}
