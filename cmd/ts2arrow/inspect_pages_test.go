package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// rangeServer serves the file at path over HTTP with range requests, as
// an object store would, and counts the body bytes it sent.
func rangeServer(t *testing.T, path string) (url string, served *atomic.Int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	served = new(atomic.Int64)
	name := filepath.Base(path)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/"+name {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(&servedCounter{w, served}, r, name, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/" + name, served
}

type servedCounter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *servedCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.ResponseWriter.Write(p)
}

func inspectJSON(t *testing.T, args ...string) *inspectFile {
	t.Helper()
	code, out, stderr := runCLI(append([]string{"inspect", "--json"}, args...)...)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	var info inspectFile
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	return &info
}

// checkChunkDetail checks the chunk and page details of a file against
// the file itself and against the invariants of the format: pages tile
// their chunk, page Statistics add up to the chunk's, and only pages that
// carry no Statistics in the file have none in the output.
func checkChunkDetail(t *testing.T, path string, info *inspectFile, pages bool) {
	t.Helper()
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	var chunks, pageCount int
	for _, tbl := range info.Tables {
		devs, err := f.Devices(tbl.Name)
		require.NoError(t, err)
		require.Len(t, tbl.Devices, len(devs))
		for di, d := range tbl.Devices {
			series, err := f.Series(devs[di])
			require.NoError(t, err)
			require.Len(t, d.Series, len(series))
			for si, s := range d.Series {
				require.Len(t, s.ChunksDetail, s.Chunks, s.Measurement)
				sum, empty := 0, 0
				for ci, c := range s.ChunksDetail {
					cm := series[si].Chunks[ci]
					require.Equal(t, cm.Offset, c.Offset)
					h, err := f.ReadChunkHeader(cm.Offset)
					require.NoError(t, err)
					require.Equal(t, h.HeaderSize, c.HeaderSize)
					require.Equal(t, h.DataSize, c.DataSize)
					require.Equal(t, h.Encoding.String(), c.Encoding)
					require.Equal(t, h.Compression.String(), c.Compression)
					require.Equal(t, h.SinglePage(), c.SinglePage)
					require.Equal(t, cm.Statistics.Count, c.Statistics.Count)
					require.Contains(t, s.Encoding, c.Encoding)
					sum += c.Pages
					empty += c.EmptyPages
					if !pages {
						require.Nil(t, c.PagesDetail)
						continue
					}
					require.NotNil(t, c.PagesDetail)
					require.Len(t, c.PagesDetail, c.Pages)
					at := c.Offset + int64(c.HeaderSize)
					var values int64
					var emptyHere int
					for _, p := range c.PagesDetail {
						require.Equal(t, at, p.Offset, "pages tile the chunk")
						at = p.Offset + int64(p.HeaderSize) + int64(p.CompressedSize)
						require.Equal(t, p.UncompressedSize == 0, p.Empty)
						if p.Empty {
							emptyHere++
						}
						if c.SinglePage || p.Empty {
							require.Nil(t, p.Statistics)
							continue
						}
						require.NotNil(t, p.Statistics)
						values += p.Statistics.Count
					}
					require.Equal(t, c.Offset+int64(c.HeaderSize)+c.DataSize, at, "pages end where the chunk does")
					require.Equal(t, c.EmptyPages, emptyHere)
					if !c.SinglePage {
						require.Equal(t, c.Statistics.Count, values, "page counts add up to the chunk's")
					}
				}
				require.Equal(t, s.Pages, sum)
				require.Equal(t, s.EmptyPages, empty)
				chunks += s.Chunks
				pageCount += s.Pages
			}
		}
	}
	require.Equal(t, info.Chunks, chunks)
	require.Equal(t, info.Pages, pageCount)
}

func TestInspectChunkAndPageDetail(t *testing.T) {
	files := []string{sample}
	if _, err := os.Stat(interop + "manifest.json"); err == nil {
		files = append(files, interop+"j01_table_all_types_plain.tsfile", interop+"j02_table_multipage_default_encodings.tsfile", interop+"j10_tree_nonaligned.tsfile")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			plain := inspectJSON(t, path)
			checkChunkDetail(t, path, plain, false)
			withPages := inspectJSON(t, path, "--pages")
			checkChunkDetail(t, path, withPages, true)
			// --pages only adds pages_detail.
			for ti := range withPages.Tables {
				for di := range withPages.Tables[ti].Devices {
					for si := range withPages.Tables[ti].Devices[di].Series {
						for ci := range withPages.Tables[ti].Devices[di].Series[si].ChunksDetail {
							withPages.Tables[ti].Devices[di].Series[si].ChunksDetail[ci].PagesDetail = nil
						}
					}
				}
			}
			require.Equal(t, plain, withPages)
		})
	}
}

func TestInspectJSONFieldNames(t *testing.T) {
	code, out, stderr := runCLI("inspect", "--json", sample)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, `"pages_detail"`, "pages_detail needs --pages")
	for _, key := range []string{`"chunks_detail": [`, `"offset": `, `"header_size": `, `"data_size": `, `"single_page": `, `"empty_pages": `} {
		require.Contains(t, out, key)
	}
	code, out, stderr = runCLI("inspect", "--json", "--pages", sample)
	require.Equal(t, 0, code, stderr)
	for _, key := range []string{`"pages_detail": [`, `"uncompressed_size": `, `"compressed_size": `, `"empty": false`} {
		require.Contains(t, out, key)
	}
}

func TestInspectEmptyAndSinglePages(t *testing.T) {
	needInterop(t)
	// j02 has an empty value page in the middle of a chunk; j01 has only
	// single-page chunks.
	info := inspectJSON(t, "--pages", interop+"j02_table_multipage_default_encodings.tsfile")
	var empty int
	for _, d := range info.Tables[0].Devices {
		for _, s := range d.Series {
			for _, c := range s.ChunksDetail {
				for _, p := range c.PagesDetail {
					if p.Empty {
						empty++
						require.Nil(t, p.Statistics)
						require.Zero(t, p.CompressedSize)
					}
				}
			}
		}
	}
	require.Positive(t, empty)

	code, out, _ := runCLI("inspect", "--json", "--pages", interop+"j01_table_all_types_plain.tsfile")
	require.Equal(t, 0, code)
	require.Contains(t, out, `"single_page": true`)
	require.Contains(t, out, `"statistics": null`)
}

func TestInspectPagesText(t *testing.T) {
	info := inspectJSON(t, sample)
	chunkLine := regexp.MustCompile(`(?m)^      chunk +offset=\d+ +header=\d+ +(data=\d+ +values=\d+ time=\d+\.\.\d+ +encoding=\S+ compression=\S+ pages=\d+|data=0 +values=0 +encoding=\S+ compression=\S+ pages=0 \(empty value chunk\))`)
	pageLine := regexp.MustCompile(`(?m)^        page +offset=\d+ +header=\d+ +size=\d+/\d+ +(values=\d+ time=\d+\.\.\d+|empty|no statistics)$`)

	code, out, stderr := runCLI("inspect", sample)
	require.Equal(t, 0, code, stderr)
	require.Len(t, chunkLine.FindAllString(out, -1), info.Chunks)
	require.Empty(t, pageLine.FindAllString(out, -1))
	// The series table is still one aligned table per device.
	require.Contains(t, out, "    SERIES       TYPE       ENCODING  COMPRESSION   CHUNKS  PAGES  VALUES  NULLS  START          END            MIN            MAX\n    (time)       VECTOR     TS_2DIFF")
	require.Contains(t, out, "      chunk  offset=27     header=6   data=111   values=250 time=1700000000000..1700000249000  encoding=TS_2DIFF compression=UNCOMPRESSED pages=2\n")

	code, out, stderr = runCLI("inspect", sample, "--pages")
	require.Equal(t, 0, code, stderr)
	require.Len(t, chunkLine.FindAllString(out, -1), info.Chunks)
	require.Len(t, pageLine.FindAllString(out, -1), info.Pages)
	require.Contains(t, out, "      chunk   offset=27     header=6   data=111        values=250 time=1700000000000..1700000249000  encoding=TS_2DIFF compression=UNCOMPRESSED pages=2\n"+
		"        page  offset=33     header=20  size=48/48      values=200 time=1700000000000..1700000199000\n")
	for _, line := range strings.Split(out, "\n") {
		require.Equal(t, strings.TrimRight(line, " "), line, "no trailing blanks")
	}
}

func TestInspectSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	a, b := filepath.Join(dir, "a.tsfile"), filepath.Join(dir, "sub", "b.tsfile")
	require.NoError(t, os.MkdirAll(filepath.Dir(b), 0o755))
	require.NoError(t, os.WriteFile(a, data, 0o644))
	require.NoError(t, os.WriteFile(b, data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a tsfile"), 0o644))

	code, one, stderr := runCLI("inspect", a)
	require.Equal(t, 0, code, stderr)
	for _, args := range [][]string{{a, b}, {dir}, {filepath.Join(dir, "*.tsfile"), b}} {
		code, out, stderr := runCLI(append([]string{"inspect"}, args...)...)
		require.Equal(t, 0, code, stderr)
		require.Empty(t, stderr)
		require.Equal(t, one+"\n"+strings.Replace(one, "file:        "+a, "file:        "+b, 1), out, "%v", args)

		code, out, stderr = runCLI(append([]string{"inspect", "--json"}, args...)...)
		require.Equal(t, 0, code, stderr)
		var infos []inspectFile
		require.NoError(t, json.Unmarshal([]byte(out), &infos), "several files give an array")
		require.Len(t, infos, 2)
		require.Equal(t, a, infos[0].File)
		require.Equal(t, b, infos[1].File)
		infos[1].File = a
		require.Equal(t, infos[0], infos[1])
	}

	// A directory always gives an array, even of one file.
	code, out, _ := runCLI("inspect", "--json", filepath.Join(dir, "sub"))
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(out, "["), out[:20])
	// One plain file gives one object, as before.
	code, out, _ = runCLI("inspect", "--json", a)
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(out, "{"))
}

func TestInspectSeveralFilesOneBad(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	good, bad := filepath.Join(dir, "a.tsfile"), filepath.Join(dir, "b.tsfile")
	require.NoError(t, os.WriteFile(good, data, 0o644))
	broken := append([]byte(nil), data...)
	broken[len(broken)-1] = 'x'
	require.NoError(t, os.WriteFile(bad, broken, 0o644))

	code, out, stderr := runCLI("inspect", dir)
	require.Equal(t, 1, code)
	require.Contains(t, out, "file:        "+good)
	require.NotContains(t, out, bad)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2, stderr)
	require.Regexp(t, `^ts2arrow: `+regexp.QuoteMeta(bad)+`: file tail: .* at offset \d+; "ts2arrow recover .* -o FIXED" can salvage its complete chunk groups$`, lines[0])
	require.Equal(t, "ts2arrow: 1 of 2 files could not be inspected", lines[1])

	code, out, stderr = runCLI("inspect", "--json", good, bad)
	require.Equal(t, 1, code)
	var infos []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &infos))
	require.Len(t, infos, 2)
	require.Equal(t, good, infos[0]["file"])
	require.Equal(t, bad, infos[1]["file"])
	require.Contains(t, infos[1]["error"], "file tail")
	require.Contains(t, stderr, bad)
}

func TestInspectRemote(t *testing.T) {
	url, _ := rangeServer(t, sample)
	local := inspectJSON(t, sample)
	remote := inspectJSON(t, url)
	require.Equal(t, url, remote.File)
	remote.File = local.File
	require.Equal(t, local, remote)

	code, out, stderr := runCLI("inspect", "--pages", url)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "file:        "+url)
	require.Contains(t, out, "        page  offset=33 ")

	code, _, stderr = runCLI("inspect", strings.TrimSuffix(url, "sample.tsfile")+"missing.tsfile")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "missing.tsfile")
	require.Equal(t, 1, strings.Count(stderr, "\n"))

	if _, err := os.Stat(interop + "manifest.json"); err != nil {
		return
	}
	// Headers only: most of a file with large pages is never fetched.
	big := interop + "j02_table_multipage_default_encodings.tsfile"
	url, served := rangeServer(t, big)
	st, err := os.Stat(big)
	require.NoError(t, err)
	info := inspectJSON(t, "--pages", url)
	checkChunkDetail(t, big, info, true)
	t.Logf("inspect --pages fetched %d of %d bytes", served.Load(), st.Size())
	require.Less(t, served.Load(), st.Size()/2)
}

func TestInspectUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"inspect"}, 2, "inspect needs at least one FILE"},
		{[]string{"inspect", "--bogus", sample}, 2, "unknown flag: --bogus"},
		{[]string{"inspect", "nothing-here-*.tsfile"}, 2, "matches no file"},
		{[]string{"inspect", "missing.tsfile"}, 1, "missing.tsfile"},
	} {
		code, out, stderr := runCLI(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.stderr, "%v", tc.args)
		require.Empty(t, out, "%v", tc.args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	code, out, stderr := runCLI("inspect", "--help")
	require.Equal(t, 0, code)
	help := out + stderr
	for _, s := range []string{"Usage: ts2arrow inspect FILE...", "Examples:", "--pages", "docs/inspect-json.md", "--json"} {
		require.Contains(t, help, s)
	}
	_, err := os.Stat("../../docs/inspect-json.md")
	require.NoError(t, err, "the help names the JSON documentation")
}
