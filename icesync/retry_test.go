package icesync

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// fakeTable is a catalog with optimistic concurrency: a commit names the
// head it was planned on and fails when another commit moved it, as the
// SQL catalog's requirement check and its UPDATE ... WHERE
// metadata_location = ? do. It holds data files by name (counted, so a
// doubled file shows) and, per writer, how many of its sources the table
// reflects (its state).
type fakeTable struct {
	mu    sync.Mutex
	head  int
	files map[string]int
	state map[string]int
	syncs map[string]int
}

var errRequirement = errors.New(`requirement failed: branch "main" has changed`)
var errCAS = errors.New("commit failed, refresh and try again")

// syncOnce is one run of ts2arrow sync by writer w whose directory holds
// sources 0..n-1, through CommitWithRetry. Each attempt plans on the table
// as it is: the sources its state lacks.
func (tb *fakeTable) syncOnce(ctx context.Context, w, id string, n int, rng *rand.Rand) error {
	var base int
	attempt := func(ctx context.Context, _ int) error {
		tb.mu.Lock()
		base = tb.head
		have := tb.state[w]
		tb.mu.Unlock()
		if have >= n {
			return nil // nothing new: no commit
		}
		var add []string
		for i := have; i < n; i++ {
			add = append(add, fmt.Sprintf("%s/src-%d.parquet", w, i))
		}
		runtime.Gosched() // writing the data files
		tb.mu.Lock()
		defer tb.mu.Unlock()
		if tb.head != base {
			if rng.IntN(2) == 0 {
				return errRequirement
			}
			return errCAS
		}
		fail := rng.IntN(20)
		if fail == 0 {
			return errors.New("disk full") // nothing committed
		}
		for _, f := range add {
			tb.files[f]++
		}
		tb.state[w] = n
		tb.syncs[id]++
		tb.head++
		if fail <= 3 {
			return errors.New("connection reset") // committed, reply lost
		}
		return nil
	}
	check := func(ctx context.Context) (CommitState, error) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		return CommitState{Committed: tb.syncs[id] > 0, Moved: tb.head != base}, nil
	}
	noWait := RetryPolicy{MaxAttempts: 1000, Sleep: func(context.Context, time.Duration) error { runtime.Gosched(); return nil }}
	_, err := CommitWithRetry(ctx, noWait, attempt, check)
	return err
}

// TestCommitWithRetryManyWriters runs four writers, each syncing a growing
// directory ten times, one of them twice at once (a cron overlap), against
// one table with lost races, lost replies and failed commits: the table
// ends with every source exactly once.
func TestCommitWithRetryManyWriters(t *testing.T) {
	for seed := range uint64(20) {
		tb := &fakeTable{files: map[string]int{}, state: map[string]int{}, syncs: map[string]int{}}
		var wg sync.WaitGroup
		run := func(w string, g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			for k := 1; k <= 10; k++ {
				for try := 0; ; try++ {
					id := fmt.Sprintf("%s-g%d-sync%d-run%d", w, g, k, try)
					if err := tb.syncOnce(context.Background(), w, id, k*3, rng); err == nil {
						tb.mu.Lock()
						have := tb.state[w]
						tb.mu.Unlock()
						if have < k*3 {
							t.Errorf("seed %d: sync %s succeeded but the table reflects %d of %d sources", seed, id, have, k*3)
						}
						break
					}
					// A failed sync is run again, as cron would.
				}
			}
		}
		for g, w := range []string{"w0", "w1", "w2", "w3", "w0"} {
			wg.Add(1)
			go run(w, g)
		}
		wg.Wait()
		if len(tb.files) != 4*30 {
			t.Fatalf("seed %d: %d files, want %d", seed, len(tb.files), 4*30)
		}
		for f, c := range tb.files {
			if c != 1 {
				t.Fatalf("seed %d: %s is in the table %d times", seed, f, c)
			}
		}
		for id, c := range tb.syncs {
			if c != 1 {
				t.Fatalf("seed %d: sync %s committed %d times", seed, id, c)
			}
		}
	}
}

func TestCommitWithRetryClassifies(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		states   []CommitState // what check says after each failed attempt
		succeed  int           // the attempt that succeeds (-1: none)
		attempts int
		wantErr  error // nil, boom or ErrRetriesExhausted
	}{
		{"first attempt commits", nil, 0, 1, nil},
		{"a real error is returned at once", []CommitState{{}}, -1, 1, boom},
		{"a lost reply is a commit", []CommitState{{Committed: true}}, -1, 1, nil},
		{"lost races are retried", []CommitState{{Moved: true}, {Moved: true}}, 2, 3, nil},
		{"a real error after a lost race", []CommitState{{Moved: true}, {}}, -1, 2, boom},
		{"retries run out", []CommitState{{Moved: true}, {Moved: true}, {Moved: true}}, -1, 3, ErrRetriesExhausted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var checks int
			attempt := func(_ context.Context, n int) error {
				if n == tc.succeed {
					return nil
				}
				return boom
			}
			check := func(context.Context) (CommitState, error) {
				st := tc.states[checks]
				checks++
				return st, nil
			}
			p := RetryPolicy{MaxAttempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
			n, err := CommitWithRetry(context.Background(), p, attempt, check)
			if n != tc.attempts {
				t.Errorf("attempts %d, want %d", n, tc.attempts)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("err %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr == ErrRetriesExhausted && !errors.Is(err, boom) {
				t.Errorf("err %v does not wrap the last attempt's error", err)
			}
		})
	}
}

func TestCommitWithRetryWaits(t *testing.T) {
	var waits []time.Duration
	p := RetryPolicy{
		MaxAttempts: 8, MinWait: 100 * time.Millisecond, MaxWait: time.Second,
		Rand:  func() float64 { return 0.5 },
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
	}
	attempt := func(context.Context, int) error { return errCAS }
	check := func(context.Context) (CommitState, error) { return CommitState{Moved: true}, nil }
	if _, err := CommitWithRetry(context.Background(), p, attempt, check); !errors.Is(err, ErrRetriesExhausted) {
		t.Fatal(err)
	}
	ms := time.Millisecond
	want := []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms, 500 * ms}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}

	// A context cancelled during the wait ends it with its error (the
	// default Sleep; the wait would be an hour).
	ctx, cancel := context.WithCancel(context.Background())
	p = RetryPolicy{MinWait: time.Hour, Rand: func() float64 { return 0.99 }}
	cancelling := func(context.Context) (CommitState, error) { cancel(); return CommitState{Moved: true}, nil }
	if n, err := CommitWithRetry(ctx, p, attempt, cancelling); !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("cancelled during the wait: %d attempts, %v", n, err)
	}
}
