package flight

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// redeemErr redeems a ticket and returns the stream's first error, nil
// when it ends cleanly.
func redeemErr(t *testing.T, c arrowflight.Client, tk *arrowflight.Ticket) error {
	t.Helper()
	s, err := c.DoGet(context.Background(), tk)
	require.NoError(t, err)
	for {
		if _, err := s.Recv(); err != nil {
			if err.Error() == "EOF" {
				return nil
			}
			return err
		}
	}
}

// TestChangedFileRefusedAtOnce checks that a ticket planned on a file that
// has changed since is refused when redeemed, without waiting for the
// rescan timer (which startServer turns off), and that planning again reads
// the new version.
func TestChangedFileRefusedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"rewritten", func(t *testing.T, path string) {
			writeTestFile(t, filepath.Dir(path), filepath.Base(path), 2, 10, 5)
		}},
		{"same size, new mtime", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, b, 0o644))
			later := time.Now().Add(time.Hour)
			require.NoError(t, os.Chtimes(path, later, later))
		}},
		{"replaced by rename", func(t *testing.T, path string) {
			tmp := writeTestFile(t, filepath.Dir(path), ".new", 1, 30, 9)
			require.NoError(t, os.Rename(tmp, path))
		}},
		{"removed", func(t *testing.T, path string) {
			require.NoError(t, os.Remove(path))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, files := testRoot(t)
			srv := startServer(t, Options{Root: root})
			c := dial(t, srv.addr)
			fi := getInfo(t, c, pathDesc("a.tsfile", "weather"))
			whole := getInfo(t, c, pathDesc("weather"))
			require.Len(t, fi.Endpoint, 1)

			tc.change(t, files[0])
			for _, tk := range []*arrowflight.Ticket{fi.Endpoint[0].Ticket, whole.Endpoint[0].Ticket} {
				err := redeemErr(t, c, tk)
				require.Error(t, err)
				assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
				assert.Contains(t, status.Convert(err).Message(), "a.tsfile")
				assert.Contains(t, status.Convert(err).Message(), "GetFlightInfo again")
			}
			// Tickets of other files stay good.
			last := whole.Endpoint[len(whole.Endpoint)-1].Ticket
			assert.NoError(t, redeemErr(t, c, last))

			// Planning again sees the new version, still without a rescan.
			if _, err := os.Stat(files[0]); err != nil {
				_, err := c.GetFlightInfo(context.Background(), pathDesc("a.tsfile", "weather"))
				assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)
				return
			}
			fi = getInfo(t, c, pathDesc("a.tsfile", "weather"))
			assert.Equal(t, localRows(t, nil, "weather", files[0]), readFlight(t, context.Background(), c, fi))
		})
	}
}

// TestRewrittenWhileStreamed checks that a stream whose file is rewritten
// in place while it is read ends with FAILED_PRECONDITION instead of
// cleanly: its rows were read through the old version's index.
func TestRewrittenWhileStreamed(t *testing.T) {
	root, files := testRoot(t)
	rewrite := func(string) {
		b, err := os.ReadFile(files[1])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(files[0], b, 0o644)) // truncates: same file
	}
	testHookPartSent = rewrite
	t.Cleanup(func() { testHookPartSent = nil }) // runs after the server's shutdown
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("a.tsfile", "weather"))
	err := redeemErr(t, c, fi.Endpoint[0].Ticket)
	require.Error(t, err)
	assert.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), "a.tsfile was rewritten while it was being read")
}
