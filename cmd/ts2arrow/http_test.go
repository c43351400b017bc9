package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHTTPWithoutRanges: a server that does not serve byte ranges is
// refused with what reading it would cost and what to do; --http-full
// downloads it once, up to --http-max-size, and reads the same rows as the
// local file.
func TestHTTPWithoutRanges(t *testing.T) {
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	var gets int
	for _, partial := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gets++
			body := data
			if partial && r.Header.Get("Range") != "" {
				// 200 to a range request, with a body of the range's size.
				body = data[:1]
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		}))
		defer srv.Close()
		url := srv.URL + "/sample.tsfile"

		for _, verb := range [][]string{{"inspect"}, {"schema"}, {"head"}, {"convert", "--format", "csv", "-o", "-"}} {
			code, _, errOut := runCLI(append(verb, url)...)
			require.Equal(t, 1, code, "%v: %s", verb, errOut)
			require.Contains(t, errOut, "does not serve byte ranges", verb)
			require.Contains(t, errOut, "--http-full", verb)
			require.Contains(t, errOut, "download it yourself", verb)
			if !partial {
				require.Contains(t, errOut, "the whole file ("+size(int64(len(data)))+")", verb)
			}

			code, out, errOut := runCLI(append(append(verb, "--http-full"), url)...)
			require.Equal(t, 0, code, "%v: %s", verb, errOut)
			_, want, _ := runCLI(append(verb, sample)...)
			// inspect names the file it read.
			require.True(t, want == strings.ReplaceAll(out, url, sample), "%v: output differs from the local file's", verb)
		}

		// Downloaded once: the range request Open sends, then one GET.
		gets = 0
		out := filepath.Join(t.TempDir(), "s.csv")
		code, _, errOut := runCLI("convert", "--time-format", "epoch", url, "--http-full", "-o", out, "--verbose")
		require.Equal(t, 0, code, errOut)
		require.Equal(t, 2, gets)
		require.Contains(t, errOut, "downloaded the whole file")
		require.Equal(t, sampleRows(t), csvLines(t, out))

		code, _, errOut = runCLI("convert", url, "--http-full", "--http-max-size", "1KiB", "-o", filepath.Join(t.TempDir(), "x.csv"))
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "larger than --http-max-size 1KiB")
	}
}
