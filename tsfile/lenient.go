package tsfile

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Warning is a problem a lenient read (ReadOptions.Lenient) worked around
// instead of failing: a known writer quirk, or a summary that disagrees
// with what it summarises.
type Warning struct {
	Offset    int64  // absolute offset of the structure
	Structure string // the structure, such as "TsFileMetadata"
	Msg       string
}

func (w Warning) String() string {
	return fmt.Sprintf("%s at offset %d: %s", w.Structure, w.Offset, w.Msg)
}

// Footer quirks a lenient read retries TsFileMetadata with, each seen in
// files of some writer.
const (
	// quirkBloomInt32: an absent Bloom filter written as an int32 zero
	// (four zero bytes) instead of the UVarInt byte_length 0.
	quirkBloomInt32 uint8 = 1 << iota
	// quirkPropertyCountUnsigned: property_count written as a UVarInt
	// instead of the specified (zigzag) VarInt.
	quirkPropertyCountUnsigned
)

var quirkNames = map[uint8]string{
	quirkBloomInt32:            "an absent Bloom filter written as four zero bytes",
	quirkPropertyCountUnsigned: "property_count written as an unsigned VarInt",
}

// warnings collects a File's warnings; File methods may run concurrently.
type warnings struct {
	mu   sync.Mutex
	list []Warning
	seen map[Warning]bool
}

func (w *warnings) add(x Warning) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[Warning]bool{}
	}
	if w.seen[x] {
		return
	}
	w.seen[x] = true
	w.list = append(w.list, x)
}

// Warnings returns what a lenient read has worked around so far, in the
// order met; reading more of the file can add more.
func (f *File) Warnings() []Warning {
	f.warn.mu.Lock()
	defer f.warn.mu.Unlock()
	return append([]Warning(nil), f.warn.list...)
}

// Tolerate returns nil, recording err as a Warning, when the file is read
// with ReadOptions.Lenient and err is a FormatError about corruption;
// otherwise it returns err. Readers built on File (arrowconv) call it for
// summaries that disagree with the data when they can go on decoding.
func (f *File) Tolerate(err error) error {
	var fe *FormatError
	if !f.opts.Lenient || !errors.As(err, &fe) || fe.Kind != ErrCorrupt {
		return err
	}
	f.warn.add(Warning{Offset: fe.Offset, Structure: fe.Structure, Msg: fe.Msg})
	return nil
}

// parseFooter decodes TsFileMetadata from b (at f.metaPos), which it must
// fill exactly. A lenient read that fails strictly retries with each
// combination of known writer quirks and keeps the first that fits, with a
// warning naming the quirks.
func (f *File) parseFooter(b []byte) (*FileMetadata, error) {
	m, err := f.parseFooterQuirks(b, 0)
	if err == nil || !f.opts.Lenient || f.Version == VersionV3 {
		return m, err
	}
	all := quirkBloomInt32 | quirkPropertyCountUnsigned
	for q := uint8(1); q <= all; q++ {
		if q&^all != 0 {
			continue
		}
		if m2, err2 := f.parseFooterQuirks(b, q); err2 == nil {
			for bit := uint8(1); bit <= q; bit <<= 1 {
				if q&bit != 0 {
					f.warn.add(Warning{Offset: f.metaPos, Structure: "TsFileMetadata", Msg: "read with a writer quirk: " + quirkNames[bit]})
				}
			}
			return m2, nil
		}
	}
	return m, err
}

func (f *File) parseFooterQuirks(b []byte, quirks uint8) (*FileMetadata, error) {
	opts := f.opts
	opts.quirks = quirks
	d := f.newBuf(b, f.metaPos, "TsFileMetadata")
	var m *FileMetadata
	if d.v3 {
		m = d.fileMetadataV3(&opts)
	} else {
		m = d.fileMetadata(&opts)
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.remaining() != 0 {
		return nil, corruptf(d.off(), "TsFileMetadata", "%d bytes left over after the metadata", d.remaining())
	}
	return m, nil
}

// checkSeriesStats requires a multi-chunk series' statistics to add up:
// its count is the sum of its chunks' counts and its time range covers
// theirs. Pushdown trusts these summaries, so a disagreement is
// corruption (a warning under Lenient).
func (f *File) checkSeriesStats(t *TimeseriesMetadata) error {
	if len(t.Chunks) < 2 {
		return nil
	}
	var sum int64
	for i := range t.Chunks {
		c := &t.Chunks[i].Statistics
		sum += c.Count
		if c.Count > 0 && t.Statistics.Count > 0 && (c.StartTime < t.Statistics.StartTime || c.EndTime > t.Statistics.EndTime) {
			return f.Tolerate(corruptf(t.Offset, "timeseries metadata", "series %q: chunk %d covers [%d, %d], outside the series' [%d, %d]",
				t.Measurement, i, c.StartTime, c.EndTime, t.Statistics.StartTime, t.Statistics.EndTime))
		}
	}
	if sum != t.Statistics.Count {
		return f.Tolerate(corruptf(t.Offset, "timeseries metadata", "series %q: its chunks count %d points, its statistics %d", t.Measurement, sum, t.Statistics.Count))
	}
	return nil
}

// validName reports whether a table, column or measurement name is what a
// writer can store: valid UTF-8 without NUL. IoTDB refuses both in names,
// so either is a damaged byte, which would otherwise rename a column (or
// part it from its series) without an error.
func validName(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// checkSchemaNames refuses (or, under Lenient, warns of) table schemas
// whose table or column names are damaged.
func (f *File) checkSchemaNames(m *FileMetadata) error {
	names := make([]string, 0, len(m.TableSchemas))
	for name := range m.TableSchemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		bad := ""
		if !validName(name) {
			bad = name
		}
		for _, c := range m.TableSchemas[name].Columns {
			if bad == "" && !validName(c.Name) {
				bad = c.Name
			}
		}
		if bad == "" {
			continue
		}
		err := corruptf(f.metaPos, "table schema", "table %q: name %q is not valid UTF-8 or holds a NUL: a damaged name; read with --lenient to go on", name, bad)
		if err = f.Tolerate(err); err != nil {
			return err
		}
	}
	return nil
}

// checkSchemaTables refuses (or, under Lenient, warns of) a table name
// damaged in one of the two places a v4 footer stores it: the keys of the
// table schemas and of the table index roots (under which every device ID
// starts with it again). A damaged schema key leaves its table's devices
// under a root without a schema, which reads them as tree-model devices
// with no error. A schema may name a table without rows (no root), and a
// root without a schema is a tree-model one; a file holding both, named
// alike (the same length), is the damage, and no writer in the upstream
// corpus writes such a pair.
func (f *File) checkSchemaTables(m *FileMetadata) error {
	if len(m.TableSchemas) == 0 {
		return nil
	}
	var orphans []string // roots without a schema
	for _, root := range m.TableNames {
		if _, ok := m.TableSchemas[root]; !ok {
			orphans = append(orphans, root)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	names := make([]string, 0, len(m.TableSchemas))
	for name := range m.TableSchemas {
		if _, ok := m.TableIndexes[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		for _, root := range orphans {
			if len(root) != len(name) {
				continue
			}
			err := corruptf(f.metaPos, "table schema", "the schema of table %q has no index, and the index of table %q no schema: one of the two names is damaged (its devices would read as tree-model ones); read with --lenient to go on", name, root)
			if err = f.Tolerate(err); err != nil {
				return err
			}
		}
	}
	return nil
}

// SkipLostSeriesChunk is SkipLostChunk for a chunk of a non-aligned series
// (and for tools that only list chunks): under ReadOptions.Lenient it
// reports whether err is the C++ writer's lost page (ErrLostFullPage), and
// then notes the quirk and warns that the chunk's points are left out, as
// the error of a strict read promises ("read with --lenient to skip the
// chunk"). The points are not in the file; the index still counts them.
func (f *File) SkipLostSeriesChunk(err error, what string) bool {
	var fe *FormatError
	if !f.opts.Lenient || !errors.Is(err, ErrLostFullPage) || !errors.As(err, &fe) {
		return false
	}
	f.NoteQuirk(QuirkLostFullPage, fe.Offset, fe.Structure)
	f.warn.add(Warning{Offset: fe.Offset, Structure: fe.Structure, Msg: what})
	return true
}

// LostSeriesChunkWarning is what SkipLostSeriesChunk warns for a chunk of
// a non-aligned series whose points a read leaves out.
const LostSeriesChunkWarning = "skipped a chunk whose page its writer lost: its points are left out"
