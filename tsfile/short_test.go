package tsfile

import (
	"math/rand/v2"
	"testing"
)

// shortSample returns xs unchanged in a full run. Under go test -short,
// which the exhaustive sweeps would take minutes of, it returns a
// deterministic sample of about n of them: the first and the last (a
// file's magic and its tail, a region's edges) and every k-th between
// them from a phase that seed picks, so a quick run reaches every part of
// every file, the same parts in every run. CI runs without -short, so
// every case still runs there.
func shortSample[T any](xs []T, n int, seed uint64) []T {
	if !testing.Short() || len(xs) <= n || n < 3 {
		return xs
	}
	stride := (len(xs) - 2 + n - 3) / (n - 2)
	r := rand.New(rand.NewPCG(seed, 27))
	out := make([]T, 0, n+1)
	out = append(out, xs[0])
	for i := 1 + r.IntN(stride); i < len(xs)-1; i += stride {
		out = append(out, xs[i])
	}
	return append(out, xs[len(xs)-1])
}

func TestShortSample(t *testing.T) {
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i
	}
	got := shortSample(xs, 50, 1)
	if !testing.Short() {
		if len(got) != len(xs) {
			t.Fatalf("a full run sampled %d of %d", len(got), len(xs))
		}
		return
	}
	if len(got) > 50 || len(got) < 40 || got[0] != 0 || got[len(got)-1] != 999 {
		t.Fatalf("sample of %d: first %d, last %d", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] || got[i]-got[i-1] > 2*1000/48 {
			t.Fatalf("sample %v is not spread evenly", got)
		}
	}
	if again := shortSample(xs, 50, 1); len(again) != len(got) || again[1] != got[1] {
		t.Fatal("the sample differs between runs")
	}
	if small := shortSample(xs[:30], 50, 1); len(small) != 30 {
		t.Fatal("a short list must be kept whole")
	}
}

// span returns the ints from, from+1, ..., to-1.
func span(from, to int) []int {
	out := make([]int, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
