package flight

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/internal/durable"
	"github.com/tsarrow/tsarrow/tsfile"
)

// PutCommand is the JSON a DoPut command descriptor may carry instead of
// the path [file] or [file, table]: the file to create under the root,
// and how to map the records onto a table. Unset fields take the defaults
// of fromarrow.Options: the table from the schema metadata (else
// the file's base name) and the TAG columns from field metadata.
type PutCommand struct {
	File       string   `json:"file"`
	Table      string   `json:"table,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Attributes []string `json:"attributes,omitempty"`
	// WriteTimeColumn records the time column in the table schema as a
	// column of category TIME, which upstream Java TsFile and IoTDB
	// cannot read (fromarrow.Options.WriteTimeColumn).
	WriteTimeColumn bool `json:"write_time_column,omitempty"`
}

// Bounds of a DoPut's file name, checked before the file system sees
// it: most file systems take names of 255 bytes, and the temporary file
// is the name with "." before it and ".put-" and up to 10 digits after.
const (
	maxPutElement = 200
	maxPutPath    = 1024
)

// PutResult is the JSON app_metadata of DoPut's one PutResult.
type PutResult struct {
	File  string `json:"file"`
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

func putCommand(d *arrowflight.FlightDescriptor) (*PutCommand, error) {
	var c PutCommand
	switch {
	case d == nil:
		return nil, fmt.Errorf("%w: DoPut needs a descriptor naming the file to write", errBadQuery)
	case d.Type == arrowflight.DescriptorPATH && (len(d.Path) == 1 || len(d.Path) == 2):
		c.File = d.Path[0]
		if len(d.Path) == 2 {
			c.Table = d.Path[1]
		}
	case d.Type == arrowflight.DescriptorCMD:
		if err := decodeCommand(d.Cmd, &c, "PutCommand"); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: DoPut descriptor must be the path [file] or [file, table], or a JSON command", errBadQuery)
	}
	return &c, nil
}

// countingReader bounds the bytes a DoPut client may send.
type countingReader struct {
	arrowflight.FlightService_DoPutServer
	n, limit int64
	st       *streamStats // its waiting on the client, for Options.WriteTimeout
}

func (c *countingReader) Recv() (*arrowflight.FlightData, error) {
	c.st.sending.Store(time.Now().UnixNano())
	d, err := c.FlightService_DoPutServer.Recv()
	c.st.sending.Store(0)
	if err != nil {
		return nil, err
	}
	c.n += int64(len(d.DataHeader) + len(d.DataBody) + len(d.AppMetadata))
	if c.n > c.limit {
		return nil, fmt.Errorf("%w: DoPut sent more than %d bytes", errTooLarge, c.limit)
	}
	return d, nil
}

// DoPut writes the client's record batches as a new TsFile under the root:
// into a hidden temporary file in the target directory, which is checked by
// reading it back and then linked to its name, so the name never holds a
// partial file and an existing file is never replaced.
func (sv *service) DoPut(stream arrowflight.FlightService_DoPutServer) (err error) {
	s := sv.s
	began := time.Now()
	ctx := stream.Context()
	st := &streamStats{}
	defer func() { s.logStream(ctx, "DoPut", nil, st, began, err) }()
	if !s.opts.AllowPut {
		return toStatus(fmt.Errorf("%w: DoPut is disabled on this server (start it with --allow-put)", errDisabled))
	}
	// The stream is received on a goroutine of its own while the handler
	// watches for a client that sends nothing: a Recv blocked on it can
	// only be ended by the handler returning.
	st.touch()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &putSender{stream: stream}
	done := make(chan error, 1)
	s.streams.Add(1)
	go func() {
		defer s.streams.Done()
		done <- s.receivePut(pctx, stream, out, st)
	}()
	tick := time.NewTicker(s.watchEvery())
	defer tick.Stop()
	for {
		select {
		case err = <-done:
			return err
		case <-tick.C:
			err = s.stalled(st, "sent")
		case <-s.hardStop:
			err = status.Error(codes.Unavailable, "server shutting down")
		}
		if err != nil {
			out.abandon()
			return err
		}
	}
}

// putSender sends DoPut's result unless the handler has given up on the
// stream, after which gRPC forbids sending on it.
type putSender struct {
	mu        sync.Mutex
	stream    arrowflight.FlightService_DoPutServer
	abandoned bool
}

func (p *putSender) abandon() {
	p.mu.Lock()
	p.abandoned = true
	p.mu.Unlock()
}

func (p *putSender) send(r *arrowflight.PutResult) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abandoned {
		return context.Canceled
	}
	return p.stream.Send(r)
}

// receivePut admits a DoPut, writes its records and sends the result.
func (s *Server) receivePut(ctx context.Context, stream arrowflight.FlightService_DoPutServer, out *putSender, st *streamStats) error {
	// A DoPut's batches are the client's: its share is the fair one,
	// whatever it holds, but at least the two messages gRPC may hold for
	// it whole (the one decoded and the one received).
	share := min(max(s.fairShare(), 2*int64(s.opts.MaxMessageBytes)), s.opts.MemoryLimit)
	adm, err := s.admit(ctx, st, share, 0)
	if err != nil {
		return err
	}
	defer adm.release()
	meter := adm.meter
	cr := &countingReader{FlightService_DoPutServer: stream, limit: s.opts.MaxPutBytes, st: st}
	rdr, err := newPutRecordReader(cr, meter)
	if err != nil {
		return toStatus(err)
	}
	defer rdr.Release()
	cmd, err := putCommand(rdr.LatestFlightDescriptor())
	if err != nil {
		return toStatus(err)
	}
	res, err := s.put(ctx, cmd, rdr, st)
	if err != nil {
		return toStatus(err)
	}
	meta, _ := json.Marshal(res)
	return out.send(&arrowflight.PutResult{AppMetadata: meta})
}

func (s *Server) put(ctx context.Context, cmd *PutCommand, rdr *arrowflight.Reader, st *streamStats) (*PutResult, error) {
	if err := checkRel(cmd.File); err != nil {
		return nil, err
	}
	if !strings.EqualFold(path.Ext(cmd.File), s.opts.Extension) {
		return nil, fmt.Errorf("%w: %s does not end in %s", errBadQuery, cmd.File, s.opts.Extension)
	}
	if len(cmd.File) > maxPutPath {
		return nil, fmt.Errorf("%w: the file name is %d bytes long, over the %d a DoPut may give", errBadQuery, len(cmd.File), maxPutPath)
	}
	for _, el := range strings.Split(cmd.File, "/") {
		if strings.HasPrefix(el, ".") {
			return nil, fmt.Errorf("%w: %s has a hidden path element, which the server would not serve", errBadQuery, cmd.File)
		}
		if len(el) > maxPutElement {
			return nil, fmt.Errorf("%w: a path element of the file name is %d bytes long, over the %d a DoPut may give (file systems take 255, and the temporary file adds to it)", errBadQuery, len(el), maxPutElement)
		}
	}
	if err := s.cat.checkPutTarget(cmd.File); err != nil {
		return nil, err
	}
	target := filepath.Join(s.cat.root, filepath.FromSlash(cmd.File))
	if err := s.makeDirs(filepath.Dir(target), cmd.File); err != nil {
		return nil, err
	}
	if _, err := s.cat.resolve(cmd.File); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if _, err := os.Lstat(target); err == nil {
		return nil, fmt.Errorf("%w: %s", errExists, cmd.File)
	}
	topts := &fromarrow.Options{Table: cmd.Table, Tags: cmd.Tags, Attributes: cmd.Attributes,
		TimeUnit: s.opts.TimeUnit, WriteTimeColumn: cmd.WriteTimeColumn}
	if topts.Table == "" {
		if _, ok := rdr.Schema().Metadata().GetValue(arrowconv.MetaTable); !ok {
			topts.Table = strings.TrimSuffix(path.Base(cmd.File), path.Ext(cmd.File))
		}
	}
	// The mode os.Create gives (0o666 less the umask), as the files the
	// CLI writes: the link keeps it.
	tmp, err := durable.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".put-*")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary file for %s: %w", cmd.File, err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	bw := bufio.NewWriterSize(tmp, 1<<20)
	pr := &putReader{Reader: rdr, ctx: ctx, st: st}
	rows, werr := writePut(bw, pr, topts)
	if pr.bad != nil {
		// The client's bytes, not the writer, are at fault: say so in
		// our words rather than as the writer's input error.
		werr = pr.bad
	}
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil {
		werr = durable.SyncFile(tmp)
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		var pe *fs.PathError
		if errors.As(werr, &pe) || ctx.Err() != nil || errors.Is(werr, errTooLarge) || errors.Is(werr, errBadQuery) {
			return nil, fmt.Errorf("%s: %w", cmd.File, werr)
		}
		return nil, fmt.Errorf("%w: %s: %v", errBadQuery, cmd.File, putHint(werr))
	}
	// Read back what was written before publishing it.
	f, err := tsfile.OpenFile(tmpName, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: the written file does not read back: %w", cmd.File, err)
	}
	size := f.Size()
	table := topts.Table
	if table == "" && len(f.Tables()) == 1 {
		table = f.Tables()[0]
	}
	f.Close()
	// durable.Link syncs the directory: a put acknowledged survives a power loss.
	if err := durable.Link(tmpName, target); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%w: %s", errExists, cmd.File)
		}
		return nil, fmt.Errorf("publishing %s: %w", cmd.File, err)
	}
	if err := s.cat.rescan(ctx); err != nil {
		s.log.Warn("rescan after DoPut failed", "error", err)
	}
	return &PutResult{File: cmd.File, Table: table, Rows: rows, Bytes: size}, nil
}

// makeDirs creates the directories of a DoPut target, after checking that
// the deepest one that exists resolves inside the root.
func (s *Server) makeDirs(dir, rel string) error {
	probe := dir
	for {
		if _, err := os.Lstat(probe); err == nil {
			break
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			break
		}
		probe = parent
	}
	real, err := filepath.EvalSymlinks(probe)
	if err != nil {
		return err
	}
	if !within(s.cat.root, real) {
		return fmt.Errorf("%w: %s", errOutsideRoot, rel)
	}
	if err := durable.MkdirAll(dir, 0o777); err != nil { // less the umask, as mkdir -p
		return fmt.Errorf("creating the directory of %s: %w", rel, err)
	}
	return nil
}

// errBadIPC is the answer to DoPut bytes that are not an Arrow IPC
// stream, wrapped in errBadQuery (INVALID_ARGUMENT).
var errBadIPC = fmt.Errorf("%w: the DoPut stream is not valid Arrow IPC", errBadQuery)

// ipcError puts an error of arrow-go's IPC reader about message what in
// the server's words. arrow-go turns a panic of its decoder on malformed
// bytes into an error ("unknown error while reading: runtime error: slice
// bounds out of range ..."), which says nothing useful to the client and
// something about the server's code: that one is replaced; arrow-go's own
// checks ("invalid message type") are kept.
func ipcError(what string, err error) error {
	var re runtime.Error
	msg := err.Error()
	if errors.As(err, &re) || strings.Contains(msg, "unknown error while reading") || strings.Contains(msg, "runtime error") {
		msg = "its lengths and offsets do not fit its bytes"
	} else {
		msg = strings.TrimPrefix(msg, "arrow/flight: could not create flight reader: ")
	}
	return fmt.Errorf("%w: %s: %s (send the stream an Arrow IPC writer produces)", errBadIPC, what, msg)
}

// newPutRecordReader reads the schema message of a DoPut stream, with
// any panic of the decoder answered as bad input.
func newPutRecordReader(r arrowflight.DataStreamReader, mem memory.Allocator) (rdr *arrowflight.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rdr, err = nil, ipcError("its first message (the schema)", fmt.Errorf("%v", p))
		}
	}()
	rdr, err = arrowflight.NewRecordReader(r, ipc.WithAllocator(mem))
	if err != nil {
		var se interface{ GRPCStatus() *status.Status }
		if errors.Is(err, errTooLarge) || errors.As(err, &se) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, ipcError("its first message (the schema)", err)
	}
	return rdr, nil
}

// writePut writes a DoPut's records as a TsFile. A panic while reading
// them (in arrow-go, or on arrays that passed validation yet are
// inconsistent) is the client's bad bytes: it fails the DoPut with
// INVALID_ARGUMENT instead of taking the server down.
func writePut(w io.Writer, pr *putReader, opts *fromarrow.Options) (rows int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			if pr.bad == nil {
				pr.bad = ipcError(fmt.Sprintf("record batch %d", pr.batches), fmt.Errorf("%v", p))
			}
			err = pr.bad
		}
	}()
	return fromarrow.WriteTsFile(w, pr, opts)
}

// putReader counts a DoPut's rows, stops it when the client goes away,
// and checks every batch the client sent before the writer sees it.
type putReader struct {
	*arrowflight.Reader
	ctx     context.Context
	st      *streamStats
	batches int   // record batches read
	bad     error // the client's bytes are not valid Arrow IPC
}

func (p *putReader) Next() (ok bool) {
	if p.ctx.Err() != nil || p.bad != nil {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			p.bad = ipcError(fmt.Sprintf("record batch %d", p.batches+1), fmt.Errorf("%v", r))
			ok = false
		}
	}()
	if !p.Reader.Next() {
		if err := p.Reader.Err(); err != nil && p.ctx.Err() == nil && !errors.Is(err, errTooLarge) {
			if _, isStatus := status.FromError(err); !isStatus {
				p.bad = ipcError(fmt.Sprintf("record batch %d", p.batches+1), err)
			}
		}
		return false
	}
	p.batches++
	rec := p.Reader.RecordBatch()
	// The reader trusts the lengths and offsets the client sent; what
	// reads the values after it does too.
	for i, col := range rec.Columns() {
		if int64(col.Len()) != rec.NumRows() {
			p.bad = fmt.Errorf("%w: record batch %d: column %q has %d rows, the batch %d", errBadIPC, p.batches, rec.ColumnName(i), col.Len(), rec.NumRows())
			return false
		}
		if err := array.ValidateFull(col); err != nil {
			p.bad = fmt.Errorf("%w: record batch %d: column %q: %v", errBadIPC, p.batches, rec.ColumnName(i), err)
			return false
		}
	}
	p.st.rows.Add(rec.NumRows())
	p.st.touch()
	return true
}

func (p *putReader) Err() error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	if p.bad != nil {
		return p.bad
	}
	return p.Reader.Err()
}

// putHint tells an error of the TsFile writer that one of
// fromarrow.Options settles in the terms of the DoPut command, whose
// JSON fields are what a Flight client can set; the Go option names mean
// nothing to it.
func putHint(err error) error {
	var oe *fromarrow.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	var hint string
	switch oe.Option {
	case "Table":
		hint = `set "table" in the DoPut command`
	case "KeepLast", "Tags":
		hint = `a TsFile holds one row per device and time: name every column that tells the devices apart in the command's "tags"`
	case "MaxBufferedRows":
		hint = "send each device's rows in time order"
	case "DecimalAsDouble":
		hint = "send it as float64 (DoPut does not round decimals for you)"
	case "TimeUnit":
		// The file is written in the server's unit (Options.TimeUnit,
		// serve's --time-unit), which a TsFile does not record.
		hint = "the server writes timestamps in its time unit (ms unless started with serve --time-unit us or ns); send whole units of it, or use a server started with a finer --time-unit"
	default:
		hint = "fix the records sent"
	}
	return fmt.Errorf("%s; %s", oe.Problem, hint)
}
