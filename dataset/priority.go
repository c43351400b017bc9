package dataset

import "cmp"

// Priority decides which of two copies of a point (same device, series and
// timestamp) a query returns: the one with the higher Priority. IoTDB
// compares, in this order:
//
//  1. the space: an unsequence copy beats a sequence one;
//  2. the version in the file name: the higher wins;
//  3. the time in the file name: the higher wins;
//  4. the offset in the file (of the chunk header the copy is read from):
//     the larger wins, so within one file the later write wins.
//
// This is IoTDB 2.x and late 1.3 (MergeReaderPriority in
// iotdb-core/datanode/.../dataregion/read/reader/common/MergeReaderPriority.java,
// which the series scan builds from TsFileID's time and version and the
// chunk's offset). Earlier 1.x servers compared only version and offset
// (PriorityMergeReader.MergeReaderPriority), which orders the same files
// the same way as long as their versions differ, as one region's versions
// always do.
//
// A file of Unknown space (a loose file) ranks as a sequence file, and an
// unnamed one has version and time -1, below every named file: choices of
// this package, since IoTDB never reads such files together with others
// (its TsFileID gives -1 where it cannot parse a name, too).
type Priority struct {
	Unsequence    bool
	Version, Time int64
	Offset        int64
}

// Priority returns the priority of a point of f read from the chunk at
// offset.
func (f *File) Priority(offset int64) Priority {
	p := Priority{Unsequence: f.Space == Unsequence, Version: -1, Time: -1, Offset: offset}
	if f.Named {
		p.Version, p.Time = f.Name.Version, f.Name.Time
	}
	return p
}

// Compare returns +1 when p wins over q, -1 when q wins, and 0 when they
// are the same copy.
func (p Priority) Compare(q Priority) int {
	if p.Unsequence != q.Unsequence {
		if p.Unsequence {
			return 1
		}
		return -1
	}
	if c := cmp.Compare(p.Version, q.Version); c != 0 {
		return c
	}
	if c := cmp.Compare(p.Time, q.Time); c != 0 {
		return c
	}
	return cmp.Compare(p.Offset, q.Offset)
}

// ComparePriority compares the copy of a point in file a at chunk offset
// aOff with the one in b at bOff; see Priority.Compare.
func ComparePriority(a *File, aOff int64, b *File, bOff int64) int {
	return a.Priority(aOff).Compare(b.Priority(bOff))
}
