package main

import (
	"bytes"
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReportInterrupted: an interruption, however wrapped, is one line and
// exit status 128 plus the signal's number (130 without one).
func TestReportInterrupted(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		line string
	}{
		{&interruptError{syscall.SIGINT}, 130, "ts2arrow: interrupted; nothing was written\n"},
		{&interruptError{syscall.SIGTERM}, 143, "ts2arrow: interrupted; nothing was written\n"},
		{&fileError{"a.tsfile", &interruptError{syscall.SIGTERM}}, 143, "ts2arrow: a.tsfile: interrupted; nothing was written\n"},
		{errInterrupted, 130, "ts2arrow: interrupted; nothing was written\n"},
	} {
		var stderr bytes.Buffer
		require.Equal(t, tc.code, report(tc.err, &stderr), tc.err)
		require.Equal(t, tc.line, stderr.String())
	}
}

// TestRecoverScanStopsAtSignal: recover's scan, which reads the whole file
// before anything is written, stops at its next read once a signal came,
// with the signal's error.
func TestRecoverScanStopsAtSignal(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	fh, rec, err := recoverFile(ctx, sample, "", nil)
	require.NoError(t, err)
	require.NotNil(t, rec)
	fh.Close()

	cancel(&interruptError{syscall.SIGTERM})
	_, _, err = recoverFile(ctx, sample, "", nil)
	require.ErrorIs(t, err, errInterrupted)
	var ie *interruptError
	require.True(t, errors.As(err, &ie), "%v", err)
	require.Equal(t, 143, ie.exitCode())
}
