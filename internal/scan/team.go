package scan

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Team runs the column jobs of one reader: the caller and up to Size-1
// helper goroutines take indexes of a job until none are left. The zero
// Team runs every job on the caller alone.
//
// A reader hands its team a job for every window of pages, a few thousand
// times a second, each a millisecond or so of work. Starting a goroutine
// per job wakes a parked thread every time, and on a virtual machine that
// wake-up takes 50-80 microseconds, during which the caller works alone:
// measured at 10M rows on 2 cores, 13-20% of the time of the parallel
// sections. So a helper, once its job is done, keeps polling for the
// next one for helperLinger and only then exits, or as soon as yielding
// its processor shows that other goroutines want it: polling only fills
// time the processor would spend idle. Nothing outlives a reader by more
// than helperLinger, whether or not it is released.
//
// Only maxPollers helpers poll at a time; the others exit once their job
// is done, and the next job starts them again. Polling was measured on 2
// cores, where a reader has one helper; on a machine of many cores every
// helper of an idle reader (one whose consumer is busy with a batch)
// would spin for helperLinger, a core each.
type Team struct {
	// Size is the number of goroutines a job runs on, the caller's
	// included; set it before the first Run.
	Size    int
	job     atomic.Pointer[teamJob]
	helpers atomic.Int32 // helpers running
	pollers atomic.Int32 // helpers polling for the next job
}

// maxPollers is how many helpers of a Team poll for the next job at once.
// One keeps what polling was measured to win on 2 cores (the next window
// starts on two goroutines at once, without a wake-up), and bounds what
// an idle reader spins to one core for helperLinger, however many cores
// the machine has (TestTeamIdleCPU).
const maxPollers = 1

// helperLinger is how long a helper polls for a new job before it exits:
// longer than the serial work between two windows of a scan (tens of
// microseconds), short enough that an idle reader costs nothing.
const helperLinger = 500 * time.Microsecond

// helperBusyYield is how long a yield takes, at most, when no other
// goroutine is ready to run (well under a microsecond; the margin is
// for clock reads and preemption on a virtual machine).
const helperBusyYield = 10 * time.Microsecond

// teamJob is one call of Team.Run.
type teamJob struct {
	n    int
	fn   func(int) error
	errs []error
	next atomic.Int64 // next index to take
	done atomic.Int64 // indexes finished
}

// work takes indexes of j until none are left.
func (j *teamJob) work() {
	for {
		i := int(j.next.Add(1) - 1)
		if i >= j.n {
			return
		}
		j.errs[i] = j.fn(i)
		j.done.Add(1)
	}
}

// Run calls fn(0..n-1), on up to Size goroutines with the caller's, and
// returns the error of the lowest index that failed, so that which error
// is reported does not depend on scheduling.
func (t *Team) Run(n int, fn func(int) error) error {
	if t.Size <= 1 || n <= 1 {
		for i := range n {
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	j := &teamJob{n: n, fn: fn, errs: make([]error, n)}
	t.job.Store(j)
	for want := int32(min(t.Size, n) - 1); ; {
		h := t.helpers.Load()
		if h >= want {
			break
		}
		if t.helpers.CompareAndSwap(h, h+1) {
			go t.help(j)
		}
	}
	j.work()
	// Every index is taken; wait for those a helper is still working
	// on, at most one job each. Waiting on a channel would park this
	// goroutine and cost the same wake-up the helpers avoid.
	for j.done.Load() < int64(n) {
		runtime.Gosched()
	}
	for _, err := range j.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// help works on j and then on every job that follows within helperLinger
// of the last, while it is one of the maxPollers helpers polling.
func (t *Team) help(j *teamJob) {
	defer t.helpers.Add(-1)
	for {
		j.work()
		if next := t.job.Load(); next != j {
			j = next // already there: no polling needed
			continue
		}
		if t.pollers.Add(1) > maxPollers {
			t.pollers.Add(-1)
			return
		}
		j = t.poll(j)
		t.pollers.Add(-1)
		if j == nil {
			return
		}
	}
}

// poll waits for a job other than j and returns it, or nil after
// helperLinger or once the processor has other work.
func (t *Team) poll(j *teamJob) *teamJob {
	idle := time.Now()
	for {
		if next := t.job.Load(); next != j {
			return next
		}
		now := time.Now()
		if now.Sub(idle) > helperLinger {
			return nil
		}
		runtime.Gosched()
		// A yield that took long ran another goroutine: the
		// processor has other work (a Flight stream's encoder, other
		// readers), and polling would take time from it rather
		// than fill idle time.
		if time.Since(now) > helperBusyYield {
			return nil
		}
	}
}
