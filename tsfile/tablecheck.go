package tsfile

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// tableCheck is the outcome of CheckTable for one table, computed once.
type tableCheck struct {
	once   sync.Once
	err    error
	passed atomic.Bool // the whole table was checked, with no error
}

// CheckTable checks that the index of a table-model table agrees with the
// table's schema, before a reader returns any row of it: every device (of
// devs, or every device of the table when devs is nil) has
// no more TAG values than the table has TAG columns, its series are
// aligned, and every value series is a FIELD column of the schema, of that
// column's data type. A name or category byte damaged in the schema or the
// index would otherwise turn a column into nulls, or move it, with no
// error. A disagreement is ErrCorrupt naming the offset of the series; the
// names themselves are checked by Series. Under ReadOptions.Lenient each
// disagreement is a warning instead.
//
// The check reads the names, types and statistics of the devices' series,
// not their chunk metadata: for 1,000 devices of ten series it costs a few
// percent of a full scan. Over the whole table it runs once per File and
// table, later calls returning the first outcome; over some devices (a
// selective read), each call checks those, unless the whole table has
// already passed. A table without a schema has
// nothing to check against.
func (f *File) CheckTable(table string, devs []DeviceID) error {
	if _, ok := f.SchemaOf(table); !ok { // v3 files have no table schemas
		return nil
	}
	if devs != nil {
		// Devices of a table that passed whole need no second look.
		if v, ok := f.tableChecks.Load(table); ok && v.(*tableCheck).passed.Load() {
			return nil
		}
		want := make(map[string]bool, len(devs))
		for _, d := range devs {
			want[deviceKey(d)] = true
		}
		return f.checkTable(table, func(d DeviceID) bool { return want[deviceKey(d)] })
	}
	v, _ := f.tableChecks.LoadOrStore(table, &tableCheck{})
	c := v.(*tableCheck)
	c.once.Do(func() {
		c.err = f.checkTable(table, nil)
		c.passed.Store(c.err == nil)
	})
	return c.err
}

// TableSeries calls fn with the series of every device of a table, in
// index order: Devices and then Series of each device, in one walk of the
// index (a lookup of each device would parse its index node again).
func (f *File) TableSeries(table string, fn func(dev DeviceID, series []TimeseriesMetadata) error) error {
	return f.walkTableSeries(table, false, nil, fn)
}

// walkTableSeries is TableSeries over the devices pick selects (every one
// when nil); skim leaves out the series' chunk metadata (seriesAt).
func (f *File) walkTableSeries(table string, skim bool, pick func(DeviceID) bool, fn func(DeviceID, []TimeseriesMetadata) error) error {
	if f.Version == VersionV3 {
		// A v3 device is looked up among every spelling of its path
		// (deviceEntry), not by the entry the walk finds.
		devs, err := f.Devices(table)
		if err != nil {
			return err
		}
		for _, dev := range devs {
			if pick != nil && !pick(dev) {
				continue
			}
			series, err := f.Series(dev)
			if err != nil {
				return err
			}
			if err := fn(dev, series); err != nil {
				return err
			}
		}
		return nil
	}
	return f.walkTable(table, func(e IndexEntry) error {
		if pick != nil && !pick(e.Device) {
			return nil
		}
		series, err := f.seriesAt(e.Device, e, skim)
		if err != nil {
			return err
		}
		return fn(e.Device, series)
	})
}

// checkTable is CheckTable over the devices of table that pick selects
// (every one when pick is nil).
func (f *File) checkTable(table string, pick func(DeviceID) bool) error {
	ts, _ := f.SchemaOf(table)
	fields := map[string]DataType{}
	var names []string
	tags := 0
	for _, c := range ts.Columns {
		switch c.Category {
		case Field:
			fields[c.Name] = c.DataType
			names = append(names, c.Name)
		case Tag:
			tags++
		}
	}
	return f.walkTableSeries(table, true, pick, func(dev DeviceID, series []TimeseriesMetadata) error {
		if dev.Len() > tags+1 && len(series) > 0 {
			err := corruptf(series[0].Offset, "timeseries metadata", "device %s has %d TAG values but table %q has %d TAG columns: the index and the table schema disagree", dev, dev.Len()-1, table, tags)
			if err = f.Tolerate(err); err != nil {
				return err
			}
		}
		if err := f.CheckDeviceInBloom(table, dev, series); err != nil {
			return err
		}
		for i := range series {
			s := &series[i]
			if s.IsTimeColumn() {
				continue
			}
			if !s.IsValueColumn() {
				err := corruptf(s.Offset, "timeseries metadata", "device %s of table %q has non-aligned series", dev, table)
				if err = f.Tolerate(err); err != nil {
					return err
				}
				continue
			}
			var err error
			dt, ok := fields[s.Measurement]
			switch {
			case !ok:
				err = corruptf(s.Offset, "timeseries metadata", "series %q of device %s is not a FIELD column of table %q (%s): the index and the table schema disagree; read with --lenient to get its values as an extra column", s.Measurement, dev, table, strings.Join(names, ", "))
			case dt != s.DataType:
				err = corruptf(s.Offset, "timeseries metadata", "series %q of device %s is %s, but its column is %s", s.Measurement, dev, s.DataType, dt)
			default:
				continue
			}
			if err = f.Tolerate(err); err != nil {
				return err
			}
		}
		return nil
	})
}

// CheckDeviceInBloom checks a device ID of the index against the second
// place the footer holds it: the Bloom filter, which holds the path of
// every series the writer wrote (apache/tsfile java/tsfile/src/main/java/
// org/apache/tsfile/write/writer/TsFileIOWriter.java adds each series of
// each device to it). A TAG value damaged in the device index (a byte of
// "south" changed) names a device whose series the filter almost surely
// lacks: each is absent with the filter's false-positive rate (5% by
// default) at most. The device is refused when none of its value series
// is in the filter; it costs a lookup or so a device, since the first
// series of an intact one is found. Without a filter nothing is checked.
// CheckTable runs it on every device it checks; a lenient reader, which
// walks the series itself, calls it for the warning, and a tree-model
// reader on each device it starts (table "").
func (f *File) CheckDeviceInBloom(table string, dev DeviceID, series []TimeseriesMetadata) error {
	if f.Metadata.Bloom == nil {
		return nil
	}
	first := -1
	for i := range series {
		s := &series[i]
		if s.IsTimeColumn() {
			continue
		}
		if f.MayContainSeries(dev, s.Measurement) {
			return nil
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	of := ""
	if table != "" {
		of = fmt.Sprintf(" of table %q", table)
	}
	err := corruptf(series[first].Offset, "timeseries metadata", "device %s%s: none of its series is in the file's Bloom filter, which holds every series the writer wrote: the device's ID in the index (a TAG value, a path segment) or the Bloom filter is damaged; read with --lenient to read the device as the index names it", dev, of)
	return f.Tolerate(err)
}
