// Package sample picks the deterministic subsets of exhaustive test sweeps
// (every byte offset, every cut, every bit) that go test -short runs, so
// that the tests of several packages sample the same way.
package sample

import (
	"math/rand/v2"
	"testing"
)

// Short returns xs unchanged in a full run. Under go test -short, which the
// exhaustive sweeps would take minutes of, it returns a deterministic
// sample of about n of them: the first and the last (a file's magic and its
// tail, a region's edges) and every k-th between them from a phase that
// seed picks, so a quick run reaches every part of every file, the same
// parts in every run. CI runs without -short, so every case still runs
// there.
func Short[T any](xs []T, n int, seed uint64) []T {
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

// Span returns the ints from, from+1, ..., to-1.
func Span(from, to int) []int {
	out := make([]int, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
