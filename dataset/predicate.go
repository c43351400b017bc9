package dataset

import (
	"fmt"

	"github.com/tsarrow/tsarrow/tsfile"
)

// PredicateKind is the type of a TagPredicate, numbered as IoTDB
// serializes it (the ordinal of TagPredicate.TagPredicateType).
type PredicateKind uint8

// The kinds of TagPredicate.
const (
	// PredNOP matches every device of the table.
	PredNOP PredicateKind = iota
	// PredFullExactMatch matches the one device equal to Device.
	PredFullExactMatch
	// PredSegmentExactMatch matches the devices whose segment Segment
	// equals Value (or is null, when ValueNull is set).
	PredSegmentExactMatch
	// PredAnd matches the devices every predicate of And matches.
	PredAnd
	// PredDeviceIn matches the devices equal to one of Devices.
	PredDeviceIn
	// PredSegmentNotNull matches the devices whose segment Segment is not
	// null.
	PredSegmentNotNull

	numPredicateKinds
)

func (k PredicateKind) String() string {
	switch k {
	case PredNOP:
		return "NOP"
	case PredFullExactMatch:
		return "FULL_EXACT_MATCH"
	case PredSegmentExactMatch:
		return "SEGMENT_EXACT_MATCH"
	case PredAnd:
		return "AND"
	case PredDeviceIn:
		return "DEVICE_IN"
	case PredSegmentNotNull:
		return "SEGMENT_NOT_NULL"
	}
	return fmt.Sprintf("PredicateKind(%d)", uint8(k))
}

// TagPredicate selects the devices of a table a table-model deletion
// removes rows from, by their DeviceID. Segment indexes count the table
// name: segment 0 is the table, segment i+1 the i-th TAG column (IoTDB's
// analyzer adds one to the tag ordinal for this reason).
//
// IoTDB: iotdb-core/datanode/.../dataregion/modification/TagPredicate.java.
type TagPredicate struct {
	Kind PredicateKind
	// Device is PredFullExactMatch's device, table name first.
	Device tsfile.DeviceID
	// Devices are PredDeviceIn's devices, in the order of the file. IoTDB
	// holds them in a set; order and repeats do not change what matches.
	Devices []tsfile.DeviceID
	// Segment is the index PredSegmentExactMatch and PredSegmentNotNull test.
	Segment int
	// Value is the value PredSegmentExactMatch compares the segment with;
	// ValueNull makes it match a null segment instead (WHERE tag IS NULL).
	Value     string
	ValueNull bool
	// And are PredAnd's operands; an empty And matches every device.
	And []TagPredicate
}

// Match reports whether the predicate selects the device. The caller
// checks the table name (Deletion.AffectsDevice does).
//
// A segment index past the device's segments reads as a null segment:
// devices drop their trailing null tags, so that is what such a segment
// holds. (IoTDB's StringArrayDeviceID.segment indexes its array and would
// throw there instead, failing the query.)
func (p *TagPredicate) Match(dev tsfile.DeviceID) bool {
	switch p.Kind {
	case PredNOP:
		return true
	case PredFullExactMatch:
		return p.Device.Equal(dev)
	case PredSegmentExactMatch:
		v, ok := dev.Segment(p.Segment)
		if p.ValueNull {
			return !ok
		}
		return ok && v == p.Value
	case PredAnd:
		for i := range p.And {
			if !p.And[i].Match(dev) {
				return false
			}
		}
		return true
	case PredDeviceIn:
		for _, d := range p.Devices {
			if d.Equal(dev) {
				return true
			}
		}
		return false
	case PredSegmentNotNull:
		_, ok := dev.Segment(p.Segment)
		return ok
	}
	return false
}

// String describes the predicate for messages.
func (p *TagPredicate) String() string {
	switch p.Kind {
	case PredFullExactMatch:
		return fmt.Sprintf("FULL_EXACT_MATCH(%s)", p.Device)
	case PredSegmentExactMatch:
		if p.ValueNull {
			return fmt.Sprintf("SEGMENT_EXACT_MATCH(%d IS NULL)", p.Segment)
		}
		return fmt.Sprintf("SEGMENT_EXACT_MATCH(%d=%q)", p.Segment, p.Value)
	case PredSegmentNotNull:
		return fmt.Sprintf("SEGMENT_NOT_NULL(%d)", p.Segment)
	case PredDeviceIn:
		return fmt.Sprintf("DEVICE_IN(%d devices)", len(p.Devices))
	case PredAnd:
		s := "AND("
		for i := range p.And {
			if i > 0 {
				s += ", "
			}
			s += p.And[i].String()
		}
		return s + ")"
	}
	return p.Kind.String()
}
