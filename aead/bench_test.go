package aead

import (
	"crypto/rand"
	"testing"
)

const benchPageSize = 64 << 10

// BenchmarkOpenPage opens a 64 KiB page into a reused buffer, the reader's
// hot path. Compare its MB/s with BenchmarkMemcpy, the floor of any
// page-sized copy on this machine.
func BenchmarkOpenPage(b *testing.B) {
	for _, v := range []struct {
		name string
		prof string
	}{{"AES128", ProfileAESGCM128}, {"AES256", ProfileAESGCM256}} {
		b.Run(v.name, func(b *testing.B) {
			c := ciphers(b, 3)[v.prof]
			plain := make([]byte, benchPageSize)
			_, _ = rand.Read(plain)
			body, err := c.SealPage(nil, plain, 1, 0, benchPageSize)
			if err != nil {
				b.Fatal(err)
			}
			out := make([]byte, 0, benchPageSize)
			b.SetBytes(benchPageSize)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.OpenPage(out[:0], body, 1, 0, benchPageSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSealPage seals a 64 KiB page into a reused buffer, the writer's
// hot path (including one crypto/rand nonce per page).
func BenchmarkSealPage(b *testing.B) {
	c := ciphers(b, 3)[ProfileAESGCM128]
	plain := make([]byte, benchPageSize)
	out := make([]byte, 0, benchPageSize+c.Overhead())
	b.SetBytes(benchPageSize)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.SealPage(out[:0], plain, 1, 0, benchPageSize); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemcpy copies a 64 KiB page: the baseline for OpenPage.
func BenchmarkMemcpy(b *testing.B) {
	src := make([]byte, benchPageSize)
	dst := make([]byte, benchPageSize)
	b.SetBytes(benchPageSize)
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, src)
	}
}
