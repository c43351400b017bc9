package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sync"

	"github.com/tsarrow/tsarrow/tsfile"
)

// What a .resource must say of its data file, and why only that.
//
// IoTDB fills a resource's device times as it writes, not from the file it
// ends up with (apache/iotdb iotdb-core/datanode/.../dataregion/memtable/
// TsFileProcessor.java): insert and insertTablet call
// tsFileResource.updateStartTime with every inserted time (and, in an
// unsequence file, updateEndTime), and addAMemtableIntoFlushingList sets a
// sequence file's end times from the memtable's largest times. A deletion
// that reaches the memtable before its flush (deleteDataInMemory) removes
// points from the memtable but narrows no resource time, and a deletion of
// a flushed file goes to its mods file, the resource left as it was. So a
// resource IoTDB wrote may be wider than its file (a start before the
// file's first point of the device, an end after its last, even a device
// with no point left), never narrower: every point IoTDB flushed was
// inserted first. Compaction and load write a target's resource from the
// points they write (exact). IoTDB's own check of a resource
// (TsFileResourceUtils.validateTsFileResourceCorrectness) asks only that
// each device's start be at most its end.
//
// Narrower is what loses points silently: IoTDB, and this reader, prune a
// file or a device by the resource before reading the file, so a device
// the resource leaves out, or a range it cuts short, is never read, and a
// range that no longer overlaps another file's lets an overwritten point
// come back. checkResources therefore asks of every device the file's
// index holds that the resource list it with a range covering the index's
// (the chunk statistics of its time column, or of all its series when not
// aligned); wider ranges and extra devices pass, as IoTDB writes them.

// resourceWorkers bounds the data files whose footers are read at once.
func resourceWorkers() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// checkResources checks the resource of every data file that has one
// against the file's own index, before anything is pruned by it
// (Options.TrustResources skips it). Only the footer and the index are
// read. On a mismatch the open fails with ErrCorrupt, or, under
// ReadOptions.Lenient, the file is read by its own index (its resource
// set aside) with a warning.
func (d *Dataset) checkResources() error {
	var todo []*dataFile
	for _, df := range d.files {
		if df.res != nil {
			todo = append(todo, df)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	diffs := make([]string, len(todo))
	errs := make([]error, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(resourceWorkers(), len(todo)) {
		wg.Go(func() {
			for i := range next {
				diffs[i], errs[i] = d.compareResource(todo[i])
			}
		})
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, df := range todo {
		if errs[i] != nil {
			return errs[i]
		}
		if diffs[i] == "" {
			continue
		}
		if !d.lenient() {
			return fmt.Errorf("dataset: %s does not match the index of its data file: %s; IoTDB prunes files and devices by the resource, so points would be missed or come back overwritten: move the resource aside (the file's own index is then read, as IoTDB rebuilds a missing resource), or read with --lenient to use the file's index with a warning (--raw reads every file as it is): %w", df.Resource, diffs[i], ErrResourceMismatch)
		}
		d.warnings = append(d.warnings, fmt.Sprintf("%s does not match the index of its data file: %s; reading %s by its own index instead (--lenient)", df.Resource, diffs[i], df.Path))
		df.res, df.resIdx, df.tables = nil, nil, nil
	}
	return nil
}

// ErrResourceMismatch reports a .resource that does not cover its data
// file's index: it leaves out a device the file holds, or gives one a
// narrower time range (see checkResources). It wraps tsfile.ErrCorrupt.
var ErrResourceMismatch = fmt.Errorf("resource does not match its data file: %w", tsfile.ErrCorrupt)

// compareResource reads the index of df's data file and says how its
// resource fails to cover it ("" when it does).
func (d *Dataset) compareResource(df *dataFile) (string, error) {
	osf, err := openVersion(d.fsys, df)
	if err != nil {
		return "", err
	}
	defer osf.Close()
	tf, err := tsfile.Open(osf, df.ver.Size, d.readOptions())
	if err != nil {
		return "", fmt.Errorf("dataset: %s: %w (its .resource cannot be checked against it; --trust-resources prunes by the resource unchecked)", df.Path, err)
	}
	defer tf.Close()
	var first string
	n := 0
	held := make(map[int]bool, len(df.res.Devices)) // resource slots the file holds
	for _, table := range tf.Tables() {
		err := tf.TableSeries(table, func(dev tsfile.DeviceID, series []tsfile.TimeseriesMetadata) error {
			lo, hi, ok := seriesSpan(series)
			if !ok {
				return nil
			}
			j, found := df.resIdx[dev.Key()]
			if found {
				held[j] = true
			}
			var diff string
			switch {
			case !found:
				diff = fmt.Sprintf("it does not list device %s, which the file holds over [%d, %d]", dev, lo, hi)
			case lo < df.res.Devices[j].Start || hi > df.res.Devices[j].End:
				dt := df.res.Devices[j]
				diff = fmt.Sprintf("it says device %s spans [%d, %d], but the file holds it over [%d, %d]", dev, dt.Start, dt.End, lo, hi)
			default:
				return nil
			}
			if n == 0 {
				first = diff
			}
			n++
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("dataset: %s: %w (its .resource cannot be checked against it; --trust-resources prunes by the resource unchecked)", df.Path, err)
		}
	}
	if n > 1 {
		first += fmt.Sprintf(" (and %d more differences)", n-1)
	}
	if n == 0 && len(held) < len(df.res.Devices) {
		// Devices IoTDB inserted and then deleted before the flush: the
		// file holds no point of them, so neither does the read; left in,
		// they would list tables and devices the file lacks.
		df.setResource(slices.DeleteFunc(slices.Clone(df.res.Devices), func(dt DeviceTimes) bool {
			return !held[df.resIdx[dt.Device.Key()]]
		}))
	}
	return first, nil
}

// openData opens a data file or a companion of the snapshot, telling a
// file that is gone (a compaction or a flush removed it: ErrChanged) from
// one the user may not read, and refusing one that is not a regular file.
func openData(fsys fileSystem, path string) (file, error) {
	f, err := openRegular(fsys, path)
	if err != nil {
		return nil, fileError(path, err)
	}
	return f, nil
}

// ErrNotRegular reports a file where a data file or a companion was
// expected that is a named pipe, a device, a socket or a folder.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading only after a stat says it is a
// regular file: opening a named pipe waits for a writer, and a device such
// as /dev/zero never ends. The mode is checked again on the open file, in
// case the path changed in between. An io/fs file system is trusted not
// to block in Open (see Options.FS), so its files are checked on the open
// file only: a stat first would cost a bucket one request more per file.
func openRegular(fsys fileSystem, path string) (file, error) {
	if fsys.OpenMayBlock() {
		st, err := fsys.Stat(path)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is %s: %w", path, modeName(st.Mode()), ErrNotRegular)
		}
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is %s: %w", path, modeName(st.Mode()), ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// fileError says what an error opening or stating a file of the snapshot
// means: a file gone since the listing is ErrChanged; permission denied
// and other errors say so, with what to do.
func fileError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %v", ErrChanged, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("dataset: %s: permission denied: this user may not read a file of the data directory; run as a user who can (IoTDB's files belong to the user running IoTDB), or read a copy: %w", path, err)
	}
	return fmt.Errorf("dataset: %w", err)
}

// companionError is fileError for an error reading a resource or mods
// file, which may also be a parse error, returned as it is.
func companionError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return fileError(path, err)
	}
	return err
}
