package arrowconv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// The page-body sweep of page verification (issue 29): single bytes of
// the page bodies of upstream-written files (the interop corpus and
// testdata/sample.tsfile), at positions drawn at random with a fixed seed,
// each replaced by another random value. The device holding the page is
// read with verification and with NoVerify, and compared with its clean
// read: a read that succeeds with other rows is silently wrong. A page
// body has no checksum, so without verification many corruptions are
// silently wrong; the sweep counts how many verification catches, and
// checks that it never fails a read whose rows are intact.
//
// CI draws corruptions until verifySweepChangedCI of them change rows
// silently without verification (208 draws with this seed, about ten
// seconds); TSARROW_VERIFY_SWEEP=N draws N (benchmarks/README.md reports
// 3,000), -short and -race a dozen.
// Either way the seed is fixed, so the sweep is deterministic, and
// verification must catch at least minCatches(changed) of the corruptions
// that change rows.

const verifySweepChangedCI = 40

// verifySweepMaxDraws bounds the CI sweep's draws (it needs 208).
const verifySweepMaxDraws = 2000

// minCatchRate is the 99.9% lower confidence bound (Wilson, z = 3.09) of
// the catch rate benchmarks/README.md and the README report: verification
// caught 234 of the 628 corruptions that changed rows in 3,000.
const minCatchRate = 0.31

// minCatches returns the fewest catches a sweep whose changed corruptions
// are each caught with probability minCatchRate shows with probability
// above 99.9%: the largest k with P(Binomial(changed, minCatchRate) < k)
// <= 0.001. A verification that still catches at the reported rate passes
// a fresh seed at least 999 times in 1,000; one that catches nothing
// fails whenever changed >= 20 (the CI sweep needs 4 of its 40, the
// README's sweep 159 of its 628).
func minCatches(changed int) int {
	p := minCatchRate
	// P(X = 0), then P(X = k+1) = P(X = k) * (n-k)/(k+1) * p/(1-p).
	pk := math.Pow(1-p, float64(changed))
	below := 0.0 // P(X < k)
	for k := 0; k <= changed; k++ {
		if below+pk > 0.001 {
			return k
		}
		below += pk
		pk *= float64(changed-k) / float64(k+1) * p / (1 - p)
	}
	return changed
}

// sweepPage is the body of one page: bytes [from, to) of file, a page of
// a chunk of device dev.
type sweepPage struct {
	file     int
	dev      tsfile.DeviceID
	from, to int64
	h        *tsfile.ChunkHeader
	// timeEnd, for an uncompressed non-aligned page, ends its time
	// stream; else 0.
	timeEnd int64
}

// kind names the part of a page an offset lies in, for the tally of what
// verification misses.
func (p *sweepPage) kind(off int64) string {
	h := p.h
	switch {
	case h.IsTimeChunk():
		return "aligned time page"
	case h.IsValueChunk():
		return fmt.Sprintf("aligned %s %s page", h.DataType, h.Encoding)
	case p.timeEnd > 0 && off < p.timeEnd:
		return "non-aligned page, time stream"
	case p.timeEnd > 0:
		return fmt.Sprintf("non-aligned %s %s page, value stream", h.DataType, h.Encoding)
	}
	return fmt.Sprintf("non-aligned %s %s %s page", h.DataType, h.Encoding, h.Compression)
}

// sweepBodies lists the page bodies of b, from its chunk records.
func sweepBodies(t testing.TB, file int, b []byte) []sweepPage {
	sc, err := tsfile.NewScanner(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	var out []sweepPage
	for sc.Next() {
		rec := sc.Record()
		if rec.Kind != tsfile.ChunkRecord {
			continue
		}
		c := rec.Chunk
		for _, p := range c.Pages {
			if h := p.Header; h.CompressedSize > 0 {
				sp := sweepPage{file: file, dev: rec.Device, from: h.BodyOffset(), to: h.End(), h: &c.Header}
				if !c.Header.IsAligned() && c.Header.Compression == encoding.Uncompressed {
					n, k := binary.Uvarint(b[sp.from:sp.to])
					sp.timeEnd = sp.from + int64(k) + int64(n)
				}
				out = append(out, sp)
			}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// readDevice reads the rows of dev in b: with a table reader when its
// table has a schema, else a tree reader of the device.
func readDevice(b []byte, ro *tsfile.ReadOptions, dev tsfile.DeviceID) (recs []arrow.RecordBatch, err error) {
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), ro)
	if err != nil {
		return nil, err
	}
	opts := &Options{Allocator: memory.DefaultAllocator, BatchSize: 4096, Workers: 1, Devices: []tsfile.DeviceID{dev}}
	var r *Reader
	if _, ok := f.SchemaOf(dev.Table()); ok {
		r, err = NewTableReader(f, dev.Table(), opts)
	} else {
		r, err = NewTreeReader(f, "", opts)
	}
	if err != nil {
		return nil, err
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		release(recs)
		return nil, err
	}
	return recs, nil
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// sameRows compares two reads batch by batch: values bit for bit, NaN
// equal to NaN.
func sameRows(a, b []arrow.RecordBatch) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !array.RecordApproxEqual(a[i], b[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			return false
		}
	}
	return true
}

// TestVerifySweep: see the comment at the top of the file.
func TestVerifySweep(t *testing.T) {
	// Draw until wantChanged corruptions changed rows, or maxDraws.
	wantChanged, maxDraws, ciSweep := verifySweepChangedCI, verifySweepMaxDraws, true
	if s := os.Getenv("TSARROW_VERIFY_SWEEP"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "TSARROW_VERIFY_SWEEP")
		wantChanged, maxDraws, ciSweep = n, n, false
	} else if testing.Short() || raceEnabled {
		wantChanged, maxDraws, ciSweep = 12, 12, false
	}
	paths := sampleAndJava(t)
	var files [][]byte
	var pages []sweepPage
	var total int64
	for i, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		files = append(files, b)
		for _, pg := range sweepBodies(t, i, b) {
			pages = append(pages, pg)
			total += pg.to - pg.from
		}
	}
	strict := &tsfile.ReadOptions{MaxPagePoints: 1 << 16}
	noVerify := &tsfile.ReadOptions{MaxPagePoints: 1 << 16, NoVerify: true}
	clean := map[string][]arrow.RecordBatch{}
	defer func() {
		for _, recs := range clean {
			release(recs)
		}
	}()
	// outcome is a read's result against the clean rows.
	type outcome int
	const (
		same outcome = iota
		failed
		wrong // succeeded with other rows: silently wrong
	)
	read := func(b []byte, ro *tsfile.ReadOptions, want []arrow.RecordBatch, dev tsfile.DeviceID) outcome {
		recs, err := readDevice(b, ro, dev)
		if err != nil {
			return failed
		}
		defer release(recs)
		if sameRows(want, recs) {
			return same
		}
		return wrong
	}
	rng := rand.New(rand.NewPCG(29, 2026))
	var changed, caught, verifyWrong, falseAlarms, bothFailed int
	missed := map[string]int{}
	perFile := make([][2]int, len(paths)) // silently wrong without verification, caught with it
	cases := 0
	for ; changed < wantChanged && cases < maxDraws; cases++ {
		// A byte of the page bodies, every byte as likely.
		at := rng.Int64N(total)
		var pg sweepPage
		for _, p := range pages {
			if at < p.to-p.from {
				pg = p
				break
			}
			at -= p.to - p.from
		}
		off := pg.from + at
		good := files[pg.file]
		key := fmt.Sprint(pg.file, pg.dev.String())
		want, ok := clean[key]
		if !ok {
			var err error
			want, err = readDevice(good, strict, pg.dev)
			require.NoError(t, err, "%s: device %s", paths[pg.file], pg.dev)
			clean[key] = want
		}
		b := bytes.Clone(good)
		b[off] ^= byte(1 + rng.IntN(255))
		off0, on := read(b, noVerify, want, pg.dev), read(b, strict, want, pg.dev)
		switch {
		case off0 == wrong && on == failed:
			changed++
			caught++
			perFile[pg.file][0]++
			perFile[pg.file][1]++
		case off0 == wrong:
			changed++
			perFile[pg.file][0]++
			if on == wrong {
				verifyWrong++
				missed[pg.kind(off)]++
			}
		case off0 == same && on == failed:
			falseAlarms++
			t.Errorf("%s offset %d: verification fails a page that decodes to the clean rows", paths[pg.file], off)
		case off0 == failed && on == failed:
			bothFailed++
		}
		if on == wrong && off0 != wrong {
			t.Errorf("%s offset %d: silently wrong with verification only", paths[pg.file], off)
		}
	}
	for i, p := range paths {
		t.Logf("%s: %d value-changing corruptions read silently without verification, %d of them caught with it", filepath.Base(p), perFile[i][0], perFile[i][1])
	}
	t.Logf("page-body sweep: %d corruptions of %d page-body bytes: %d changed rows with exit 0 under NoVerify; verification caught %d of them (%d still silently wrong); %d failed either way; %d false alarms",
		cases, total, changed, caught, verifyWrong, bothFailed, falseAlarms)
	kinds := slices.Sorted(maps.Keys(missed))
	slices.SortStableFunc(kinds, func(a, b string) int { return missed[b] - missed[a] })
	for _, k := range kinds {
		t.Logf("  still silently wrong: %d in %s", missed[k], k)
	}
	if ciSweep {
		require.GreaterOrEqual(t, changed, wantChanged, "the sweep drew %d corruptions", cases)
	}
	// The catch rate reported (README, benchmarks/README.md) holds: see
	// minCatches.
	require.GreaterOrEqual(t, caught, minCatches(changed),
		"verification caught %d of %d corruptions that changed rows; at the reported rate (%.2f or more) it catches at least %d",
		caught, changed, minCatchRate, minCatches(changed))
}
