package icesync

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// The commit loop of many writers (docs/dev-notes-iceberg-icedesign.md,
// part (d)). iceberg-go's own retries are not used: with its SQL catalog a
// commit that lost a race mostly fails with a plain "requirement failed"
// error, not table.ErrCommitFailed, so they never start; and they replay
// the same updates on the new head, which doubles the rows of a second run
// of the same writer. Here every attempt plans again on the table as it is,
// and a failed attempt is classified by reloading the table, whatever
// error type the catalog returned.

// ErrRetriesExhausted is wrapped by the error of CommitWithRetry when every
// attempt lost a race with another writer.
var ErrRetriesExhausted = errors.New("icesync: the commit kept losing races with other writers")

// RetryPolicy bounds the retries of a commit. The zero value selects the
// defaults.
type RetryPolicy struct {
	// MaxAttempts is the number of attempts (default 20).
	MaxAttempts int
	// MinWait and MaxWait bound the wait before a retry (defaults 100 ms
	// and 30 s): attempt n waits a uniformly random time up to
	// min(MaxWait, MinWait*2^n), the "full jitter" that keeps writers
	// which lost together from colliding again.
	MinWait, MaxWait time.Duration
	// Sleep waits d or until ctx ends (default a timer); tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the jitter (default math/rand/v2).
	Rand func() float64
}

// CommitState is what a reload of the table tells about the last attempt.
type CommitState struct {
	// Committed is set when a snapshot of the table carries the sync's id:
	// the attempt committed although its call returned an error (a lost
	// reply).
	Committed bool
	// Moved is set when the table's head is no longer the one the last
	// attempt was planned on: another commit won, and the attempt may be
	// planned again on the new head.
	Moved bool
}

// CommitWithRetry runs attempt (plan on the table as it is now, write what
// the plan needs, commit, asserting the head it planned on) until it
// commits. When an attempt fails, check reloads the table: a committed
// attempt ends the loop without error, a moved head is a lost race and is
// retried after a wait, and anything else is the attempt's error. It
// returns the number of attempts made.
func CommitWithRetry(ctx context.Context, p RetryPolicy, attempt func(ctx context.Context, n int) error, check func(ctx context.Context) (CommitState, error)) (int, error) {
	p = p.withDefaults()
	for n := 0; ; n++ {
		err := attempt(ctx, n)
		if err == nil {
			return n + 1, nil
		}
		if ctx.Err() != nil {
			return n + 1, err
		}
		st, cerr := check(ctx)
		if cerr != nil {
			return n + 1, fmt.Errorf("%w; then reloading the table to see whether it committed: %w", err, cerr)
		}
		switch {
		case st.Committed:
			return n + 1, nil
		case !st.Moved:
			return n + 1, err
		case n+1 >= p.MaxAttempts:
			return n + 1, fmt.Errorf("%w (%d attempts): %w", ErrRetriesExhausted, n+1, err)
		}
		if err := p.Sleep(ctx, p.wait(n)); err != nil {
			return n + 1, err
		}
	}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 20
	}
	if p.MinWait <= 0 {
		p.MinWait = 100 * time.Millisecond
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 30 * time.Second
	}
	if p.MaxWait < p.MinWait {
		p.MaxWait = p.MinWait
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// wait is the wait before retry n+1: a random part of the exponential
// bound (full jitter).
func (p RetryPolicy) wait(n int) time.Duration {
	bound := p.MaxWait
	if n < 62 && p.MinWait<<n > 0 && p.MinWait<<n < p.MaxWait {
		bound = p.MinWait << n
	}
	return time.Duration(p.Rand() * float64(bound))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
