package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
)

// The performance table of docs/benchmarks.md (until issue 37 it was in
// the README) is written from the committed benchmarks/RESULTS.md, never
// by hand (issue 35: three hand-typed figures had drifted from the run
// they cited): `report -doc docs/benchmarks.md -from RESULTS.md` rewrites
// what lies between these markers, benchmarks/run does so after a full
// run, and TestDocPerformanceTable fails when the page's block is not what
// the committed RESULTS.md gives. The page lives in docs/, so its link to
// RESULTS.md goes up a level.
const (
	readmeBegin = "<!-- performance table: written by benchmarks/cmd/report -doc from benchmarks/RESULTS.md; do not edit -->"
	readmeEnd   = "<!-- end of performance table -->"
)

// mdRow is one row of a RESULTS.md table.
type mdRow struct {
	section                                               string
	Case, Figure, Peer, Ratio, Limit, XLimit, Target, Met string
}

// parsedResults is what the performance table takes from RESULTS.md.
type parsedResults struct {
	run    string // the "Run: ..." line, without "Run: "
	totals string // the "Targets met: ..." line
	rows   []mdRow
}

// parseResultsMD reads RESULTS.md as writeMarkdown writes it.
func parseResultsMD(text string) (parsedResults, error) {
	var p parsedResults
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Run: "):
			p.run = strings.TrimSuffix(strings.TrimPrefix(line, "Run: "), ".")
		case strings.HasPrefix(line, "Targets met: "):
			p.totals = line
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		case strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| case |") && !strings.HasPrefix(line, "| --- |"):
			cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
			if len(cells) != 8 {
				return p, fmt.Errorf("RESULTS.md: a table row of %d cells, not 8: %s", len(cells), line)
			}
			p.rows = append(p.rows, mdRow{section, cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7]})
		}
	}
	if err := sc.Err(); err != nil {
		return p, err
	}
	if p.run == "" || len(p.rows) == 0 {
		return p, errors.New("RESULTS.md: no \"Run:\" line or no table rows; is it benchmarks/cmd/report's output?")
	}
	return p, nil
}

// readmeTable returns docs/benchmarks.md's performance block (markers included)
// for the RESULTS.md text: every case with a target outside the decoder
// table (section 1, whose five targets RESULTS.md lists with the other
// decoders), with its figure, what it is measured against, the target and
// whether it was met, then RESULTS.md's count of targets met.
func readmeTable(results string) (string, error) {
	p, err := parseResultsMD(results)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintln(&b, readmeBegin)
	fmt.Fprintf(&b, "From [benchmarks/RESULTS.md](../benchmarks/RESULTS.md), run: %s.\n\n", p.run)
	fmt.Fprintln(&b, "| case | tsarrow | against | target | met |")
	fmt.Fprintln(&b, "| --- | --- | --- | --- | --- |")
	for _, r := range p.rows {
		if strings.HasPrefix(r.section, "1. ") || r.Met == "-" {
			continue
		}
		against := "-"
		switch {
		case r.Peer != "-" && r.Ratio != "-":
			against = r.Ratio + " (" + r.Peer + ")"
		case r.Limit != "-" && r.XLimit != "-":
			against = r.XLimit + " (" + r.Limit + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Case, r.Figure, against, r.Target, r.Met)
	}
	if p.totals != "" {
		fmt.Fprintf(&b, "\n%s\n", p.totals)
	}
	fmt.Fprint(&b, readmeEnd)
	return b.String(), nil
}

// replaceReadmeTable returns readme with the text between its markers
// (the markers included) replaced by block.
func replaceReadmeTable(readme, block string) (string, error) {
	i := strings.Index(readme, readmeBegin)
	j := strings.Index(readme, readmeEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("no performance table markers (%q ... %q)", readmeBegin, readmeEnd)
	}
	return readme[:i] + block + readme[j+len(readmeEnd):], nil
}

// currentReadmeTable returns the block between the page's markers.
func currentReadmeTable(readme string) (string, error) {
	i := strings.Index(readme, readmeBegin)
	j := strings.Index(readme, readmeEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("no performance table markers (%q ... %q)", readmeBegin, readmeEnd)
	}
	return readme[i : j+len(readmeEnd)], nil
}
