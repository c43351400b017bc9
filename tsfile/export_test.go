package tsfile

// SkipForTest flushes w and then advances its offset by n bytes that it
// does not write: hole is told to account for them (a sparse sink serves
// them as zeros). Tests use it to place chunk groups and the index beyond
// 4 GiB without writing or holding gigabytes. The skipped bytes are no
// valid structure, so only readers that follow the index (not the
// Scanner or Recover) can read such a file.
func SkipForTest(w *Writer, n int64, hole func(int64)) error {
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		return err
	}
	hole(n)
	w.pos += n
	return nil
}
