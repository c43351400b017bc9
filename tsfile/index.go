package tsfile

import (
	"sort"
)

// Tables returns the names of the table index roots, sorted. Tree-model
// files have one "table" per first DeviceID segment and no schemas.
func (f *File) Tables() []string {
	names := append([]string(nil), f.Metadata.TableNames...)
	sort.Strings(names)
	return names
}

// SchemaOf returns the schema of the named table. ok is false for a
// tree-model table, which has none, and for a table the file lacks.
func (f *File) SchemaOf(table string) (schema *TableSchema, ok bool) {
	s, ok := f.Metadata.TableSchemas[table]
	return s, ok
}

// readNode decodes the index node that starts the byte range of e and must
// lie inside it.
func (f *File) readNode(e IndexEntry, isDevice bool) (*IndexNode, error) {
	size := e.End - e.Offset
	b, err := f.readAt(e.Offset, min(size, indexFirstRead), "index node")
	if err != nil {
		return nil, err
	}
	var n IndexNode
	for {
		d := f.newBuf(b, e.Offset, "index node")
		n = d.indexNode(&f.opts, isDevice)
		if d.err == nil {
			break
		}
		if d.short == 0 || int64(len(b)) == size {
			return nil, d.err
		}
		if b, err = f.readMore(b, e.Offset, size, d.short, "index node"); err != nil {
			return nil, err
		}
	}
	if err := f.checkNodeRanges(&n); err != nil {
		return nil, err
	}
	return &n, nil
}

// indexFirstRead is the most of an index node's or a series range's bytes
// read before any of them parse: more than a node of the reference writer's
// 256 entries or the series metadata of a device of a few hundred series
// takes. Past it the bytes are read as the parse asks for them, so that a
// range declaring more than it holds (a hole of a gigabyte in a sparse
// file) costs no more than its parse reaches.
const indexFirstRead = 64 << 10

// readMore returns b, the first bytes of the size bytes at off, extended
// to at least the absolute offset need (and at least doubled), within size.
func (f *File) readMore(b []byte, off, size, need int64, structure string) ([]byte, error) {
	n := min(size, max(2*int64(len(b)), need-off))
	nb := make([]byte, n)
	copy(nb, b)
	if _, err := f.readInto(nb[len(b):], off+int64(len(b)), structure); err != nil {
		return nil, err
	}
	return nb, nil
}

// checkChild enforces the node-type hierarchy of Metadata.md: an internal
// node's children are of the same family, one level down or leaves.
func checkChild(parent, child *IndexNode) error {
	ok := false
	switch parent.Type {
	case InternalDevice:
		ok = child.Type == InternalDevice || child.Type == LeafDevice
	case LeafDevice:
		ok = child.Type == InternalMeasurement || child.Type == LeafMeasurement
	case InternalMeasurement:
		ok = child.Type == InternalMeasurement || child.Type == LeafMeasurement
	}
	if !ok {
		return corruptf(child.Offset, "index node", "a %s node cannot be a child of a %s node", child.Type, parent.Type)
	}
	return nil
}

// visit records that the node at off was read during one walk. In a valid
// tree every node has one parent, so a second reference is corruption; it
// would otherwise let a small crafted index fan out into an exponential
// walk within the depth limit.
func visit(seen map[int64]bool, off int64) error {
	if seen[off] {
		return corruptf(off, "index node", "node is referenced twice")
	}
	seen[off] = true
	return nil
}

// walkDevices calls fn for every LEAF_DEVICE entry under n, in key order.
// Every key under n must sort below hi (nil for no bound), the key of the
// entry after n's in its parent, or a descent by key would miss it.
func (f *File) walkDevices(n *IndexNode, depth int, seen map[int64]bool, hi *DeviceID, fn func(IndexEntry) error) error {
	if depth > f.opts.MaxIndexDepth {
		return corruptf(n.Offset, "index node", "device index deeper than %d levels", f.opts.MaxIndexDepth)
	}
	for i := range n.Entries {
		e := n.Entries[i]
		if n.Type == LeafDevice {
			if hi != nil && compareDevices(f.Version == VersionV3, e.Device, *hi) >= 0 {
				return corruptf(n.Offset, "index node", "key %s does not sort before %s, the next key of the parent node", e.Device, *hi)
			}
			if err := fn(e); err != nil {
				return err
			}
			continue
		}
		if err := visit(seen, e.Offset); err != nil {
			return err
		}
		child, err := f.readNode(e, true)
		if err != nil {
			return err
		}
		if err := checkChild(n, child); err != nil {
			return err
		}
		if compareDevices(f.Version == VersionV3, child.Entries[0].Device, e.Device) < 0 {
			return corruptf(child.Offset, "index node", "first key %s sorts before its parent entry key %s", child.Entries[0].Device, e.Device)
		}
		next := hi
		if i+1 < len(n.Entries) {
			next = &n.Entries[i+1].Device
		}
		if err := f.walkDevices(child, depth+1, seen, next, fn); err != nil {
			return err
		}
	}
	return nil
}

// Devices returns the devices of a table in index order.
func (f *File) Devices(table string) ([]DeviceID, error) {
	var out []DeviceID
	err := f.walkTable(table, func(e IndexEntry) error {
		out = append(out, e.Device)
		return nil
	})
	return out, err
}

// walkTable calls fn with the LEAF_DEVICE entry of every device of a
// table, in index order, checking that each belongs to the table and
// sorts after the one before.
func (f *File) walkTable(table string, fn func(IndexEntry) error) error {
	root, ok := f.Metadata.TableIndexes[table]
	if !ok {
		return nil
	}
	var prev DeviceID
	first := true
	return f.walkDevices(root, 1, map[int64]bool{}, nil, func(e IndexEntry) error {
		// Lookups find a device's index root by its first segment.
		if e.Device.Table() != table {
			return corruptf(root.Offset, "device index", "device %s is in the index of table %q", e.Device, table)
		}
		if !first && prev.Compare(e.Device) >= 0 {
			return corruptf(root.Offset, "device index", "device %s does not sort after %s", e.Device, prev)
		}
		prev, first = e.Device, false
		return fn(e)
	})
}

// deviceEntry finds the LEAF_DEVICE entry of dev by "last entry with key
// <= K" descent; in a v3 file, among the entries Open collected, so that
// any spelling of its path finds it.
func (f *File) deviceEntry(dev DeviceID) (IndexEntry, bool, error) {
	if f.Version == VersionV3 {
		e, ok := f.v3Entry(dev)
		return e, ok, nil
	}
	root, ok := f.Metadata.TableIndexes[dev.Table()]
	if !ok {
		return IndexEntry{}, false, nil
	}
	n := root
	for depth := 1; ; depth++ {
		if depth > f.opts.MaxIndexDepth {
			return IndexEntry{}, false, corruptf(n.Offset, "index node", "device index deeper than %d levels", f.opts.MaxIndexDepth)
		}
		i := n.findDevice(dev)
		if i < 0 {
			return IndexEntry{}, false, nil
		}
		e := n.Entries[i]
		if n.Type == LeafDevice {
			return e, e.Device.Equal(dev), nil
		}
		child, err := f.deviceNode(e)
		if err != nil {
			return IndexEntry{}, false, err
		}
		if err := checkChild(n, child); err != nil {
			return IndexEntry{}, false, err
		}
		n = child
	}
}

// deviceNode is readNode of a device index node for a lookup, parsed once
// per File while devNodeBudget allows (the node is only read after).
func (f *File) deviceNode(e IndexEntry) (*IndexNode, error) {
	if v, ok := f.devNodes.Load(e.Offset); ok {
		return v.(*IndexNode), nil
	}
	n, err := f.readNode(e, true)
	if err != nil {
		return nil, err
	}
	if f.devNodeEntries.Add(int64(len(n.Entries))) <= devNodeBudget {
		f.devNodes.Store(e.Offset, n)
	}
	return n, nil
}

// walkSeries calls fn for every TimeseriesMetadata under the measurement
// node n, in key order. As in walkDevices, every key under n must sort
// below hi when it is not nil.
func (f *File) walkSeries(n *IndexNode, depth int, seen map[int64]bool, hi *string, skim bool, fn func(*TimeseriesMetadata) error) error {
	if depth > f.opts.MaxIndexDepth {
		return corruptf(n.Offset, "index node", "measurement index deeper than %d levels", f.opts.MaxIndexDepth)
	}
	for ei, e := range n.Entries {
		if err := visit(seen, e.Offset); err != nil {
			return err
		}
		if n.Type == LeafMeasurement {
			list, err := f.readSeriesRange(e, skim)
			if err != nil {
				return err
			}
			for i := range list {
				if hi != nil && compareStrings(list[i].Measurement, *hi) >= 0 {
					return corruptf(list[i].Offset, "timeseries metadata", "series %q does not sort before %q, the next key of the parent node", list[i].Measurement, *hi)
				}
				if err := fn(&list[i]); err != nil {
					return err
				}
			}
			continue
		}
		child, err := f.readNode(e, false)
		if err != nil {
			return err
		}
		if err := checkChild(n, child); err != nil {
			return err
		}
		if compareStrings(child.Entries[0].Measurement, e.Measurement) < 0 {
			return corruptf(child.Offset, "index node", "first key %q sorts before its parent entry key %q", child.Entries[0].Measurement, e.Measurement)
		}
		next := hi
		if ei+1 < len(n.Entries) {
			next = &n.Entries[ei+1].Measurement
		}
		if err := f.walkSeries(child, depth+1, seen, next, skim, fn); err != nil {
			return err
		}
	}
	return nil
}

// readSeriesRange decodes the TimeseriesMetadata records that exactly fill
// a LEAF_MEASUREMENT entry's range; skim leaves out their chunk metadata.
func (f *File) readSeriesRange(e IndexEntry, skim bool) ([]TimeseriesMetadata, error) {
	size := e.End - e.Offset
	b, err := f.readAt(e.Offset, min(size, indexFirstRead), "timeseries metadata")
	if err != nil {
		return nil, err
	}
	d := f.newBuf(b, e.Offset, "timeseries metadata")
	var out []TimeseriesMetadata
	for d.err == nil && int64(d.pos) < size {
		at := d.pos
		t := d.timeseries(skim)
		if d.err != nil && d.short != 0 && int64(len(b)) < size {
			// The record runs past the bytes read so far: read on, and
			// decode it again. The records before it keep the strings
			// of the buffer they were decoded from.
			if b, err = f.readMore(b, e.Offset, size, d.short, "timeseries metadata"); err != nil {
				return nil, err
			}
			d = f.newBuf(b, e.Offset, "timeseries metadata")
			d.pos = at
			continue
		}
		if d.err != nil {
			break
		}
		if len(out) == 0 && t.Measurement != e.Measurement {
			return nil, corruptf(t.Offset, "timeseries metadata", "first series %q does not match its index key %q", t.Measurement, e.Measurement)
		}
		if skim {
			out = append(out, t)
			continue
		}
		if err := f.checkSeriesStats(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(out) == 0 {
		return nil, corruptf(e.Offset, "timeseries metadata", "empty series range")
	}
	return out, nil
}

// measurementRoot reads the measurement index root of a device entry.
func (f *File) measurementRoot(e IndexEntry) (*IndexNode, error) {
	return f.readNode(e, false)
}

// Series returns every series of dev in measurement order (for aligned
// devices the time column, measurement "", comes first). It returns
// (nil, nil) when the device is not in the file.
func (f *File) Series(dev DeviceID) ([]TimeseriesMetadata, error) {
	e, ok, err := f.deviceEntry(dev)
	if err != nil || !ok {
		return nil, err
	}
	return f.seriesAt(dev, e, false)
}

// seriesAt is Series of the device whose LEAF_DEVICE entry is e; skim
// leaves out the chunk metadata (Chunks is nil), which makes the walk
// several times cheaper for checks of the index against the schema.
func (f *File) seriesAt(dev DeviceID, e IndexEntry, skim bool) ([]TimeseriesMetadata, error) {
	root, err := f.measurementRoot(e)
	if err != nil {
		return nil, err
	}
	var out []TimeseriesMetadata
	err = f.walkSeries(root, 1, map[int64]bool{}, nil, skim, func(t *TimeseriesMetadata) error {
		if len(out) > 0 && compareStrings(out[len(out)-1].Measurement, t.Measurement) >= 0 {
			return corruptf(t.Offset, "timeseries metadata", "series %q does not sort after %q", t.Measurement, out[len(out)-1].Measurement)
		}
		if !validName(t.Measurement) {
			if err := f.Tolerate(corruptf(t.Offset, "timeseries metadata", "measurement name %q is not valid UTF-8 or holds a NUL: a damaged name; read with --lenient to go on", t.Measurement)); err != nil {
				return err
			}
		}
		out = append(out, *t)
		return nil
	})
	if err == nil {
		f.noteSeriesRoles(out)
		if !skim {
			err = f.noteChunkDevices(dev, out)
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SeriesByName looks up one series of dev by index descent, reading only
// the nodes on the path. It returns (nil, nil) when the series is absent.
func (f *File) SeriesByName(dev DeviceID, measurement string) (*TimeseriesMetadata, error) {
	e, ok, err := f.deviceEntry(dev)
	if err != nil || !ok {
		return nil, err
	}
	n, err := f.measurementRoot(e)
	if err != nil {
		return nil, err
	}
	for depth := 1; ; depth++ {
		if depth > f.opts.MaxIndexDepth {
			return nil, corruptf(n.Offset, "index node", "measurement index deeper than %d levels", f.opts.MaxIndexDepth)
		}
		i := n.findMeasurement(measurement)
		if i < 0 {
			return nil, nil
		}
		if n.Type == LeafMeasurement {
			list, err := f.readSeriesRange(n.Entries[i], false)
			if err != nil {
				return nil, err
			}
			for j := range list {
				if list[j].Measurement == measurement {
					if err := f.seriesRole(dev, &list[j]); err != nil {
						return nil, err
					}
					if err := f.noteChunkDevices(dev, list[j:j+1]); err != nil {
						return nil, err
					}
					return &list[j], nil
				}
			}
			return nil, nil
		}
		child, err := f.readNode(n.Entries[i], false)
		if err != nil {
			return nil, err
		}
		if err := checkChild(n, child); err != nil {
			return nil, err
		}
		n = child
	}
}

// AlignedChunkSet is one time chunk of an aligned device with the value
// chunks that share it, keyed by measurement. A measurement without a
// chunk in this set is null for all its rows.
type AlignedChunkSet struct {
	Time   ChunkMetadata
	Values map[string]ChunkMetadata
}

// AlignedChunkSets pairs the chunks of an aligned device's series: each
// value chunk belongs to the closest time chunk before it in the file, as
// chunk groups write the time chunk first.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func AlignedChunkSets(series []TimeseriesMetadata) ([]AlignedChunkSet, error) {
	var tm *TimeseriesMetadata
	for i := range series {
		if series[i].IsTimeColumn() {
			if tm != nil {
				return nil, corruptf(series[i].Offset, "timeseries metadata", "device has two time columns")
			}
			tm = &series[i]
		}
	}
	if tm == nil {
		return nil, nil
	}
	sets := make([]AlignedChunkSet, len(tm.Chunks))
	for i, c := range tm.Chunks {
		if i > 0 && c.Offset <= tm.Chunks[i-1].Offset {
			return nil, corruptf(tm.Offset, "timeseries metadata", "time chunk offsets are not increasing")
		}
		sets[i] = AlignedChunkSet{Time: c, Values: map[string]ChunkMetadata{}}
	}
	for i := range series {
		s := &series[i]
		if !s.IsValueColumn() {
			continue
		}
		for _, c := range s.Chunks {
			j := sort.Search(len(sets), func(j int) bool { return sets[j].Time.Offset > c.Offset }) - 1
			if j < 0 {
				return nil, corruptf(s.Offset, "timeseries metadata", "value chunk of %q at %d precedes every time chunk", s.Measurement, c.Offset)
			}
			if _, dup := sets[j].Values[s.Measurement]; dup {
				return nil, corruptf(s.Offset, "timeseries metadata", "two value chunks of %q follow the time chunk at %d", s.Measurement, sets[j].Time.Offset)
			}
			sets[j].Values[s.Measurement] = c
		}
	}
	return sets, nil
}

// seriesRole gives t, a series of dev looked up alone, the value role when
// it has no role bits and dev's time column has none either
// (QuirkNoRoleBits). Only a series without role bits pays for the lookup
// of the time column.
func (f *File) seriesRole(dev DeviceID, t *TimeseriesMetadata) error {
	if t.Type&^markerLowBits != 0 || t.Measurement == "" {
		if t.plainRole {
			f.NoteQuirk(QuirkNoRoleBits, t.Offset, "timeseries metadata")
		}
		return nil
	}
	tm, err := f.SeriesByName(dev, "")
	if err != nil || tm == nil || !tm.plainRole {
		return err
	}
	pair := []TimeseriesMetadata{*tm, *t}
	f.noteSeriesRoles(pair)
	*t = pair[1]
	return nil
}
