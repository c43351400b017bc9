package tsfile

// AlignedColumns is every row of an aligned device: its timestamps and one
// column per requested measurement (null where a row has no value).
type AlignedColumns struct {
	Times   []int64
	Columns map[string]*Values
}

// ReadAligned decodes every row of an aligned device, for the series in
// series (as returned by Series). It materialises the device in memory and
// is meant for tests, tools and small files; arrowconv streams instead.
func (f *File) ReadAligned(series []TimeseriesMetadata) (*AlignedColumns, error) {
	sets, err := AlignedChunkSets(series)
	if err != nil {
		return nil, err
	}
	out := &AlignedColumns{Columns: map[string]*Values{}}
	types := map[string]DataType{}
	for i := range series {
		if series[i].IsValueColumn() {
			types[series[i].Measurement] = series[i].DataType
			v := NewValues(series[i].DataType, 0)
			v.Null = []bool{}
			out.Columns[series[i].Measurement] = &v
		}
	}
	var pd PayloadDecoder
	for _, set := range sets {
		tc, err := f.ReadChunk(set.Time.Offset)
		if err != nil {
			if f.SkipLostChunk(err, true) {
				continue // the set's rows are gone with its time page
			}
			return nil, err
		}
		if !tc.Header.IsTimeChunk() {
			return nil, corruptf(tc.Header.Offset, "chunk header", "time series points at a chunk with marker 0x%02x", tc.Header.Marker)
		}
		var pageCounts []int
		for i := range tc.Pages {
			p, err := pd.Payload(tc, i)
			if err != nil {
				return nil, err
			}
			p = f.TimePayload(&tc.Header, p, tc.Pages[i].Header.BodyOffset())
			before := len(out.Times)
			out.Times, err = decodeTimes(&tc.Header, p, tc.Pages[i].Header.BodyOffset(), out.Times, f.opts.MaxPagePoints)
			if err != nil {
				return nil, err
			}
			if err := f.verifyPage(tc, i, &set.Time.Statistics, func(s *Statistics) error { return s.CheckTimes(out.Times[before:]) }); err != nil {
				return nil, err
			}
			if err := f.checkOrder(tc, i, out.Times[:before], out.Times[before:], i > 0); err != nil {
				return nil, err
			}
			pageCounts = append(pageCounts, len(out.Times)-before)
		}
		for name, col := range out.Columns {
			cm, ok := set.Values[name]
			if !ok {
				appendValues(col, nullValues(types[name], sumInts(pageCounts)))
				continue
			}
			vc, err := f.ReadChunk(cm.Offset)
			if err != nil {
				if f.SkipLostChunk(err, false) {
					appendValues(col, nullValues(types[name], sumInts(pageCounts)))
					continue
				}
				return nil, err
			}
			if err := f.checkValueChunk(&vc.Header, name, types[name]); err != nil {
				return nil, err
			}
			if len(vc.Pages) == 0 {
				appendValues(col, nullValues(types[name], sumInts(pageCounts)))
				continue
			}
			if f.CPPLayout() {
				if err := f.appendByRows(col, &pd, vc, &cm.Statistics, pageCounts); err != nil {
					return nil, err
				}
				continue
			}
			if len(vc.Pages) != len(tc.Pages) {
				return nil, corruptf(vc.Header.Offset, "chunk header", "value chunk %q has %d pages, its time chunk %d", name, len(vc.Pages), len(tc.Pages))
			}
			for i := range vc.Pages {
				if vc.Pages[i].Header.Empty() {
					appendValues(col, nullValues(types[name], pageCounts[i]))
					continue
				}
				p, err := pd.Payload(vc, i)
				if err != nil {
					return nil, err
				}
				v, err := decodeValuePage(&vc.Header, p, vc.Pages[i].Header.BodyOffset(), pageCounts[i])
				if err != nil {
					return nil, err
				}
				if err := f.verifyPage(vc, i, &cm.Statistics, func(s *Statistics) error { return checkPageValues(s, &v, vc.Header.Encoding) }); err != nil {
					return nil, err
				}
				f.notePageQuirk(&v, &vc.Pages[i].Header)
				appendValues(col, v)
			}
		}
	}
	return out, nil
}

// verifyPage checks decoded page i of chunk c with check against the
// page's statistics (or cm, the chunk's, for a chunk of one page), unless
// ReadOptions.NoVerify; a contradiction is ErrCorrupt, a warning under
// ReadOptions.Lenient, when the decoded values are kept.
func (f *File) verifyPage(c *Chunk, i int, cm *Statistics, check func(*Statistics) error) error {
	if f.opts.NoVerify {
		return nil
	}
	st, fromChunk := PageStatistics(&c.Pages[i].Header, cm)
	if st == nil {
		return nil
	}
	if m := check(st); m != nil {
		return f.TolerateMismatch("", &c.Header, i, &c.Pages[i].Header, fromChunk, m)
	}
	return nil
}

// checkOrder checks that the timestamps ts of page i of chunk c strictly
// increase, and, when samePrev says the last of before ends the page
// before in the same chunk, that they start after it (see Unordered).
// Under Lenient a failure is a warning, and the points stay in page order.
func (f *File) checkOrder(c *Chunk, i int, before, ts []int64, samePrev bool) error {
	if f.opts.NoVerify {
		return nil
	}
	var prev int64
	hasPrev := samePrev && len(before) > 0
	if hasPrev {
		prev = before[len(before)-1]
	}
	return f.Tolerate(CheckTimeOrder("", &c.Header, i, &c.Pages[i].Header, prev, hasPrev, ts))
}

// notePageQuirk notes the writer quirk the values of the page with header
// p were decoded around, if any.
func (f *File) notePageQuirk(v *Values, p *PageHeader) {
	if v.quirk != 0 {
		f.NoteQuirk(v.quirk, p.Offset, "page")
	}
}

func (f *File) checkValueChunk(h *ChunkHeader, name string, t DataType) error {
	if !f.AsValueChunk(h) || h.Measurement != name || h.DataType != t {
		return corruptf(h.Offset, "chunk header", "expected the %s value chunk of %q, found marker 0x%02x %q %s", t, name, h.Marker, h.Measurement, h.DataType)
	}
	return nil
}

// ReadNonAligned decodes every point of a non-aligned series.
func (f *File) ReadNonAligned(ts *TimeseriesMetadata) ([]int64, Values, error) {
	vals := NewValues(ts.DataType, 0)
	var times []int64
	var pd PayloadDecoder
	for _, cm := range ts.Chunks {
		c, err := f.ReadChunk(cm.Offset)
		if err != nil {
			if f.SkipLostSeriesChunk(err, LostSeriesChunkWarning) {
				continue
			}
			return nil, Values{}, err
		}
		if c.Header.IsAligned() || c.Header.Measurement != ts.Measurement || c.Header.DataType != ts.DataType {
			return nil, Values{}, corruptf(c.Header.Offset, "chunk header", "expected the non-aligned chunk of %q", ts.Measurement)
		}
		if err := CheckEmptyChunk(c, &cm); err != nil {
			return nil, Values{}, err
		}
		for i := range c.Pages {
			p, err := pd.Payload(c, i)
			if err != nil {
				return nil, Values{}, err
			}
			t, v, err := decodeNonAlignedPage(&c.Header, f.opts.NonAlignedTimeEncoding.Encoding(), p, c.Pages[i].Header.BodyOffset(), f.opts.MaxPagePoints)
			if err != nil {
				return nil, Values{}, err
			}
			err = f.verifyPage(c, i, &cm.Statistics, func(s *Statistics) error {
				if err := s.CheckTimes(t); err != nil {
					return err
				}
				return checkPageValues(s, &v, c.Header.Encoding)
			})
			if err != nil {
				return nil, Values{}, err
			}
			if err := f.checkOrder(c, i, times, t, i > 0); err != nil {
				return nil, Values{}, err
			}
			f.notePageQuirk(&v, &c.Pages[i].Header)
			times = append(times, t...)
			appendValues(&vals, v)
		}
	}
	return times, vals, nil
}

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// appendValues appends src to dst, keeping dst.Null in step when either
// side has nulls.
func appendValues(dst *Values, src Values) {
	n0 := dst.Len()
	if dst.Null != nil || src.Null != nil {
		if dst.Null == nil {
			dst.Null = make([]bool, n0)
		}
		if src.Null != nil {
			dst.Null = append(dst.Null, src.Null...)
		} else {
			dst.Null = append(dst.Null, make([]bool, src.Len())...)
		}
	}
	dst.Bools = append(dst.Bools, src.Bools...)
	dst.Int32s = append(dst.Int32s, src.Int32s...)
	dst.Int64s = append(dst.Int64s, src.Int64s...)
	dst.Float32s = append(dst.Float32s, src.Float32s...)
	dst.Float64s = append(dst.Float64s, src.Float64s...)
	dst.Binaries = append(dst.Binaries, src.Binaries...)
}

// appendByRows appends the pages of value chunk vc to col by the rows each
// covers, its position_count, rather than page by page with the time
// chunk's pages (QuirkValuePageRows), noting the quirk when the two
// differ. Rows past the last value page are null: the C++ writer seals no
// page for trailing nulls. An empty page covers its time page's rows, as
// in a conformant file.
func (f *File) appendByRows(col *Values, pd *PayloadDecoder, vc *Chunk, cm *Statistics, pageCounts []int) error {
	total, rows := sumInts(pageCounts), 0
	quirk := len(vc.Pages) != len(pageCounts)
	for i := range vc.Pages {
		n := 0
		if i < len(pageCounts) {
			n = pageCounts[i]
		}
		if vc.Pages[i].Header.Empty() {
			appendValues(col, nullValues(vc.Header.DataType, n))
			rows += n
			continue
		}
		p, err := pd.Payload(vc, i)
		if err != nil {
			return err
		}
		off := vc.Pages[i].Header.BodyOffset()
		n, _, _, err = SplitValuePage(p, off)
		if err != nil {
			return err
		}
		if i >= len(pageCounts) || n != pageCounts[i] {
			quirk = true
		}
		if rows+n > total {
			return corruptf(off, "aligned value page", "value chunk %q covers %d rows by its pages' position counts, its time chunk %d", vc.Header.Measurement, rows+n, total)
		}
		v, err := decodeValuePage(&vc.Header, p, off, n)
		if err != nil {
			return err
		}
		if err := f.verifyPage(vc, i, cm, func(s *Statistics) error { return checkPageValues(s, &v, vc.Header.Encoding) }); err != nil {
			return err
		}
		f.notePageQuirk(&v, &vc.Pages[i].Header)
		appendValues(col, v)
		rows += n
	}
	if rows < total {
		quirk = true
		appendValues(col, nullValues(vc.Header.DataType, total-rows))
	}
	if quirk {
		f.NoteQuirk(QuirkValuePageRows, vc.Header.Offset, "aligned value chunk")
	}
	return nil
}
