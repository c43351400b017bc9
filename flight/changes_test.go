package flight

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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

// TestRefreshConcurrent plans and reads a file from several clients while
// it is replaced and the root rescanned: every read is one whole version
// or FAILED_PRECONDITION, never a mix or another error (run with -race).
func TestRefreshConcurrent(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	versions := map[string]bool{}
	key := func(rows []string) string { return fmt.Sprint(len(rows), rows[0], rows[len(rows)-1]) }
	versions[key(localRows(t, nil, "weather", files[0]))] = true
	var alt []string
	for i := 0; i < 3; i++ {
		p := writeTestFile(t, t.TempDir(), "v.tsfile", 2+i, 50, 10+i)
		alt = append(alt, p)
		versions[key(localRows(t, nil, "weather", p))] = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				fi, err := c.GetFlightInfo(ctx, pathDesc("a.tsfile", "weather"))
				if err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				s, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
				if err != nil {
					continue
				}
				r, err := arrowflight.NewRecordReader(s)
				if err != nil {
					if code := status.Code(err); code != codes.FailedPrecondition && ctx.Err() == nil {
						errs <- err
						return
					}
					continue
				}
				rows, err := readRows(r)
				r.Release()
				switch {
				case ctx.Err() != nil:
				case err != nil && status.Code(err) != codes.FailedPrecondition:
					errs <- err
					return
				case err == nil && !versions[key(rows)]:
					errs <- fmt.Errorf("read %d rows of no version of the file", len(rows))
					return
				}
			}
		}()
	}
	for i := 0; i < 12; i++ {
		b, err := os.ReadFile(alt[i%len(alt)])
		require.NoError(t, err)
		tmp := filepath.Join(root, ".swap")
		require.NoError(t, os.WriteFile(tmp, b, 0o644))
		require.NoError(t, os.Rename(tmp, files[0]))
		if i%3 == 0 {
			require.NoError(t, srv.Rescan(ctx))
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
