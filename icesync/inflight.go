package icesync

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
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
	// Writer is the sync's writer; Writes the write IDs (in its data
	// files' names) of its commit attempts after the first, whose write
	// ID is the sync ID.
	Writer string   `json:"writer,omitempty"`
	Writes []string `json:"writes,omitempty"`
}

// markerPath is the location of sync id's marker.
func markerPath(tbl *table.Table, id string) string {
	return strings.TrimSuffix(tbl.Location(), "/") + "/" + inflightDir + "/" + id + ".json"
}

// announce writes (or rewrites, with more write IDs) the marker of sync id.
func announce(fsys iceio.IO, tbl *table.Table, id, writer string, writes []string) error {
	w, ok := fsys.(iceio.WriteFileIO)
	if !ok {
		return table.ErrWriteIORequired
	}
	host, _ := os.Hostname()
	b, err := json.Marshal(marker{Host: host, PID: os.Getpid(), Start: time.Now().UnixMilli(), Writer: writer, Writes: writes})
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

// readAll reads a file through the table's file IO: at most limit bytes
// of it when limit > 0 and the IO has no ReadFile (a marker is small; a
// larger file there is not one of ours).
func readAll(fsys iceio.IO, name string, limit int64) ([]byte, error) {
	if r, ok := fsys.(iceio.ReadFileIO); ok {
		return r.ReadFile(name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit > 0 {
		return io.ReadAll(io.LimitReader(f, limit))
	}
	return io.ReadAll(f)
}
