package sample

import "testing"

func TestShort(t *testing.T) {
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i
	}
	got := Short(xs, 50, 1)
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
	if again := Short(xs, 50, 1); len(again) != len(got) || again[1] != got[1] {
		t.Fatal("the sample differs between runs")
	}
	if small := Short(xs[:30], 50, 1); len(small) != 30 {
		t.Fatal("a short list must be kept whole")
	}
}
