//go:build unix

package scan

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestTeamIdleCPU runs a team of 16 at GOMAXPROCS 16, as on a machine of
// 16 cores, through jobs separated by pauses, as a reader whose consumer
// takes a while with each batch, and checks that the helpers do not spin
// through the pauses: at most maxPollers poll, each for at most
// helperLinger. Without that cap every helper polled, which on 16 cores
// costs 15 cores for helperLinger at every pause.
//
// This machine may have fewer cores than the team, so the test measures
// the helpers' time alive during the pauses (every helper alive then is
// polling or exiting), which is their CPU time on a machine of 16 cores.
// It also logs the process's CPU time over the pauses, which cannot
// exceed what the cores here hold.
func TestTeamIdleCPU(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	tm := Team{Size: 16}
	const rounds = 40
	var alive, cpu, wall time.Duration
	for range rounds {
		if err := tm.Run(16, func(int) error { spin(20 * time.Microsecond); return nil }); err != nil {
			t.Fatal(err)
		}
		cpu0, t0 := cpuTime(t), time.Now()
		for last := t0; time.Since(t0) < 2*helperLinger; {
			time.Sleep(20 * time.Microsecond)
			now := time.Now()
			alive += time.Duration(tm.helpers.Load()) * now.Sub(last)
			last = now
		}
		cpu += cpuTime(t) - cpu0
		wall += time.Since(t0)
	}
	waitHelpersGone(t, &tm)
	// The pollers' share, with half as much again for sampling late and
	// helpers on their way out.
	limit := rounds * maxPollers * helperLinger * 3 / 2
	t.Logf("over %d pauses of %v in all: helpers alive %v (limit %v), process CPU %v on %d cores",
		rounds, wall, alive, limit, cpu, runtime.NumCPU())
	if alive > limit {
		t.Fatalf("helpers were alive for %v over %v of pauses, more than %v: they spin while the reader is idle", alive, wall, limit)
	}
}

// spin keeps its goroutine busy for d.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
