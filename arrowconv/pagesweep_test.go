//go:build pagesweep

package arrowconv

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// TestPageSweepByType is the measurement of issue 36 point 3, run by hand
// (go test -tags pagesweep ./arrowconv -run TestPageSweepByType -v; the
// README's "What verification can and cannot catch" gives its figures):
// single bytes of uncompressed page bodies (a file drawn uniformly, then a
// byte of its page bodies) of the sample file, the interop files and the
// upstream Java tree-model files of several chunks (non-aligned and
// aligned devices of every type), each changed by a random XOR; the
// device holding the page is read with default options and the outcome
// classified as an error, the same rows, or other rows with no error
// (silently wrong), by the page's data type and the stream the byte lies
// in. TSARROW_PAGE_SWEEP=N sets the draws (1,200), TSARROW_PAGE_SWEEP_ALL
// draws from compressed pages too, TSARROW_PAGE_SWEEP_LIST (with -v) lists
// the silent ones. The seed is fixed: run it on two commits to compare.
func TestPageSweepByType(t *testing.T) {
	draws := 1200
	if s := os.Getenv("TSARROW_PAGE_SWEEP"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		draws = n
	}
	paths := sampleAndJava(t)
	// Tree-model files of the upstream Java writer, with non-aligned
	// (and aligned) devices of every type, in chunks of several pages.
	java, err := filepath.Glob(filepath.Join("..", "testdata", "upstream", "java", "v[34]_tree_*_multichunk.tsfile"))
	require.NoError(t, err)
	paths = append(paths, java...)
	// Only uncompressed pages, unless TSARROW_PAGE_SWEEP_ALL is set: a
	// changed byte of a compressed page mostly fails to decompress, which
	// says nothing of the checks after it.
	all := os.Getenv("TSARROW_PAGE_SWEEP_ALL") != ""
	var files [][]byte
	var names []string
	var pages [][]sweepPage
	var totals []int64
	for i, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var ps []sweepPage
		var total int64
		for _, pg := range sweepBodies(t, i, b) {
			if all || pg.h.Compression == encoding.Uncompressed {
				ps = append(ps, pg)
				total += pg.to - pg.from
			}
		}
		if total == 0 {
			continue
		}
		files, names = append(files, b), append(names, filepath.Base(p))
		pages, totals = append(pages, ps), append(totals, total)
	}
	clean := map[string][]arrow.RecordBatch{}
	defer func() {
		for _, recs := range clean {
			release(recs)
		}
	}()
	type tally struct{ failed, same, wrong, big int }
	byType := map[string]*tally{}
	var sum tally
	rng := rand.New(rand.NewPCG(36, 2026))
	for range draws {
		fi := rng.IntN(len(files))
		at := rng.Int64N(totals[fi])
		var pg sweepPage
		for _, p := range pages[fi] {
			if at < p.to-p.from {
				pg = p
				break
			}
			at -= p.to - p.from
		}
		off := pg.from + at
		good := files[fi]
		key := fmt.Sprint(fi, pg.dev.String())
		want, ok := clean[key]
		if !ok {
			var err error
			want, err = readDevice(good, nil, pg.dev)
			require.NoError(t, err, "%s: device %s", names[fi], pg.dev)
			clean[key] = want
		}
		b := bytes.Clone(good)
		x := byte(1 + rng.IntN(255))
		b[off] ^= x
		kind := pg.h.DataType.String()
		switch {
		case pg.h.IsTimeChunk():
			kind = "aligned time"
		case pg.h.IsValueChunk():
			kind += " aligned"
		case pg.timeEnd > 0 && off < pg.timeEnd:
			kind += " non-aligned, time stream"
		default:
			kind += " non-aligned"
		}
		tl := byType[kind]
		if tl == nil {
			tl = &tally{}
			byType[kind] = tl
		}
		recs, err := readDevice(b, nil, pg.dev)
		switch {
		case err != nil:
			tl.failed++
			sum.failed++
		case sameRows(want, recs):
			tl.same++
			sum.same++
		default:
			tl.wrong++
			sum.wrong++
			if d := rowCount(recs) - rowCount(want); d > 100 || d < -100 {
				tl.big++
				sum.big++
			}
			if testing.Verbose() && os.Getenv("TSARROW_PAGE_SWEEP_LIST") != "" {
				t.Logf("silent: %s offset %d ^0x%02x (%s) rows %d -> %d", names[fi], off, x, kind, rowCount(want), rowCount(recs))
			}
		}
		release(recs)
	}
	t.Logf("| page kind | flips | error | same rows | silently wrong | share | >100 rows |")
	for _, k := range slices.Sorted(maps.Keys(byType)) {
		tl := byType[k]
		n := tl.failed + tl.same + tl.wrong
		t.Logf("| %s | %d | %d | %d | %d | %.1f%% | %d |", k, n, tl.failed, tl.same, tl.wrong, 100*float64(tl.wrong)/float64(n), tl.big)
	}
	t.Logf("| all | %d | %d | %d | %d | %.1f%% | %d |", draws, sum.failed, sum.same, sum.wrong, 100*float64(sum.wrong)/float64(draws), sum.big)
}

// rowCount is the number of rows of recs.
func rowCount(recs []arrow.RecordBatch) int64 {
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	return n
}
