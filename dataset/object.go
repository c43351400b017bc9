package dataset

import (
	"errors"
	"io/fs"
	"slices"
)

// ObjectFolder is the folder of a data directory that holds the files of
// OBJECT cells, beside sequence/ and unsequence/: IoTDBConstant's
// OBJECT_FOLDER_NAME, which TierManager.initFolders joins to each data
// directory (apache/iotdb iotdb-core/datanode/.../rescon/disk/TierManager.java).
const ObjectFolder = "object"

// ObjectRoot returns the object folders of the data directories the
// dataset's files lie in, as one file system: a path is looked up in each
// in turn, as TierManager.getAbsoluteObjectFilePath looks through every
// data directory's object folder. Nil when no file lies in a layout (loose
// files have no data directory).
func (d *Dataset) ObjectRoot() fs.FS {
	var dirs []string
	for _, f := range d.files {
		if f.Space == Unknown {
			continue
		}
		if dir := d.fsys.Join(d.dataDirOf(f.Path), ObjectFolder); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	if dirs == nil {
		return nil
	}
	return &objectDirs{fsys: d.fsys, dirs: dirs}
}

// objectDirs is the union of object folders ObjectRoot returns.
type objectDirs struct {
	fsys fileSystem
	dirs []string
}

// Open opens name (slash-separated, relative to an object folder) in the
// first object folder holding it.
func (o *objectDirs) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	var first error
	for _, dir := range o.dirs {
		p := o.fsys.Join(dir, name)
		if o.fsys.OpenMayBlock() {
			// Never open a named pipe (or a device) found there: it
			// could block.
			st, err := o.fsys.Stat(p)
			if err == nil && !st.Mode().IsRegular() {
				return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("not a regular file")}
			}
		}
		f, err := o.fsys.Open(p)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
