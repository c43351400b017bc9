package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exitInterrupt is the exit status of a command stopped by SIGINT. A
// command stopped by a signal exits with 128 plus the signal's number (143
// for SIGTERM), what a shell reports for a command the signal killed,
// once it cleaned up: it exits rather than dying of the signal, so that
// its status says it handled it.
const exitInterrupt = 128 + 2

// errInterrupted is returned when Ctrl-C (or SIGTERM) stops a conversion.
var errInterrupted = errors.New("interrupted; nothing was written")

// interruptError is errInterrupted naming the signal that stopped the
// command, whose exit status is 128 plus its number.
type interruptError struct{ sig os.Signal }

func (e *interruptError) Error() string { return errInterrupted.Error() }
func (e *interruptError) Unwrap() error { return errInterrupted }

func (e *interruptError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok && s > 0 && s < 128 {
		return 128 + int(s)
	}
	return exitInterrupt
}

// interruptedBy is the error of work that ctx (of notifyInterrupt)
// stopped: the signal that did it, if one did.
func interruptedBy(ctx context.Context) error {
	var ie *interruptError
	if errors.As(context.Cause(ctx), &ie) {
		return ie
	}
	return errInterrupted
}

// notifyInterrupt returns a context that the first SIGINT or SIGTERM
// cancels with an *interruptError as its cause, for a command that cleans
// up (removes its temporaries) before it returns. The signal is then no
// longer caught: a second Ctrl-C kills the process at once, should the
// cleaning up hang (a write blocked on a full pipe). stop ends the
// catching.
func notifyInterrupt() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	notifyStop(sigs)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&interruptError{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(context.Canceled)
	}
}

// notifyStop relays SIGINT and SIGTERM to c, but not one that the
// process was started with ignored (a background job of a script, whose
// shell ignores SIGINT for it): that one stays ignored.
func notifyStop(c chan<- os.Signal) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(sig) {
			signal.Notify(c, sig)
		}
	}
}

// exitOnSignal makes the first SIGINT or SIGTERM end the process at once
// with 130 or 143, for the commands that write nothing but standard
// output and standard error (inspect, schema, head ...): they have nothing
// to clean up (a download of --http-full is unlinked as soon as it is
// created), and this way every command ends a Ctrl-C with the same status.
func exitOnSignal() {
	sigs := make(chan os.Signal, 1)
	notifyStop(sigs)
	go func() {
		os.Exit((&interruptError{<-sigs}).exitCode())
	}()
}

// interruptReaderAt fails its reads, with the signal's error, once ctx is
// cancelled, so that a long scan that takes no context (TsFile recovery)
// stops at its next read.
type interruptReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (r *interruptReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if r.ctx.Err() != nil {
		return 0, interruptedBy(r.ctx)
	}
	return r.r.ReadAt(p, off)
}

// interruptWriter fails its writes, with the signal's error, once ctx is
// cancelled, so that a writer that takes no context (TsFile recovery)
// stops at its next write and its temporary file is removed.
type interruptWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w *interruptWriter) Write(p []byte) (int, error) {
	if w.ctx.Err() != nil {
		return 0, interruptedBy(w.ctx)
	}
	return w.w.Write(p)
}
