package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/tsarrow/tsarrow/tsfile"
)

const inspectHelp = `Usage: ts2arrow inspect FILE [--json] [--lenient]

Prints the format version, encryption, tables and their schemas, devices,
and for every series its data type, encoding, compression, chunk and page
counts and Statistics. --lenient reads files with known writer quirks and
lists what it worked around as warnings.

Examples:
  ts2arrow inspect testdata/sample.tsfile
  ts2arrow inspect --json testdata/sample.tsfile | jq .tables[0].devices

Options:
`

// The JSON form of inspect. Field names are part of the CLI's interface.
type inspectFile struct {
	File       string            `json:"file"`
	Size       int64             `json:"size"`
	Version    int               `json:"version"`
	Encryption string            `json:"encryption"`
	Properties map[string]string `json:"properties"`
	Chunks     int               `json:"chunks"`
	Pages      int               `json:"pages"`
	Tables     []inspectTable    `json:"tables"`
	// Warnings are what --lenient worked around.
	Warnings []string `json:"warnings,omitempty"`
}

type inspectTable struct {
	Name    string          `json:"name"`
	Model   string          `json:"model"` // "table" or "tree"
	Columns []inspectColumn `json:"columns,omitempty"`
	Devices []inspectDevice `json:"devices"`
}

type inspectColumn struct {
	Name        string `json:"name"`
	Category    string `json:"category"`
	DataType    string `json:"data_type"`
	Encoding    string `json:"encoding"`
	Compression string `json:"compression"`
}

type inspectDevice struct {
	Device   string          `json:"device"`
	Segments []*string       `json:"segments"`
	Aligned  bool            `json:"aligned"`
	Rows     int64           `json:"rows"`
	Series   []inspectSeries `json:"series"`
}

type inspectSeries struct {
	Measurement string       `json:"measurement"`
	DataType    string       `json:"data_type"`
	Encoding    string       `json:"encoding"`
	Compression string       `json:"compression"`
	Chunks      int          `json:"chunks"`
	Pages       int          `json:"pages"`
	EmptyPages  int          `json:"empty_pages"`
	Values      int64        `json:"values"`
	NullCount   *int64       `json:"null_count,omitempty"`
	Statistics  inspectStats `json:"statistics"`
}

type inspectStats struct {
	Count     int64  `json:"count"`
	StartTime *int64 `json:"start_time,omitempty"`
	EndTime   *int64 `json:"end_time,omitempty"`
	Min       any    `json:"min,omitempty"`
	Max       any    `json:"max,omitempty"`
	First     any    `json:"first,omitempty"`
	Last      any    `json:"last,omitempty"`
	Sum       any    `json:"sum,omitempty"`
	TrueCount *int64 `json:"true_count,omitempty"`
}

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("inspect", inspectHelp, stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	lenient := fs.Bool("lenient", false, "read files with known writer quirks, reporting warnings")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("inspect takes one FILE (got %d arguments)", len(pos))
	}
	info, err := inspect(pos[0], &tsfile.ReadOptions{Lenient: *lenient})
	if err != nil {
		return &fileError{pos[0], err}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	printInspect(stdout, info)
	return nil
}

func inspect(path string, ropts *tsfile.ReadOptions) (*inspectFile, error) {
	f, err := tsfile.OpenFile(path, ropts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info := &inspectFile{File: path, Size: f.Size(), Version: int(f.Version), Properties: map[string]string{}}
	for _, p := range f.Metadata.Properties {
		if p.Null {
			continue
		}
		if utf8.Valid(p.Value) {
			info.Properties[p.Key] = string(p.Value)
		} else {
			info.Properties[p.Key] = "0x" + hex.EncodeToString(p.Value)
		}
	}
	info.Encryption = "none"
	if lvl, ok := f.Metadata.Property("encryptLevel"); ok && string(lvl) != "0" {
		typ, _ := f.Metadata.Property("encryptType")
		info.Encryption = fmt.Sprintf("level %s (%s)", lvl, typ)
	}
	// Never show key material.
	delete(info.Properties, "encryptKey")
	for _, name := range f.Tables() {
		t := inspectTable{Name: name, Model: "tree"}
		if s, ok := f.TableSchema(name); ok {
			t.Model = "table"
			for _, c := range s.Columns {
				t.Columns = append(t.Columns, inspectColumn{c.Name, c.Category.String(), c.DataType.String(), c.Encoding.String(), c.Compression.String()})
			}
		}
		devs, err := f.Devices(name)
		if err != nil {
			return nil, err
		}
		for _, dev := range devs {
			d, err := inspectOne(f, dev, info)
			if err != nil {
				return nil, err
			}
			t.Devices = append(t.Devices, d)
		}
		info.Tables = append(info.Tables, t)
	}
	for _, w := range f.Warnings() {
		info.Warnings = append(info.Warnings, w.String())
	}
	return info, nil
}

func inspectOne(f *tsfile.File, dev tsfile.DeviceID, info *inspectFile) (inspectDevice, error) {
	d := inspectDevice{Device: dev.String()}
	for i := 0; i < dev.Len(); i++ {
		if v, ok := dev.Segment(i); ok {
			d.Segments = append(d.Segments, &v)
		} else {
			d.Segments = append(d.Segments, nil)
		}
	}
	series, err := f.Series(dev)
	if err != nil {
		return d, err
	}
	for _, s := range series {
		if s.IsTimeColumn() {
			d.Aligned = true
			d.Rows = s.Statistics.Count
		}
	}
	for _, s := range series {
		is := inspectSeries{Measurement: s.Measurement, DataType: s.DataType.String(), Chunks: len(s.Chunks), Values: s.Statistics.Count, Statistics: stats(&s.Statistics)}
		if s.IsTimeColumn() {
			is.Measurement = "(time)"
		}
		if s.IsValueColumn() {
			n := d.Rows - s.Statistics.Count
			is.NullCount = &n
		}
		encs, comps := map[string]bool{}, map[string]bool{}
		for _, cm := range s.Chunks {
			c, err := f.ReadChunk(cm.Offset)
			if err != nil {
				return d, err
			}
			encs[c.Header.Encoding.String()] = true
			comps[c.Header.Compression.String()] = true
			is.Pages += len(c.Pages)
			for _, p := range c.Pages {
				if p.Header.Empty() {
					is.EmptyPages++
				}
			}
		}
		is.Encoding, is.Compression = joinKeys(encs), joinKeys(comps)
		info.Chunks += is.Chunks
		info.Pages += is.Pages
		d.Series = append(d.Series, is)
	}
	if !d.Aligned {
		// A non-aligned device's rows are the union of its series' times,
		// which only a scan can count; report the largest series instead.
		for _, s := range series {
			d.Rows = max(d.Rows, s.Statistics.Count)
		}
	}
	return d, nil
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func stats(s *tsfile.Statistics) inspectStats {
	out := inspectStats{Count: s.Count}
	if s.Count == 0 {
		return out
	}
	out.StartTime, out.EndTime = &s.StartTime, &s.EndTime
	switch s.Type {
	case tsfile.Boolean:
		out.First, out.Last, out.TrueCount = s.FirstBool, s.LastBool, &s.TrueCount
	case tsfile.Int32, tsfile.Date:
		out.Min, out.Max, out.First, out.Last, out.Sum = s.MinInt, s.MaxInt, s.FirstInt, s.LastInt, s.SumInt
	case tsfile.Int64, tsfile.Timestamp:
		out.Min, out.Max, out.First, out.Last, out.Sum = s.MinInt, s.MaxInt, s.FirstInt, s.LastInt, jsonFloat(s.Sum)
	case tsfile.Float:
		// float32 so both forms print the shortest float32 text.
		out.Min, out.Max, out.First, out.Last, out.Sum = jsonFloat32(s.MinFloat), jsonFloat32(s.MaxFloat), jsonFloat32(s.FirstFloat), jsonFloat32(s.LastFloat), jsonFloat(s.Sum)
	case tsfile.Double:
		out.Min, out.Max, out.First, out.Last, out.Sum = jsonFloat(s.MinFloat), jsonFloat(s.MaxFloat), jsonFloat(s.FirstFloat), jsonFloat(s.LastFloat), jsonFloat(s.Sum)
	case tsfile.Text:
		out.First, out.Last = string(s.First), string(s.Last)
	case tsfile.String:
		out.First, out.Last, out.Min, out.Max = string(s.First), string(s.Last), string(s.Min), string(s.Max)
	}
	return out
}

// jsonFloat keeps NaN and infinities, which JSON numbers cannot hold, as
// strings.
func jsonFloat(v float64) any {
	if v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308 {
		return fmt.Sprint(v)
	}
	return v
}

func jsonFloat32(v float64) any {
	if f, ok := jsonFloat(v).(float64); ok {
		return float32(f)
	}
	return fmt.Sprint(float32(v))
}

func printInspect(w io.Writer, info *inspectFile) {
	fmt.Fprintf(w, "file:        %s\n", info.File)
	fmt.Fprintf(w, "size:        %d bytes\n", info.Size)
	fmt.Fprintf(w, "version:     %d\n", info.Version)
	fmt.Fprintf(w, "encryption:  %s\n", info.Encryption)
	fmt.Fprintf(w, "chunks:      %d\n", info.Chunks)
	fmt.Fprintf(w, "pages:       %d\n", info.Pages)
	for _, x := range info.Warnings {
		fmt.Fprintf(w, "warning:     %s\n", x)
	}
	keys := make([]string, 0, len(info.Properties))
	for k := range info.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "property:    %s = %s\n", k, info.Properties[k])
	}
	for _, t := range info.Tables {
		fmt.Fprintf(w, "\ntable %s (%s model, %d devices)\n", t.Name, t.Model, len(t.Devices))
		if len(t.Columns) > 0 {
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  COLUMN\tCATEGORY\tTYPE\tENCODING\tCOMPRESSION")
			for _, c := range t.Columns {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.Name, c.Category, c.DataType, c.Encoding, c.Compression)
			}
			tw.Flush()
		}
		for _, d := range t.Devices {
			kind := "non-aligned"
			if d.Aligned {
				kind = "aligned"
			}
			fmt.Fprintf(w, "\n  device %s (%s, %d rows)\n", d.Device, kind, d.Rows)
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "    SERIES\tTYPE\tENCODING\tCOMPRESSION\tCHUNKS\tPAGES\tVALUES\tNULLS\tSTART\tEND\tMIN\tMAX")
			for _, s := range d.Series {
				nulls := "-"
				if s.NullCount != nil {
					nulls = fmt.Sprint(*s.NullCount)
				}
				fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", s.Measurement, s.DataType, s.Encoding, s.Compression,
					s.Chunks, s.Pages, s.Values, nulls, opt(s.Statistics.StartTime), opt(s.Statistics.EndTime), anyStr(s.Statistics.Min), anyStr(s.Statistics.Max))
			}
			tw.Flush()
		}
	}
}

func opt(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func anyStr(v any) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(v)
}
