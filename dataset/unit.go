package dataset

import (
	"fmt"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// unitStreams reads a group of overlapping files with one arrowconv reader
// per file (Options.DeviceBatches, devices in DeviceID order), not one per
// file and device: the devices are merged in that order, each file's
// stream handing the merge the batches of the current device. A file is
// read once, in batches of up to BatchSize rows of one device.
type unitStreams struct {
	deviceSeq // its sources are views of the streams
	streams   map[*dataFile]*fileDevStream
	infos     map[entryKey]*devInfo
}

// fileDevStream is one file's reader in a unitStreams. Its reader runs on
// a goroutine of its own, which decodes a batch when asked: the merge asks
// for the next one as it takes the current, so the files of a group decode
// in parallel with the merge, each with one worker (readers with teams of
// their own would spin against each other). A view that has taken all of
// its device's rows asks for nothing more, so a file the merge is not in
// holds no decoded batch of its next device: memory is a batch per file the
// merge is in.
type fileDevStream struct {
	r   *Reader
	df  *dataFile
	rd  *arrowconv.Reader
	rec arrow.RecordBatch // read ahead, not yet taken (raw, of the file's schema)
	dev tsfile.DeviceID
	eof bool

	ch    chan streamItem
	want  chan struct{} // a request for the next batch
	asked bool          // a request is outstanding
	done  chan struct{}
	wg    sync.WaitGroup
}

// streamItem is a batch the stream's goroutine read, or how it ended.
type streamItem struct {
	rec arrow.RecordBatch
	dev tsfile.DeviceID
	err error
}

// start runs the reader on its goroutine.
func (fs *fileDevStream) start() {
	fs.ch = make(chan streamItem)
	fs.want = make(chan struct{}, 1)
	fs.done = make(chan struct{})
	fs.wg.Add(1)
	go func() {
		defer fs.wg.Done()
		defer close(fs.ch)
		for {
			select {
			case <-fs.want:
			case <-fs.done:
				return
			}
			if !fs.rd.Next() {
				if err := fs.rd.Err(); err != nil {
					select {
					case fs.ch <- streamItem{err: err}:
					case <-fs.done:
					}
				}
				return
			}
			// Taken, not retained: an idle reader then holds nothing.
			dev := fs.rd.Device()
			rec := fs.rd.TakeRecordBatch()
			select {
			case fs.ch <- streamItem{rec: rec, dev: dev}:
			case <-fs.done:
				rec.Release()
				return
			}
		}
	}()
}

// ask has the goroutine decode the next batch, unless it is asked already.
func (fs *fileDevStream) ask() {
	if fs.eof || fs.rd == nil {
		return
	}
	if fs.ch == nil {
		fs.start()
	}
	if !fs.asked {
		fs.asked = true
		fs.want <- struct{}{}
	}
}

// peek returns the device of the next batch; false at the end.
func (fs *fileDevStream) peek() (tsfile.DeviceID, bool, error) {
	if fs.rec != nil {
		return fs.dev, true, nil
	}
	if fs.eof || fs.rd == nil {
		return tsfile.DeviceID{}, false, nil
	}
	fs.ask()
	it, ok := <-fs.ch
	fs.asked = false
	switch {
	case !ok:
		fs.eof = true
		return tsfile.DeviceID{}, false, nil
	case it.err != nil:
		fs.eof = true
		return tsfile.DeviceID{}, false, fmt.Errorf("dataset: %s: %w", fs.df.Path, it.err)
	}
	fs.rec, fs.dev = it.rec, it.dev
	return fs.dev, true, nil
}

// take hands over the batch peek announced and, with ahead, asks for the
// next one while the caller works on this one.
func (fs *fileDevStream) take(ahead bool) arrow.RecordBatch {
	rec := fs.rec
	fs.rec = nil
	if ahead {
		fs.ask()
	}
	return rec
}

// release stops the goroutine and releases the reader and what it read.
func (fs *fileDevStream) release() {
	if fs.ch != nil {
		close(fs.done)
		for it := range fs.ch {
			if it.rec != nil {
				it.rec.Release()
			}
		}
		fs.wg.Wait()
		fs.ch = nil
	}
	if fs.rec != nil {
		fs.rec.Release()
		fs.rec = nil
	}
	if fs.rd != nil {
		fs.rd.Release()
		fs.rd = nil
	}
}

// newUnitStreams checks every device of the unit against the files' index
// and opens a reader per file.
func (r *Reader) newUnitStreams(u *unit) (*unitStreams, error) {
	s := &unitStreams{deviceSeq: deviceSeq{r: r, u: u}, streams: map[*dataFile]*fileDevStream{}, infos: map[entryKey]*devInfo{}}
	s.sources = s.streamSources
	devs := map[*dataFile][]tsfile.DeviceID{}
	whole := map[*dataFile]bool{} // a file with overlapping flushes: read all its times
	for i := range u.entries {
		e := &u.entries[i]
		info, err := r.inspectDevice(e)
		if err != nil {
			return nil, err
		}
		s.infos[entryKey{e.df, e.dev.Key()}] = info
		if !r.d.opts.CountDeletions && covers(info.dels.rows, e.start, e.end) {
			if e.full {
				r.countDeletedDevice(info)
			}
			continue // deleted whole in this file: not read
		}
		devs[e.df] = append(devs[e.df], e.dev)
		whole[e.df] = whole[e.df] || info.segmented
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if t := r.opts.Time; t != nil {
		lo, hi = t.Start, t.End
	}
	for _, df := range u.files {
		fs := &fileDevStream{r: r, df: df}
		s.streams[df] = fs
		if len(devs[df]) == 0 {
			continue
		}
		flo, fhi := lo, hi
		if whole[df] {
			flo, fhi = math.MinInt64, math.MaxInt64 // see segments
		}
		o, ok := r.fileOptions(df, devs[df], flo, fhi, nil)
		if !ok {
			continue
		}
		o.DeviceBatches = true
		o.Workers = 1 // the stream's goroutine is its parallelism
		rd, err := r.newFileReader(df, o)
		if err != nil {
			s.release()
			return nil, err
		}
		fs.rd = rd
	}
	return s, nil
}

// streamSources returns the cursors of one device of one file: a view of
// the file's stream, or its flushes when they overlap (segments).
func (s *unitStreams) streamSources(e *entry, rank int) ([]*cursor, error) {
	info := s.infos[entryKey{e.df, e.dev.Key()}]
	if info == nil || (!s.r.d.opts.CountDeletions && covers(info.dels.rows, e.start, e.end)) {
		return nil, nil
	}
	v := &devView{r: s.r, fs: s.streams[e.df], dev: e.dev, dels: info.dels, lo: e.start, hi: e.end, last: math.MinInt64}
	if s.r.opts.Time == nil && info.aligned {
		// Read whole, the device has its time column's count of rows.
		for i := range info.series {
			if info.series[i].IsTimeColumn() {
				v.expect = info.series[i].Statistics.Count
			}
		}
	}
	if info.segmented {
		v.raw = true
		return s.r.segments(v, e.df, e.dev, info.dels, rank, info, e.start, e.end)
	}
	return []*cursor{{src: v, rank: rank, startT: e.start, lazy: true}}, nil
}

// entryKey identifies an entry: a device of a file.
type entryKey struct {
	df  *dataFile
	dev string // DeviceID.Key
}

func (s *unitStreams) release() {
	s.deviceSeq.release()
	for _, fs := range s.streams {
		fs.release()
	}
}

// devView is one device's rows in one file's stream: conformed, in the
// entry's time range, its deletions applied, checked to be in time order.
type devView struct {
	r      *Reader
	fs     *fileDevStream
	dev    tsfile.DeviceID
	dels   *deviceDeletions
	lo, hi int64
	last   int64
	raw    bool // for segments: every row as read, no deletions or checks
	// expect is the device's row count in the file, when known; once
	// seen reaches it the view asks its stream for nothing more.
	expect, seen int64
}

func (v *devView) next() (arrow.RecordBatch, error) {
	for {
		if v.expect > 0 && v.seen >= v.expect {
			// Every row of the device is in: looking further would
			// decode the file's next device ahead of its turn.
			return nil, nil
		}
		d, ok, err := v.fs.peek()
		if err != nil || !ok {
			return nil, err
		}
		if c := d.Compare(v.dev); c != 0 {
			if c < 0 {
				// The merge takes every row of a device before the next
				// (a limit ends the whole read), so this file orders its
				// devices otherwise than the merge does.
				return nil, fmt.Errorf("dataset: %s gives device %s after the merge moved past it to %s: %w", v.fs.df.Path, d, v.dev, tsfile.ErrCorrupt)
			}
			return nil, nil // the file's next device: v's device has no more rows
		}
		v.seen += v.fs.rec.NumRows()
		raw := v.fs.take(v.expect == 0 || v.seen < v.expect)
		out, err := v.r.settle(v.fs.df, v.dev, raw, v.raw, &v.last, v.dels, v.lo, v.hi)
		raw.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

// warm has the stream decode the view's first batch ahead of need.
func (v *devView) warm() { v.fs.ask() }

// release leaves the stream to the unit, which releases it.
func (v *devView) release() {}
