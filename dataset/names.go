package dataset

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrName is wrapped by the error of a file name that is not an IoTDB data
// file name.
var ErrName = errors.New("dataset: not an IoTDB TsFile name")

// TsFileSuffix is the suffix of an IoTDB data file.
const TsFileSuffix = ".tsfile"

// Name is the parsed base name of an IoTDB data file,
// {time}-{version}-{innerCompactionCount}-{crossCompactionCount}.tsfile.
// Time is the creation time the server put into the name (not the time of
// any point in the file) and Version the per-partition file counter; both
// order copies of a point (see Priority).
type Name struct {
	Time    int64
	Version int64
	Inner   int32 // inner-space compactions the data went through
	Cross   int32 // cross-space compactions the data went through
}

// String returns the base name IoTDB gives a file with these fields.
func (n Name) String() string {
	return fmt.Sprintf("%d-%d-%d-%d%s", n.Time, n.Version, n.Inner, n.Cross, TsFileSuffix)
}

// ParseName parses the base name of an IoTDB data file.
//
// IoTDB reads the name in two places that disagree outside the names it
// writes itself: TsFileNameGenerator.getTsFileName searches the name with
// the unanchored pattern `(\d+)-(\d+)-(\d+)-(\d+).tsfile$`, so that
// "1-2-3-4-5.tsfile" reads as 2-3-4-5 and "-5-1-0-0.tsfile" as time 5,
// while TsFileID (whose time and version order the copies of a point in a
// query) splits on "-" and takes -1 or 0 for anything but four fields.
// The generator writes only four non-negative decimal numbers, the last two
// Java ints, so ParseName accepts exactly those (leading zeros included, as
// Long.parseLong does) and refuses the rest, rather than guess which of the
// two readings a query would use.
//
// IoTDB: iotdb-core/datanode/.../tsfile/generator/TsFileNameGenerator.java
// (generateNewTsFileName, TsFileName) and .../tsfile/TsFileID.java.
func ParseName(base string) (Name, error) {
	stem, ok := strings.CutSuffix(base, TsFileSuffix)
	if !ok {
		return Name{}, fmt.Errorf("%w: %q does not end in %s", ErrName, base, TsFileSuffix)
	}
	var fields [4]string
	rest := stem
	for i := range fields {
		if i == len(fields)-1 {
			fields[i] = rest
			break
		}
		f, after, found := strings.Cut(rest, "-")
		if !found {
			return Name{}, fmt.Errorf("%w: %q has %d of the 4 fields time-version-inner-cross", ErrName, base, i+1)
		}
		fields[i], rest = f, after
	}
	var v [4]int64
	for i, f := range fields {
		bits := 64
		if i >= 2 {
			bits = 32 // TsFileName reads the compaction counts with Integer.parseInt
		}
		n, err := parseDecimal(f, bits)
		if err != nil {
			return Name{}, fmt.Errorf("%w: %q field %d (%s): %v", ErrName, base, i+1, nameFields[i], err)
		}
		v[i] = n
	}
	return Name{Time: v[0], Version: v[1], Inner: int32(v[2]), Cross: int32(v[3])}, nil
}

var nameFields = [4]string{"time", "version", "inner compaction count", "cross compaction count"}

// parseDecimal parses a non-empty run of ASCII digits that fits a signed
// integer of the given size. Signs, blanks and other digits are refused:
// the generator never writes them (see ParseName).
func parseDecimal(s string, bits int) (int64, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%q is not a decimal number", s)
		}
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%q does not fit a %d-bit integer", s, bits)
	}
	return n, nil
}
