package icesync

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// A sync announces its data files before writing them: a marker
// <table location>/tsarrow-inflight/<sync ID>.json names the process, and
// every data file it writes has the sync ID in its name (iceberg-go puts
// the write UUID there). The marker goes once the sync has committed or
// removed its files. A marker left behind is a sync that died (kill -9,
// power loss): the next sync removes the data files of that ID unless a
// snapshot of that ID is in the table, then the marker. Data files of a
// sync that is still running, on this host or another, are never touched.

// inflightDir is the folder of the markers, below the table's location.
const inflightDir = "tsarrow-inflight"

// staleAfter is how old the marker of a sync on another host must be
// before it counts as dead: a process there cannot be asked.
const staleAfter = 24 * time.Hour

// marker is the content of an in-flight marker.
type marker struct {
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	Start int64  `json:"start"` // Unix milliseconds
}

// markerPath is the location of sync id's marker.
func markerPath(tbl *table.Table, id string) string {
	return strings.TrimSuffix(tbl.Location(), "/") + "/" + inflightDir + "/" + id + ".json"
}

// announce writes the marker of sync id.
func announce(fsys iceio.IO, tbl *table.Table, id string) error {
	w, ok := fsys.(iceio.WriteFileIO)
	if !ok {
		return table.ErrWriteIORequired
	}
	host, _ := os.Hostname()
	b, err := json.Marshal(marker{Host: host, PID: os.Getpid(), Start: time.Now().UnixMilli()})
	if err != nil {
		return err
	}
	if err := w.WriteFile(markerPath(tbl, id), b); err != nil {
		return fmt.Errorf("icesync: in-flight marker: %w", err)
	}
	return nil
}

// retire removes the marker of sync id.
func retire(fsys iceio.IO, tbl *table.Table, id string) {
	_ = fsys.Remove(markerPath(tbl, id))
}

// reapDead removes the data files and markers of syncs that died: those
// whose marker names a process of this host that is gone, or a process of
// another host and is older than staleAfter. It returns the number of data
// files removed.
func reapDead(fsys iceio.IO, tbl *table.Table) (int, error) {
	lio, ok := fsys.(iceio.ListableIO)
	if !ok {
		return 0, nil // cannot list: orphans stay for DeleteOrphanFiles
	}
	root := strings.TrimSuffix(tbl.Location(), "/")
	host, _ := os.Hostname()
	var dead []string
	var deadMarkers []string
	err := lio.WalkDir(root+"/"+inflightDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		id := strings.TrimSuffix(path.Base(p), ".json")
		var m marker
		if b, err := readAll(fsys, p); err != nil || json.Unmarshal(b, &m) != nil {
			return nil // being written, or not ours: leave it
		}
		age := time.Since(time.UnixMilli(m.Start))
		if (m.Host == host && !processAlive(m.PID)) || age > staleAfter {
			if _, committed := findSync(tbl, id); !committed {
				dead = append(dead, id)
			}
			deadMarkers = append(deadMarkers, p)
		}
		return nil
	})
	if err != nil || len(deadMarkers) == 0 {
		return 0, err
	}
	n := 0
	if len(dead) > 0 {
		err = lio.WalkDir(root+"/data", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			for _, id := range dead {
				if strings.Contains(path.Base(p), id) {
					if err := fsys.Remove(p); err != nil {
						return err
					}
					n++
				}
			}
			return nil
		})
		if err != nil {
			return n, fmt.Errorf("icesync: removing the data files of a sync that died: %w", err)
		}
	}
	for _, p := range deadMarkers {
		_ = fsys.Remove(p)
	}
	return n, nil
}

// readAll reads a small file through the table's file IO.
func readAll(fsys iceio.IO, name string) ([]byte, error) {
	if r, ok := fsys.(iceio.ReadFileIO); ok {
		return r.ReadFile(name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<16))
}
