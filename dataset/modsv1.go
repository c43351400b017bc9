package dataset

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The mods v1 format (IoTDB 1.x, "X.tsfile.mods") is text, one
// modification a line:
//
//	DELETION,<path>,<fileOffset>,<start>,<end>
//	DELETION,<path>,<version>,<end>          (the older point form)
//
// The path may itself hold commas, so the numbers are taken from the
// right and everything between the type and them is the path.
//
// IoTDB: iotdb-core/datanode/.../modification/v1/io/LocalTextModificationAccessor.java
// (decodeModification, decodeDeletion, decodePointDeletion) and
// v1/Deletion.java for the time range the two forms give.

const v1Deletion = "DELETION"

// ParseModsV1 parses a whole mods v1 file as IoTDB 1.x reads it.
//
// Lines end at "\n", "\r" or "\r\n" (BufferedReader.readLine) and are cut
// at every comma as Java's String.split does, trailing empty fields
// dropped. The first line IoTDB cannot decode (a blank line, another
// modification type, too few fields, a bad number or path) ends the
// file: IoTDB logs it, closes the reader and keeps the deletions before
// it, so that line and every line after it are skipped with a warning.
// A last line without its line end is read like the others, as IoTDB
// reads it, with a warning, since it may be a write still in progress.
// ModsScanner reads the same deletions one at a time.
func ParseModsV1(data []byte, opts *ModsOptions) (*Mods, error) {
	return parseMods(data, ModsV1, opts)
}

// nextV1 reads the next line's deletion into s.d.
func (s *ModsScanner) nextV1() bool {
	line, terminated, ok, err := s.line()
	if err != nil || !ok {
		s.err = err
		return false
	}
	s.lineNo++
	d, err := decodeV1Line(string(line), s.r.parsePattern)
	if err != nil {
		skipped := 0
		for {
			_, _, ok, rerr := s.line()
			if rerr != nil {
				s.err = rerr
				return false
			}
			if !ok {
				break
			}
			skipped++
		}
		s.warnings = append(s.warnings, fmt.Sprintf(
			"mods line %d: %v: it and the %d lines after it are skipped, as IoTDB stops reading there",
			s.lineNo, err, skipped))
		return false
	}
	if !terminated {
		s.warnings = append(s.warnings, fmt.Sprintf(
			"mods line %d has no line end: it may be a deletion still being written", s.lineNo))
	}
	s.d = d
	return true
}

// line returns the next line as Java's BufferedReader.readLine cuts it,
// valid until the next call, and whether a line end followed it; ok is
// false at the end of the file. The window grows to the longest line.
func (s *ModsScanner) line() (line []byte, terminated, ok bool, err error) {
	r := &s.r
	for {
		b := r.buf[r.pos:]
		i := bytes.IndexAny(b, "\r\n")
		// A "\r" at the window's end may be the first half of "\r\n".
		if i >= 0 && (b[i] == '\n' || i+1 < len(b) || r.rest == 0) {
			n := i + 1
			if b[i] == '\r' && n < len(b) && b[n] == '\n' {
				n++
			}
			r.pos += n
			return b[:i], true, true, nil
		}
		if r.rest == 0 {
			r.pos += len(b)
			return b, false, len(b) > 0, nil
		}
		if err := r.refill(r.pos); err != nil {
			return nil, false, false, err
		}
		r.pos = 0
	}
}

// javaSplit is Java's String.split on a one-character, non-regex
// separator: every separator cuts, and trailing empty fields are removed.
func javaSplit(s string, sep string) []string {
	f := strings.Split(s, sep)
	for len(f) > 0 && f[len(f)-1] == "" {
		f = f[:len(f)-1]
	}
	return f
}

// parseJavaLong parses a decimal long as Long.parseLong does for ASCII
// input: an optional sign, then digits, nothing else. (Java also accepts
// other Unicode digits; a writer never writes them.)
func parseJavaLong(s string) (int64, error) {
	if s == "" || s == "+" || s == "-" {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && !(i == 0 && (c == '+' || c == '-')) {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// decodeV1Line decodes one line into a deletion, or says why IoTDB would
// not.
func decodeV1Line(line string, parsePattern func(string) (Pattern, error)) (Deletion, error) {
	fields := javaSplit(line, ",")
	if len(fields) == 0 || fields[0] != v1Deletion {
		// Java would index an empty array here (a line of commas only) and
		// fail; it is no more a modification than another type is.
		typ := ""
		if len(fields) > 0 {
			typ = fields[0]
		}
		if len(typ) > 40 {
			typ = typ[:40] + "..."
		}
		return Deletion{}, fmt.Errorf("unknown modification type %q", typ)
	}
	n := len(fields)
	if n < 4 {
		return Deletion{}, fmt.Errorf("a deletion needs at least 4 fields, the line has %d", n)
	}
	d := Deletion{Kind: TreeDeletion, Version: ModsV1}
	var pathFields []string
	if off, err := parseJavaLong(fields[n-3]); err == nil {
		end, err1 := parseJavaLong(fields[n-1])
		start, err2 := parseJavaLong(fields[n-2])
		if err1 != nil || err2 != nil {
			return Deletion{}, fmt.Errorf("invalid timestamp %q,%q", fields[n-2], fields[n-1])
		}
		d.FileOffset, d.Start, d.End = off, start, end
		// v1/Deletion(path, fileOffset, start, end) opens the extreme bounds.
		d.OpenStart = start == math.MinInt64
		d.OpenEnd = end == math.MaxInt64
		pathFields = fields[1 : n-3]
	} else {
		// The field before the times is no number: the point form.
		end, err1 := parseJavaLong(fields[n-1])
		version, err2 := parseJavaLong(fields[n-2])
		if err1 != nil || err2 != nil {
			return Deletion{}, fmt.Errorf("invalid timestamp %q,%q", fields[n-2], fields[n-1])
		}
		// v1/Deletion(path, fileOffset, end): the range (MinInt64, end],
		// with the version where the offset goes.
		d.Legacy = true
		d.FileOffset, d.Start, d.End = version, math.MinInt64, end
		d.OpenStart = true
		d.OpenEnd = end == math.MaxInt64
		pathFields = fields[1 : n-2]
	}
	path := strings.Join(pathFields, ",")
	p, err := parsePattern(path)
	if err != nil {
		return Deletion{}, fmt.Errorf("invalid series path %q", path)
	}
	d.Pattern = p
	return d, nil
}

// AppendModsV1 appends the deletions to dst as mods v1 lines, the text
// IoTDB 1.x's LocalTextModificationAccessor writes for them, each ended
// by "\n" (System.lineSeparator on the systems IoTDB runs on). A Legacy
// deletion is written in the older point form with its FileOffset as the
// version. Only tree deletions exist in v1.
func AppendModsV1(dst []byte, deletions ...Deletion) ([]byte, error) {
	for i := range deletions {
		d := &deletions[i]
		if d.Kind != TreeDeletion || d.Pattern.IsZero() {
			return dst, fmt.Errorf("dataset: mods deletion %d: v1 holds tree deletions with a pattern only", i)
		}
		path := d.Pattern.String()
		if strings.ContainsAny(path, "\r\n") {
			return dst, fmt.Errorf("dataset: mods deletion %d: path %q holds a line end", i, path)
		}
		dst = append(dst, v1Deletion...)
		dst = append(dst, ',')
		dst = append(dst, path...)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, d.FileOffset, 10)
		dst = append(dst, ',')
		if !d.Legacy {
			dst = strconv.AppendInt(dst, d.Start, 10)
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, d.End, 10)
		dst = append(dst, '\n')
	}
	return dst, nil
}
