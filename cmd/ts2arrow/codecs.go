package main

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/tsfile"
)

// tsCodecs are the encodings and compressions of --encoding and
// --compression for tsfile output, before the input's columns are known.
type tsCodecs struct {
	def   *tsfile.Compression             // --compression CODEC: every column
	comps []codecItem[tsfile.Compression] // --compression COLUMN=CODEC
	encs  []codecItem[tsfile.Encoding]    // --encoding COLUMN=ENCODING
}

type codecItem[T any] struct {
	col string
	v   T
}

// codecName folds a name given on the command line for comparison with a
// TsFile name: case and the separators of TS_2DIFF do not matter.
func codecName(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToUpper(s))
}

// parseTsEncoding parses an encoding name as TsFile spells it (TS_2DIFF,
// ts2diff and ts-2diff alike).
func parseTsEncoding(s string) (tsfile.Encoding, bool) {
	for e := tsfile.Encoding(0); e <= encoding.Laminar; e++ {
		if e != encoding.Freq && codecName(e.String()) == codecName(s) {
			return e, true
		}
	}
	return 0, false
}

// tsfileCompression parses a page compression name: those of
// fromarrow.WritableCompressions, and none for uncompressed as Parquet
// spells it.
func tsfileCompression(name string) (tsfile.Compression, error) {
	if strings.EqualFold(name, "none") {
		return encoding.Uncompressed, nil
	}
	for _, c := range fromarrow.WritableCompressions() {
		if strings.EqualFold(c.String(), name) {
			return c, nil
		}
	}
	if strings.EqualFold(name, encoding.LZO.String()) {
		return 0, usagef("--compression lzo: TsFile LZO pages can be read but not written; choose %s", compressionList())
	}
	return 0, usagef("unknown --compression %q for tsfile (want %s)", name, compressionList())
}

func compressionList() string {
	var s []string
	for _, c := range fromarrow.WritableCompressions() {
		s = append(s, strings.ToLower(c.String()))
	}
	return strings.Join(s, ", ")
}

// parseTsCodecs parses --encoding (COLUMN=ENCODING,...) and --compression
// (CODEC for every column, COLUMN=CODEC for one, comma-separated) for
// tsfile output.
func parseTsCodecs(encs, comps string) (*tsCodecs, error) {
	c := &tsCodecs{}
	seen := map[string]bool{}
	for _, item := range columnsFlag(encs) {
		col, name, ok := strings.Cut(item, "=")
		if !ok || col == "" {
			return nil, usagef("--encoding %q: want COLUMN=ENCODING, such as temperature=gorilla", item)
		}
		e, ok := parseTsEncoding(name)
		if !ok {
			return nil, usagef("--encoding %s: unknown encoding %q (want plain, rle, ts_2diff, gorilla, dictionary, zigzag, chimp, sprintz, rlbe, ...)", item, name)
		}
		if seen[col] {
			return nil, usagef("--encoding names column %q twice", col)
		}
		seen[col] = true
		c.encs = append(c.encs, codecItem[tsfile.Encoding]{col, e})
	}
	seen = map[string]bool{}
	for _, item := range columnsFlag(comps) {
		col, name, ok := strings.Cut(item, "=")
		if !ok {
			name = item
		}
		v, err := tsfileCompression(name)
		if err != nil {
			return nil, err
		}
		switch {
		case !ok && c.def != nil:
			return nil, usagef("--compression names two compressions for every column")
		case !ok:
			c.def = &v
		case col == "":
			return nil, usagef("--compression %q: want CODEC or COLUMN=CODEC", item)
		case seen[col]:
			return nil, usagef("--compression names column %q twice", col)
		default:
			seen[col] = true
			c.comps = append(c.comps, codecItem[tsfile.Compression]{col, v})
		}
	}
	return c, nil
}

// apply sets the options of the TsFile writer for an input of schema sc.
// A column is named as the input names it; the time column also as
// "time". A name the input lacks is a usage error listing the columns.
func (c *tsCodecs) apply(o *fromarrow.Options, sc *arrow.Schema) error {
	if c == nil {
		return nil
	}
	if c.def != nil {
		o.Compression = fromarrow.CompressionOf(*c.def)
	}
	timeName := fromarrow.TimeColumnOf(sc, o)
	isTime := func(col string) bool { return col == timeName || strings.EqualFold(col, arrowconv.TimeColumn) }
	tags := o.Tags
	if tags == nil {
		tags = markedTags(sc)
	}
	check := func(flag, col string) error {
		if slices.Contains(tags, col) {
			return usagef("%s names TAG column %q, whose values a TsFile keeps in the device IDs, not in encoded pages", flag, col)
		}
		for _, f := range sc.Fields() {
			if c, _ := f.Metadata.GetValue(arrowconv.MetaCategory); f.Name == col && c == tsfile.Attribute.String() && o.Attributes == nil {
				return usagef("%s names ATTRIBUTE column %q, whose values a TsFile does not store", flag, col)
			}
		}
		if isTime(col) || sc.FieldIndices(col) != nil {
			return nil
		}
		var cols []string
		for _, f := range sc.Fields() {
			cols = append(cols, f.Name)
		}
		return usagef("%s names column %q, which the input does not have (its columns: %s)", flag, col, strings.Join(cols, ", "))
	}
	for _, it := range c.encs {
		if err := check("--encoding", it.col); err != nil {
			return err
		}
		if isTime(it.col) {
			if it.v != encoding.TS2Diff {
				return usagef("--encoding %s=%s: the time column is written in TS_2DIFF only, since upstream readers decode time columns in TS_2DIFF whatever the file says", it.col, it.v)
			}
			o.TimeEncoding = tsfile.TimeEncodingOf(it.v)
			continue
		}
		if o.Encodings == nil {
			o.Encodings = map[string]tsfile.Encoding{}
		}
		o.Encodings[it.col] = it.v
	}
	for _, it := range c.comps {
		if err := check("--compression", it.col); err != nil {
			return err
		}
		if isTime(it.col) {
			o.TimeCompression = fromarrow.CompressionOf(it.v)
			continue
		}
		if o.Compressions == nil {
			o.Compressions = map[string]tsfile.Compression{}
		}
		o.Compressions[it.col] = it.v
	}
	return nil
}

// encodingHint is the flag advice for a fromarrow.OptionError about
// encodings and compressions; remedy is the error's Remedy, which says what
// to set the option to.
func encodingHint(option, remedy string) (string, bool) {
	switch option {
	case "Encodings":
		return "set --encoding " + remedy, true
	case "Compressions", "Compression":
		return "set --compression " + remedy, true
	case "TimeCompression":
		return "set --compression for the time column " + remedy, true
	}
	return "", false
}
