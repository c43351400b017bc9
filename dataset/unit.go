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
// read once, in batches of up to BatchSize rows of one device, by its
// reader's team.
type unitStreams struct {
	r       *Reader
	u       *unit
	streams map[*dataFile]*fileDevStream
	infos   map[entryKey]*devInfo
	i       int // next entry
	cur     producer
	curDev  tsfile.DeviceID
}

// fileDevStream is one file's reader in a unitStreams. Its reader runs on
// a goroutine of its own, one batch ahead of the merge: the streams of a
// group decode in parallel while the merge runs, each with one worker
// (readers with teams of their own would spin against each other), and
// memory stays at a few batches per file.
type fileDevStream struct {
	r   *Reader
	df  *dataFile
	rd  *arrowconv.Reader
	rec arrow.RecordBatch // read ahead, not yet taken (raw, of the file's schema)
	dev tsfile.DeviceID
	eof bool

	ch   chan streamItem
	done chan struct{}
	wg   sync.WaitGroup
}

// streamItem is a batch the stream's goroutine read, or how it ended.
type streamItem struct {
	rec arrow.RecordBatch
	dev tsfile.DeviceID
	err error
}

// start runs the reader on its goroutine.
func (fs *fileDevStream) start() {
	fs.ch = make(chan streamItem, 1)
	fs.done = make(chan struct{})
	fs.wg.Add(1)
	go func() {
		defer fs.wg.Done()
		defer close(fs.ch)
		for fs.rd.Next() {
			rec := fs.rd.RecordBatch()
			rec.Retain()
			select {
			case fs.ch <- streamItem{rec: rec, dev: fs.rd.Device()}:
			case <-fs.done:
				rec.Release()
				return
			}
		}
		if err := fs.rd.Err(); err != nil {
			select {
			case fs.ch <- streamItem{err: err}:
			case <-fs.done:
			}
		}
	}()
}

// peek returns the device of the next batch; false at the end.
func (fs *fileDevStream) peek() (tsfile.DeviceID, bool, error) {
	if fs.rec != nil {
		return fs.dev, true, nil
	}
	if fs.eof || fs.rd == nil {
		return tsfile.DeviceID{}, false, nil
	}
	if fs.ch == nil {
		fs.start()
	}
	it, ok := <-fs.ch
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

// take hands over the batch peek announced.
func (fs *fileDevStream) take() arrow.RecordBatch {
	rec := fs.rec
	fs.rec = nil
	return rec
}

// skip drops what is left of dev's rows (a limit stopped the merge early).
func (fs *fileDevStream) skip(dev tsfile.DeviceID) error {
	for {
		d, ok, err := fs.peek()
		if err != nil || !ok || !d.Equal(dev) {
			return err
		}
		fs.take().Release()
	}
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
	s := &unitStreams{r: r, u: u, streams: map[*dataFile]*fileDevStream{}, infos: map[entryKey]*devInfo{}}
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

func (s *unitStreams) next() (arrow.RecordBatch, error) {
	for {
		if s.cur != nil {
			rec, err := s.cur.next()
			if err != nil || rec != nil {
				return rec, err
			}
			s.cur.release()
			s.cur = nil
			// Rows of the device the merge did not take (a limit): drop
			// them so that the streams move on to the next device.
			for _, fs := range s.streams {
				if err := fs.skip(s.curDev); err != nil {
					return nil, err
				}
			}
		}
		if s.i >= len(s.u.entries) {
			return nil, nil
		}
		j := s.i + 1
		for j < len(s.u.entries) && s.u.entries[j].dev.Equal(s.u.entries[s.i].dev) {
			j++
		}
		group := s.u.entries[s.i:j]
		s.i = j
		s.curDev = group[0].dev
		// A stream still at an earlier device did not give it where the
		// order of devices said: its file orders devices differently.
		// (Streams not started yet are checked when they are.)
		for _, fs := range s.streams {
			if fs.ch == nil {
				continue
			}
			if d, ok, err := fs.peek(); err != nil {
				return nil, err
			} else if ok && d.Compare(s.curDev) < 0 {
				return nil, fmt.Errorf("dataset: %s gives device %s after the merge moved past it to %s: %w", fs.df.Path, d, s.curDev, tsfile.ErrCorrupt)
			}
		}
		p, err := s.r.deviceProducer(group, s.sources)
		if err != nil {
			return nil, err
		}
		s.cur = p
	}
}

// sources returns the cursors of one device of one file: a view of the
// file's stream, or its flushes when they overlap (segments).
func (s *unitStreams) sources(e *entry, rank int) ([]*cursor, error) {
	info := s.infos[entryKey{e.df, e.dev.Key()}]
	if info == nil || (!s.r.d.opts.CountDeletions && covers(info.dels.rows, e.start, e.end)) {
		return nil, nil
	}
	v := &devView{r: s.r, fs: s.streams[e.df], dev: e.dev, dels: info.dels, lo: e.start, hi: e.end, last: math.MinInt64}
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
	if s.cur != nil {
		s.cur.release()
		s.cur = nil
	}
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
}

func (v *devView) next() (arrow.RecordBatch, error) {
	for {
		d, ok, err := v.fs.peek()
		if err != nil || !ok || !d.Equal(v.dev) {
			return nil, err
		}
		raw := v.fs.take()
		out, err := v.r.settle(v.fs.df, v.dev, raw, v.raw, &v.last, v.dels, v.lo, v.hi)
		raw.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

// release leaves the stream to the unit, which releases it.
func (v *devView) release() {}
