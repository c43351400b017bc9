package scan

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func TestTeamRunsEveryIndexOnce(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 8} {
		for _, n := range []int{0, 1, 2, 7, 64} {
			t.Run(fmt.Sprintf("size=%d/n=%d", size, n), func(t *testing.T) {
				tm := Team{Size: size}
				// Many jobs in a row, as a scan's windows: helpers move
				// from one to the next without exiting.
				for round := range 200 {
					calls := make([]atomic.Int32, n)
					if err := tm.Run(n, func(i int) error { calls[i].Add(1); return nil }); err != nil {
						t.Fatal(err)
					}
					for i := range calls {
						if c := calls[i].Load(); c != 1 {
							t.Fatalf("round %d: index %d ran %d times", round, i, c)
						}
					}
				}
				waitHelpersGone(t, &tm)
			})
		}
	}
}

func TestTeamReportsLowestIndexError(t *testing.T) {
	tm := Team{Size: 4}
	errAt := func(i int) error { return fmt.Errorf("index %d", i) }
	for round := range 100 {
		// Indexes 5 and 40 fail; the one at 40 is quick, the one at 5
		// slow, so the later index fails first in time.
		err := tm.Run(64, func(i int) error {
			switch i {
			case 5:
				time.Sleep(100 * time.Microsecond)
				return errAt(5)
			case 40:
				return errAt(40)
			}
			return nil
		})
		if err == nil || err.Error() != "index 5" {
			t.Fatalf("round %d: got %v, want the error of index 5", round, err)
		}
	}
	sentinel := errors.New("serial")
	serial := Team{Size: 1}
	ran := 0
	if err := serial.Run(3, func(i int) error { ran++; return sentinel }); !errors.Is(err, sentinel) || ran != 1 {
		t.Fatalf("one goroutine: got %v after %d calls, want the first error after 1", err, ran)
	}
	waitHelpersGone(t, &tm)
}

// waitHelpersGone fails the test unless every helper of tm exits once no
// job follows: a reader that is dropped must not leave goroutines behind.
func waitHelpersGone(t *testing.T, tm *Team) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for tm.helpers.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d helpers still running 10 s after the last job", tm.helpers.Load())
		}
		time.Sleep(time.Millisecond)
	}
}
