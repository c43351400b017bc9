package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// formatExt is the file extension of each output format's parts.
var formatExt = map[string]string{"parquet": ".parquet", "arrow": ".arrow", "arrows": ".arrows", "csv": ".csv", "jsonl": ".jsonl"}

// hiveEscape escapes a partition value for a Hive-style path segment the
// way Hive does (%XX for the characters that are special in paths and in
// key=value segments), which Spark and DuckDB undo when they read the
// value back.
func hiveEscape(s string) string {
	if s == "" {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\[]^{}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// runPartitioned writes one part per input file and table (and device)
// into a Hive-style directory, built beside OUT and renamed into place
// (replacing the dataset there only once the new one is complete).
func (j *convertJob) runPartitioned(ctx context.Context, stderr io.Writer) error {
	tmp, err := j.dst.tempDir()
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	j.stderr = stderr
	prog := j.progressFor(stderr, 0)
	parts := map[string]int{} // next part number per partition directory
	var rows int64
	written := 0
	for _, name := range j.inputs {
		if err := ctx.Err(); err != nil {
			prog.finish(false)
			return interruptedBy(ctx)
		}
		in, err := openInputCounted(ctx, name, j.ropts, j.http, prog)
		if err != nil {
			prog.finish(false)
			return err
		}
		if j.verbose {
			fmt.Fprintf(stderr, "ts2arrow: reading %s\n", name)
		}
		n, w, err := j.writeParts(ctx, in.file, tmp, parts, prog)
		j.finishInput(in, stderr)
		rows += n
		written += w
		if err != nil {
			prog.finish(false)
			return &fileError{name, err}
		}
	}
	prog.finish(true)
	pruneEmptyDirs(tmp)
	if err := j.dst.commitDir(ctx, tmp); err != nil {
		return err
	}
	ok = true
	if rows == 0 {
		j.reportEmpty(ctx, stderr)
	} else if j.verbose {
		fmt.Fprintf(stderr, "ts2arrow: wrote %d rows in %d parts under %s\n", rows, written, j.out)
	}
	return nil
}

// writeParts writes the parts of one input file under dir and returns the
// rows and parts written.
func (j *convertJob) writeParts(ctx context.Context, f *tsfile.File, dir string, parts map[string]int, prog *progress) (rows int64, written int, err error) {
	var tables []string
	if j.table != "" {
		tables = []string{j.table}
	} else {
		tables = f.Tables()
	}
	q, err := j.queryFor(f)
	if err != nil {
		return 0, 0, err
	}
	var devsOf map[string][]tsfile.DeviceID
	if j.part.device {
		// The device partitions of every table of the input, counted
		// before its first part is written.
		devsOf = map[string][]tsfile.DeviceID{}
		for _, t := range tables {
			if devsOf[t], err = j.queryDevices(f, t, q); err != nil {
				return rows, written, err
			}
			j.devWarn.note(j.stderr, j.partitionBy, t, devsOf[t])
		}
	}
	for _, t := range tables {
		_, model := f.SchemaOf(t)
		if !model && !slices.Contains(f.Tables(), t) {
			return rows, written, usagef("no table %q in the file (tables: %s)", t, strings.Join(f.Tables(), ", "))
		}
		tdir := filepath.Join(dir, "table="+hiveEscape(t))
		if !j.part.device {
			n, w, err := j.writeTimeParts(ctx, f, t, model, q, tdir, parts, prog)
			rows, written = rows+n, written+w
			if err != nil {
				return rows, written, err
			}
			continue
		}
		for _, d := range devsOf[t] {
			dq := *q
			dq.Devices = []tsfile.DeviceID{d}
			if !model {
				// The device is the partition: the column moves into
				// the path, where Spark and DuckDB expect it.
				if dq.Columns, err = withoutDevice(f, t, q); err != nil {
					return rows, written, err
				}
			}
			n, w, err := j.writeTimeParts(ctx, f, t, model, &dq, filepath.Join(tdir, "device="+hiveEscape(d.String())), parts, prog)
			rows, written = rows+n, written+w
			if err != nil {
				return rows, written, err
			}
		}
	}
	return rows, written, nil
}

// queryDevices lists the devices of table t that the query's --device
// names keep.
func (j *convertJob) queryDevices(f *tsfile.File, t string, q *arrowconv.Options) ([]tsfile.DeviceID, error) {
	devs, err := f.Devices(t)
	if err != nil {
		return nil, err
	}
	if q.Devices == nil {
		return devs, nil
	}
	return slices.DeleteFunc(devs, func(d tsfile.DeviceID) bool { return !containsDevice(q.Devices, d) }), nil
}

// writeTimeParts writes the rows of table t for query q under dir: one
// part there, or with a time partition one part in each time partition
// directory under dir that the query's rows reach. The read of each
// partition is the query narrowed to its times, so every row the query
// matches falls in exactly one partition.
func (j *convertJob) writeTimeParts(ctx context.Context, f *tsfile.File, t string, model bool, q *arrowconv.Options, dir string, parts map[string]int, prog *progress) (rows int64, written int, err error) {
	if j.part.period == "" {
		return j.writePart(ctx, f, t, model, q, dir, parts, prog)
	}
	ws := newWindowSet(j.part, j.query.TimeUnit.Unit(), q.Time)
	rdr, err := openPart(f, t, model, timeOnly(q))
	if err != nil {
		return 0, 0, err
	}
	if err := ws.scan(ctx, rdr); err != nil {
		return 0, 0, err
	}
	for _, w := range ws.windows() {
		n, k, err := j.writePart(ctx, f, t, model, windowQuery(q, w), filepath.Join(dir, filepath.FromSlash(w.dir)), parts, prog)
		rows, written = rows+n, written+k
		if err != nil {
			return rows, written, err
		}
	}
	return rows, written, nil
}

// openPart opens the rows of table t for query q, of the table model or
// the tree model.
func openPart(f *tsfile.File, t string, model bool, q *arrowconv.Options) (array.RecordReader, error) {
	if model {
		return arrowconv.NewTableReader(f, t, q)
	}
	return arrowconv.NewTreeReader(f, t, q)
}

func containsDevice(list []tsfile.DeviceID, d tsfile.DeviceID) bool {
	for _, x := range list {
		if x.Equal(d) {
			return true
		}
	}
	return false
}

// withoutDevice returns the columns of a tree-model query without the
// device column.
func withoutDevice(f *tsfile.File, table string, q *arrowconv.Options) ([]string, error) {
	names := q.Columns
	if names == nil {
		probe := *q
		probe.Limit = 1
		r, err := arrowconv.NewTreeReader(f, table, &probe)
		if err != nil {
			return nil, err
		}
		for _, fd := range r.Schema().Fields() {
			names = append(names, fd.Name)
		}
		r.Release()
	}
	out := []string{}
	for _, n := range names {
		if n != arrowconv.DeviceColumn && n != arrowconv.TimeColumn {
			out = append(out, n)
		}
	}
	return out, nil
}

// writePart writes the rows of table t for query q as the next part file
// of dir. A part that would hold no rows is not written.
func (j *convertJob) writePart(ctx context.Context, f *tsfile.File, t string, model bool, q *arrowconv.Options, dir string, parts map[string]int, prog *progress) (int64, int, error) {
	rdr, err := openPart(f, t, model, q)
	if err != nil {
		return 0, 0, err
	}
	if j.part.period != "" {
		j.warnKeyClash(j.stderr, rdr.Schema(), t)
	}
	chain := &chainReader{ctx: ctx, schema: rdr.Schema(), prog: prog, next: func(k int) (*input, array.RecordReader, error) {
		if k > 0 {
			return nil, nil, nil
		}
		return nil, rdr, nil
	}, done: func(*input) {}}
	defer chain.Release()
	if err := os.MkdirAll(dir, 0o777); err != nil { // less the umask, as mkdir -p
		return 0, 0, err
	}
	path := filepath.Join(dir, fmt.Sprintf("part-%d%s", parts[dir], formatExt[j.format]))
	// os.Rename: commitDir syncs the tree's directories before publishing it.
	err = writeSynced(path, os.Rename, func(w io.Writer) error { return writeFormat(w, j.format, chain, j.wopts) })
	if err != nil {
		return chain.rows, 0, chain.wrap(err)
	}
	if chain.rows == 0 {
		os.Remove(path)
		return 0, 0, nil
	}
	parts[dir]++
	return chain.rows, 1, nil
}

// pruneEmptyDirs removes the partition directories under root that no
// part was written into (a device or table whose rows the query dropped),
// deepest first, so that a dataset holds only directories with data.
func pruneEmptyDirs(root string) {
	var dirs []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, as wanted, on a directory that is not empty
	}
}
