package benchmarks

import (
	"fmt"
	"testing"

	"github.com/tsarrow/tsarrow/arrowconv"
)

// BenchmarkScanAEAD scans the Page AEAD twin of each variant (AES-256-GCM
// pages, chunk proofs) and, between its timed iterations and outside the
// timer, the plaintext file, so that both meet the same machine noise.
// It reports x-plain, the encrypted scan's time over the plaintext one's,
// and aead-share, the part of the encrypted scan's time that decryption
// adds (1 - plain/encrypted): the target is at most 0.15.
func BenchmarkScanAEAD(b *testing.B) {
	for _, v := range Variants {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", v, w), func(b *testing.B) { benchScanAEAD(b, v, w) })
		}
	}
}

func benchScanAEAD(b *testing.B, variant string, workers int) {
	encPath, want := benchFile(b, variant+AEAD)
	plainPath, _ := benchFile(b, variant)
	// interleaved's untimed first round scans each file once, so that a
	// file just generated is in the page cache and neither side fills the
	// readers' buffer pools alone.
	out, plain := interleaved(b, want,
		func() (int64, int64, error) { return scanFile(encPath, &arrowconv.Options{Workers: workers}) },
		func(bool, int64) error {
			_, _, err := scanFile(plainPath, &arrowconv.Options{Workers: workers})
			return err
		})
	b.SetBytes(out)
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(want)/perOp, "rows/s")
	b.ReportMetric(float64(out)/perOp/1e9, "decoded-GB/s")
	b.ReportMetric(b.Elapsed().Seconds()/plain.Seconds(), "x-plain")
	b.ReportMetric(1-plain.Seconds()/b.Elapsed().Seconds(), "aead-share")
}
