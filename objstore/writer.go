package objstore

import (
	"cmp"
	"context"
	"errors"

	"gocloud.dev/blob"
)

// Writer uploads one object. Nothing is visible at its key until Commit;
// Abort, or a canceled context, leaves nothing (a multipart upload is
// aborted). Exactly one of Commit or Abort ends it; it is not safe for
// concurrent use.
type Writer struct {
	s      *Store
	key    string
	w      *blob.Writer
	cancel context.CancelFunc
}

// errDone is the error of a Write after Commit or Abort.
var errDone = errors.New("write after Commit or Abort")

// Create starts an upload of key: nothing is visible at key until Commit
// (multipart for large objects); Abort (or a canceled ctx) leaves nothing.
// Exactly one of Commit or Abort ends it.
func (s *Store) Create(ctx context.Context, key string) (*Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, s.errorf("PUT", key, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	bw, err := s.b.NewWriter(ctx, key, &blob.WriterOptions{
		// Our outputs are Parquet, Arrow IPC, CSV and JSON: sniffing the
		// first bytes would only guess, so say nothing specific.
		ContentType: "application/octet-stream",
		// 16 MiB parts: a 10 GB output stays well below S3's 10,000
		// parts, and few requests are sent.
		BufferSize: cmp.Or(s.partSize, 16<<20),
	})
	if err != nil {
		cancel()
		return nil, s.wrap("PUT", key, err)
	}
	return &Writer{s: s, key: key, w: bw, cancel: cancel}, nil
}

// Write appends p to the object.
func (w *Writer) Write(p []byte) (int, error) {
	if w.w == nil {
		return 0, w.s.errorf("PUT", w.key, errDone)
	}
	n, err := w.w.Write(p)
	if err != nil {
		return n, w.s.wrap("PUT", w.key, err)
	}
	return n, nil
}

// Commit completes the upload: the object appears at its key, whole.
func (w *Writer) Commit() error {
	if w.w == nil {
		return w.s.errorf("PUT", w.key, errDone)
	}
	bw := w.w
	w.w = nil
	err := bw.Close()
	w.cancel()
	if err != nil {
		return w.s.wrap("PUT", w.key, err)
	}
	return nil
}

// Abort ends the upload without an object at its key: the context of the
// upload is canceled before the driver's writer is closed, which makes
// gocloud abort a multipart upload (or drop the single-request body)
// instead of completing it.
func (w *Writer) Abort() error {
	if w.w == nil {
		return nil
	}
	bw := w.w
	w.w = nil
	w.cancel()
	_ = bw.Close() // reports the cancellation; nothing was written
	return nil
}
