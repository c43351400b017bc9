package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tsarrow/tsarrow/internal/durable"
	"github.com/tsarrow/tsarrow/objstore"
)

// The rules for OUT, shared by convert (one file or a partitioned
// dataset), its reverse path and recover, so that no command can lose
// what another protects:
//
//   - OUT is cleaned first ("weather/", "./weather", "sub/../weather" all
//     name weather), so the temporary beside it lands in OUT's parent.
//   - OUT is never an input (the same file through any spelling, symbolic
//     or hard link), not even with --force: the input is read while OUT is
//     written, and a recovered file would lose the bytes it could not
//     salvage.
//   - An existing OUT is replaced only with --force, and only by its own
//     kind: a file by a file, a dataset directory by a dataset, and a
//     directory only when it holds nothing but what --partition-by writes.
//     The current directory, one of its parents, the home directory and a
//     directory holding an input are never replaced.
//   - New output is built in a temporary beside OUT whose name says which
//     process made it; a later run into the same OUT removes those whose
//     process is gone.

// outKind is what a command writes at OUT.
type outKind int

const (
	outFile    outKind = iota // one file
	outDataset                // a Hive-style directory (--partition-by)
)

// output is an OUT that checkOutput accepted.
type output struct {
	path    string // cleaned
	kind    outKind
	replace bool // OUT exists and --force allows replacing it
	// obj is OUT in an object store (output_object.go); path is then
	// the URL as given.
	obj *objectOutput
}

// close releases what checkOutput opened for OUT.
func (o *output) close() {
	if o != nil && o.obj != nil {
		o.obj.store.Close()
	}
}

// tempPrefix is the start of the name of a temporary for path: hidden,
// naming OUT and the process that writes it, which staleTemps relies on.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + ".tsarrow-tmp-" + strconv.Itoa(os.Getpid()) + "-"
}

// asidePrefix is the name an existing dataset is renamed to while the new
// one takes its place.
func asidePrefix(path string) string {
	return "." + filepath.Base(path) + ".tsarrow-old-" + strconv.Itoa(os.Getpid()) + "-"
}

// checkOutput checks that a command may write out (not "-") as kind,
// given --force and the inputs it reads, and removes temporaries that runs
// killed before they could clean up left beside it. An object URL is
// checked by checkObjectOutput, with the store options opts.
func checkOutput(out string, kind outKind, force bool, inputs []string, opts *objstore.Options, stderr io.Writer) (*output, error) {
	if objstore.IsURL(out) {
		return checkObjectOutput(out, kind, force, inputs, opts, stderr)
	}
	o := &output{path: filepath.Clean(out), kind: kind}
	st, err := os.Stat(o.path)
	exists := err == nil
	if exists && st.IsDir() {
		if why := protectedDir(o.path, st, inputs); why != "" {
			return nil, usagef("refusing to write -o %s: %s; name a new file or directory", out, why)
		}
	}
	if kind == outFile && namesDir(out) {
		return nil, usagef("-o %s names a directory; name the output file", out)
	}
	for _, in := range inputs {
		if isURL(in) {
			continue
		}
		if exists && same(st, in) {
			return nil, usagef("-o %s is the input %s; write to another file (not even --force replaces an input)", out, in)
		}
	}
	parent := filepath.Dir(o.path)
	if pst, err := os.Stat(parent); err != nil {
		return nil, usagef("cannot write -o %s: directory %s does not exist", out, parent)
	} else if !pst.IsDir() {
		return nil, usagef("cannot write -o %s: %s is not a directory", out, parent)
	}
	removeStaleTemps(o.path, stderr)
	// Lstat: a dangling symbolic link exists too.
	lst, err := os.Lstat(o.path)
	if errors.Is(err, fs.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return nil, err
	}
	if !force {
		return nil, usagef("%s exists; pass --force to overwrite it", out)
	}
	if st, err = os.Stat(o.path); err != nil {
		st = lst
	}
	switch {
	case kind == outFile && st.IsDir():
		return nil, usagef("-o %s is a directory; --force replaces a file only by a file (name the output file)", out)
	case kind == outFile && !st.Mode().IsRegular():
		return nil, usagef("-o %s is not a regular file; --force replaces a file only by a file", out)
	case kind == outDataset && lst.Mode()&fs.ModeSymlink != 0:
		return nil, usagef("-o %s is a symbolic link; name the directory itself", out)
	case kind == outDataset && !st.IsDir():
		return nil, usagef("-o %s is a file; --partition-by writes a directory, and --force replaces only a dataset ts2arrow wrote", out)
	case kind == outDataset:
		foreign, err := foreignEntry(o.path)
		if err != nil {
			return nil, err
		}
		if foreign != "" {
			return nil, usagef("-o %s holds %s, which ts2arrow did not write; --force replaces only a dataset ts2arrow wrote (move it away or name a new directory)", out, foreign)
		}
	}
	o.replace = true
	return o, nil
}

// namesDir reports whether the spelling of path can only name a
// directory: a trailing slash, or "." or ".." as its last element.
func namesDir(path string) bool {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return true
	}
	b := filepath.Base(path)
	return b == "." || b == ".."
}

// protectedDir says why the existing directory dir must never be
// replaced, or "".
func protectedDir(dir string, st fs.FileInfo, inputs []string) string {
	if abs, err := filepath.Abs(dir); err == nil && filepath.Dir(abs) == abs {
		return "it is the root directory"
	}
	if wd, err := os.Getwd(); err == nil {
		if same(st, wd) {
			return "it is the current directory"
		}
		if ancestorOf(st, wd) {
			return "it holds the current directory"
		}
	}
	if home, err := os.UserHomeDir(); err == nil && same(st, home) {
		return "it is your home directory"
	}
	for _, in := range inputs {
		if !isURL(in) && ancestorOf(st, in) {
			return "it holds the input " + in
		}
	}
	return ""
}

// same reports whether path is the file st describes.
func same(st fs.FileInfo, path string) bool {
	pst, err := os.Stat(path)
	return err == nil && os.SameFile(st, pst)
}

// ancestorOf reports whether the directory st describes is a parent (at
// any depth) of path, following symbolic links.
func ancestorOf(st fs.FileInfo, path string) bool {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	if p, err = filepath.Abs(p); err != nil {
		return false
	}
	for {
		up := filepath.Dir(p)
		if up == p {
			return false
		}
		if same(st, up) {
			return true
		}
		p = up
	}
}

var partName = regexp.MustCompile(`^part-[0-9]+\.(parquet|arrow|arrows|csv|jsonl)$`)

// datasetLevels are the directory keys --partition-by writes at each
// depth below OUT (after table=T at depth 1): device=D, then the time
// partitions date=D[/hour=H] or year=Y/month=M.
var datasetLevels = [][]string{
	nil, nil,
	{"device", "date", "year"},
	{"date", "year", "hour", "month"},
	{"hour", "month"},
}

// foreignEntry returns the first entry under dir (relative, in walk
// order) that is not part of a dataset --partition-by writes, or "":
// table=T directories, device=D and time partition directories (date=,
// hour=, year=, month=) inside them and part-N files in any of them. The
// layout alone tells a dataset: a marker file was tried, but DuckDB's
// read_parquet('OUT/**') reads every file under OUT and failed on it.
func foreignEntry(dir string) (string, error) {
	var foreign string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		parts := strings.Split(rel, string(filepath.Separator))
		weird := d.Type()&fs.ModeSymlink != 0 || (!d.IsDir() && !d.Type().IsRegular())
		if weird || !inLayout(parts, d.IsDir()) {
			foreign = rel
			return filepath.SkipAll
		}
		return nil
	})
	return foreign, err
}

// inLayout reports whether parts, the elements of a path relative to OUT,
// name a directory (dir) or a file of the layout --partition-by writes:
// table=T at depth 1, device=D and the time partition directories below
// it, part-N files in any of them but OUT itself.
func inLayout(parts []string, dir bool) bool {
	name := parts[len(parts)-1]
	switch {
	case len(parts) == 1:
		return dir && strings.HasPrefix(name, "table=")
	case !dir:
		return partName.MatchString(name)
	case len(parts) < len(datasetLevels):
		return slices.ContainsFunc(datasetLevels[len(parts)], func(k string) bool { return strings.HasPrefix(name, k+"=") })
	}
	return false
}

// staleTemp matches the temporaries of OUT's base name: group 1 is "tmp"
// (new output being built) or "old" (the dataset being replaced), group 2
// the process id.
func staleTemp(base string) *regexp.Regexp {
	return regexp.MustCompile(`^\.` + regexp.QuoteMeta(base) + `\.tsarrow-(tmp|old)-([0-9]+)-[0-9]+$`)
}

// removeStaleTemps removes the temporaries beside path that a process
// which is gone left (it was killed before it could clean up), saying so
// on stderr. A replaced dataset set aside by a process killed before the
// new one took its place is put back at path instead, if path is free.
// Nothing else is touched, nor the temporaries of a live process.
func removeStaleTemps(path string, stderr io.Writer) {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	re := staleTemp(filepath.Base(path))
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[2])
		if err != nil || pid == os.Getpid() || !processGone(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if m[1] == "old" {
			if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
				if err := durable.Rename(p, path); err == nil {
					fmt.Fprintf(stderr, "ts2arrow: restored %s from %s: process %s was killed while replacing it\n", path, p, m[2])
				}
				continue
			}
		}
		if err := os.RemoveAll(p); err != nil {
			fmt.Fprintf(stderr, "ts2arrow: warning: cannot remove stale temporary file %s: %v\n", p, err)
			continue
		}
		fmt.Fprintf(stderr, "ts2arrow: removed stale temporary file %s left by process %s\n", p, m[2])
	}
}

// writeFile writes a file output through fn, atomically; ctx (of
// notifyInterrupt) stops an upload to a bucket.
func (o *output) writeFile(ctx context.Context, fn func(io.Writer) error) error {
	if o.obj != nil {
		return o.obj.write(ctx, fn)
	}
	return writeAtomic(o.path, fn)
}

// tempDir creates the directory a dataset output is built in, with the
// mode os.Mkdir gives (0o777 less the umask), which the rename keeps.
func (o *output) tempDir() (string, error) {
	if o.obj != nil {
		return localTempDir()
	}
	return durable.MkdirTemp(filepath.Dir(o.path), tempPrefix(o.path)+"*")
}

// commitDir puts the dataset built in tmp at OUT. An existing OUT (which checkOutput allowed replacing) is renamed
// aside first and removed only once the new one is in place, so at every
// moment one of the two is whole. Every directory of the tree is synced
// before the tree is renamed into place, and OUT's directory after each
// rename, so that a power loss cannot take back a dataset reported as
// written (its part files were synced when they were written).
//
// A dataset bound for a bucket is uploaded (objectOutput.upload); ctx (of
// notifyInterrupt) stops the upload, which then removes what it wrote.
func (o *output) commitDir(ctx context.Context, tmp string) error {
	if o.obj != nil {
		return o.obj.upload(ctx, tmp)
	}
	if err := durable.SyncTree(tmp); err != nil {
		return err
	}
	if !o.replace {
		return renameDir(tmp, o.path)
	}
	// A name of the aside pattern: a later run puts it back should this
	// process die between the two renames.
	aside, err := os.MkdirTemp(filepath.Dir(o.path), asidePrefix(o.path)+"*")
	if err != nil {
		return err
	}
	if err := os.Remove(aside); err != nil {
		return err
	}
	// Synced before the new dataset takes its place: after a power loss
	// OUT is then the old dataset, or it is free and the old one is at
	// aside, where the next run puts it back.
	if err := durable.Rename(o.path, aside); err != nil {
		return err
	}
	if err := renameDir(tmp, o.path); err != nil {
		if rerr := durable.Rename(aside, o.path); rerr != nil {
			return fmt.Errorf("%w; the previous %s is at %s", err, o.path, aside)
		}
		return err
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("the new dataset is in place, but the previous one could not be removed: %w", err)
	}
	return nil
}

// renameDir is durable.Rename, a variable so that a test can make the swap
// fail half way.
var renameDir = durable.Rename
