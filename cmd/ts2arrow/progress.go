package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress draws a one-line progress bar on a terminal: rows and bytes
// done, the rate and the time left. It is off unless stderr is a
// terminal, so pipes, files and CI logs stay clean.
type progress struct {
	w          io.Writer
	on         bool
	totalRows  int64 // estimate from the index statistics; 0 if unknown
	totalBytes int64 // the inputs' sizes

	mu     sync.Mutex
	rows   int64
	bytes  int64
	start  time.Time
	drawn  time.Time
	width  int
	closed bool
}

// isTerminal reports whether w is a terminal that is not declared dumb.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("TERM") != "dumb" && term.IsTerminal(int(f.Fd()))
}

// termWidth is the width of the terminal w, or 80 when it cannot tell.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

func newProgress(w io.Writer, on bool, totalRows, totalBytes int64) *progress {
	p := &progress{w: w, on: on, totalRows: totalRows, totalBytes: totalBytes, start: time.Now(), width: 80}
	if on {
		// One column short of the edge: a line that fills it wraps on
		// some terminals, and a wrapped line cannot be redrawn with \r.
		p.width = termWidth(w) - 1
	}
	return p
}

// addRows counts rows written.
func (p *progress) addRows(n int64) {
	p.mu.Lock()
	p.rows += n
	p.mu.Unlock()
	p.draw(false)
}

// addBytes counts input bytes read.
func (p *progress) addBytes(n int64) {
	p.mu.Lock()
	p.bytes += n
	p.mu.Unlock()
	p.draw(false)
}

// finish draws the final state at 100% and ends the line; after an error
// (ok false) it ends the line where the bar stood.
func (p *progress) finish(ok bool) {
	if !p.on {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if ok {
		p.totalRows, p.totalBytes = p.rows, max(p.bytes, 1)
	}
	p.mu.Unlock()
	p.draw(true)
	p.mu.Lock()
	p.closed = true
	fmt.Fprintln(p.w)
	p.mu.Unlock()
}

func (p *progress) draw(force bool) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.closed || (!force && (p.rows == 0 || now.Sub(p.drawn) < 100*time.Millisecond)) {
		// Nothing to show before the first rows: the first bytes read
		// are the file's magic.
		return
	}
	p.drawn = now
	elapsed := now.Sub(p.start).Seconds()
	frac := -1.0
	switch {
	case p.totalRows > 0:
		frac = float64(p.rows) / float64(p.totalRows)
	case p.totalBytes > 0:
		frac = float64(p.bytes) / float64(p.totalBytes)
	}
	frac = min(frac, 1)
	stats := fmt.Sprintf(" %s rows %s", count(p.rows), size(p.bytes))
	if elapsed > 0 {
		stats += fmt.Sprintf(" %s rows/s", count(int64(float64(p.rows)/elapsed)))
	}
	if frac > 0 && frac < 1 && elapsed > 0.5 {
		left := time.Duration(elapsed * (1 - frac) / frac * float64(time.Second))
		stats += " ETA " + left.Round(time.Second).String()
	}
	var line string
	if frac >= 0 {
		pct := fmt.Sprintf("%3.0f%%", 100*frac)
		bar := max(10, min(50, p.width-len(stats)-len(pct)-4))
		full := int(frac * float64(bar))
		line = "[" + strings.Repeat("=", full) + strings.Repeat(" ", bar-full) + "] " + pct + stats
	} else {
		line = "converting" + stats
	}
	if len(line) > p.width {
		line = line[:max(p.width, 1)]
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
}

func count(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fG", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// countingReaderAt counts the bytes read through it into a progress.
type countingReaderAt struct {
	r interface {
		ReadAt([]byte, int64) (int, error)
	}
	p *progress
}

func (c *countingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.p.addBytes(int64(n))
	return n, err
}
