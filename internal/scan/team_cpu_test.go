//go:build unix

package scan

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestTeamIdle runs a team of 16 at GOMAXPROCS 16, as on a machine of 16
// cores, through jobs separated by pauses, as a reader whose consumer
// takes a while with each batch: every index runs once in every job, and
// every helper is gone once no job follows. How long helpers stay alive
// through the pauses (at most maxPollers polling, each for at most
// helperLinger) is a time, so it is BenchmarkTeamIdle's target, reported
// by benchmarks/run, not an assertion here.
func TestTeamIdle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	tm := Team{Size: 16}
	for round := range 40 {
		var calls [16]atomic.Int32
		if err := tm.Run(16, func(i int) error { spin(20 * time.Microsecond); calls[i].Add(1); return nil }); err != nil {
			t.Fatal(err)
		}
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("round %d: index %d ran %d times", round, i, c)
			}
		}
		time.Sleep(2 * helperLinger)
	}
	waitHelpersGone(t, &tm)
}

// BenchmarkTeamIdle measures what TestTeamIdle's team costs while its
// reader is idle: each iteration runs a job of 16 indexes on a team of 16
// at GOMAXPROCS 16, then pauses for 2*helperLinger, summing the time each
// helper is alive during the pause (every helper alive then is polling or
// exiting: on a machine of 16 cores, its CPU time). This machine may have
// fewer cores than the team, so the helpers' time alive stands for their
// CPU time there; the process's own CPU time over the pauses is reported
// too, bounded by the cores here.
//
// Metrics: helper-us/pause, the helpers' time alive a pause; limit-us/pause,
// the target (benchmarks/cmd/report): one core's worth, a poller for
// helperLinger (Team's comment: an idle reader spins one core at most),
// with half as much again for sampling late and helpers on their way out.
// Without the maxPollers cap every helper polled: at maxPollers = 16 it
// measured 2,792 us a pause against the limit's 750.
func BenchmarkTeamIdle(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	tm := Team{Size: 16}
	var alive, cpu time.Duration
	for b.Loop() {
		if err := tm.Run(16, func(int) error { spin(20 * time.Microsecond); return nil }); err != nil {
			b.Fatal(err)
		}
		cpu0, t0 := cpuTime(b), time.Now()
		for last := t0; time.Since(t0) < 2*helperLinger; {
			time.Sleep(20 * time.Microsecond)
			now := time.Now()
			alive += time.Duration(tm.helpers.Load()) * now.Sub(last)
			last = now
		}
		cpu += cpuTime(b) - cpu0
	}
	for tm.helpers.Load() != 0 {
		time.Sleep(time.Millisecond)
	}
	n := float64(b.N)
	b.ReportMetric(float64(alive.Microseconds())/n, "helper-us/pause")
	b.ReportMetric(float64((helperLinger * 3 / 2).Microseconds()), "limit-us/pause")
	b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-us/pause")
	b.ReportMetric(float64((2 * helperLinger).Microseconds()), "pause-us")
}

// spin keeps its goroutine busy for d.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
