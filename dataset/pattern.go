package dataset

import (
	"errors"
	"strings"

	"github.com/tsarrow/tsarrow/tsfile"
)

// Wildcards of a tree-model path pattern.
const (
	// OneLevelWildcard matches one node; inside a node ("s*") it matches
	// any run of characters of that node.
	OneLevelWildcard = "*"
	// MultiLevelWildcard matches one or more whole nodes.
	MultiLevelWildcard = "**"
)

// errBadPattern is the cause of a pattern ParsePattern refuses.
var errBadPattern = errors.New("dataset: bad path pattern")

// Pattern is a tree-model path pattern such as "root.sg.*.s1" or
// "root.sg.**", as a deletion names the series it removes: a sequence of
// nodes where "*" matches one node, a node holding "*" matches the nodes
// it globs, and "**" matches one or more nodes. The zero Pattern matches
// nothing.
type Pattern struct {
	path  string
	nodes []string
}

// ParsePattern splits a path pattern into nodes at the dots outside
// backquotes, normalizing each node as tsfile.ParseTreePath does (blanks
// trimmed, redundant backquotes dropped), so a pattern and the nodes of a
// device read from a file (DeviceNodes) compare node by node.
//
// IoTDB validates paths with its SQL grammar (PathUtils.splitPathToDetachedNodes);
// this parser only refuses what cannot be a path at all: an empty
// pattern, an empty node and an unclosed backquote. It does not insist on
// a leading "root", so patterns written by other tools still apply.
func ParsePattern(path string) (Pattern, error) {
	if path == "" {
		return Pattern{}, errBadPattern
	}
	if !backquotesClosed(path) {
		return Pattern{}, errBadPattern
	}
	p := newPattern(path)
	for _, n := range p.nodes {
		if n == "" {
			return Pattern{}, errBadPattern
		}
	}
	return p, nil
}

// newPattern splits path into nodes without checking them.
func newPattern(path string) Pattern {
	return Pattern{path: path, nodes: DeviceNodes(tsfile.ParseTreePath(path))}
}

// backquotesClosed reports whether every backquote opened in path is
// closed, a doubled backquote inside a quoted node being an escaped one.
func backquotesClosed(path string) bool {
	quoted := false
	for i := 0; i < len(path); i++ {
		if path[i] != '`' {
			continue
		}
		if quoted && i+1 < len(path) && path[i+1] == '`' {
			i++
			continue
		}
		quoted = !quoted
	}
	return !quoted
}

// DeviceNodes returns the path nodes of a tree-model device: the first
// segment of its DeviceID (which folds up to three nodes, "root.sg.d1")
// split at the dots outside backquotes, then the remaining segments. A
// node holding a dot keeps its backquotes in the segment, so the split
// is exact.
func DeviceNodes(id tsfile.DeviceID) []string {
	segs := id.Segments()
	if len(segs) == 0 {
		return nil
	}
	nodes := splitUnquoted(segs[0].Value)
	for _, s := range segs[1:] {
		nodes = append(nodes, s.Value)
	}
	return nodes
}

// splitUnquoted cuts s at the dots outside backquotes.
func splitUnquoted(s string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '`' && quoted && i+1 < len(s) && s[i+1] == '`':
			i++
		case c == '`':
			quoted = !quoted
		case c == '.' && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// String returns the pattern as it was written.
func (p Pattern) String() string { return p.path }

// Nodes returns a copy of the pattern's nodes.
func (p Pattern) Nodes() []string { return append([]string(nil), p.nodes...) }

// IsZero reports whether p is the zero Pattern.
func (p Pattern) IsZero() bool { return len(p.nodes) == 0 }

// Match reports whether the series measurement of the device with the
// given nodes is one the pattern names.
//
// IoTDB: PartialPath.matchFullPath (node-commons), used by
// TreeDeletionEntry.matches.
func (p Pattern) Match(device []string, measurement string) bool {
	if p.IsZero() {
		return false
	}
	return matchNodes(p.nodes, device, measurement, true)
}

// MatchDevice reports whether the pattern can name some series of the
// device: its device part matches the device, or, when it ends with "**",
// the whole pattern matches the device path (root.sg.** names every
// series of root.sg.d1). It is true for a device some of whose series the
// deletion may touch; the measurements are decided by MatchMeasurement.
//
// IoTDB: TreeDeletionEntry.affects(IDeviceID).
func (p Pattern) MatchDevice(device []string) bool {
	n := len(p.nodes)
	if n == 0 {
		return false
	}
	if matchNodes(p.nodes[:n-1], device, "", false) {
		return true
	}
	return p.nodes[n-1] == MultiLevelWildcard && matchNodes(p.nodes, device, "", false)
}

// MatchMeasurement reports whether the pattern's last node matches the
// measurement name alone.
//
// IoTDB: TreeDeletionEntry.affects(String), PathPatternUtil.isNodeMatch.
func (p Pattern) MatchMeasurement(measurement string) bool {
	if p.IsZero() {
		return false
	}
	return nodeMatch(p.nodes[len(p.nodes)-1], measurement)
}

// CoversDevice reports whether the pattern names every series of the
// device, whatever its measurements: it matches the device's path
// followed by an empty measurement, the placeholder IoTDB uses for
// "all columns" (AlignedPath.VECTOR_PLACEHOLDER). A reader may then drop
// the device's time column too.
//
// IoTDB: TreeDeletionEntry.affectsAll.
func (p Pattern) CoversDevice(device []string) bool {
	return p.Match(device, "")
}

// matchNodes reports whether pattern matches path, where path is device
// followed by measurement when withMeasurement is set. It computes IoTDB's
// recursive matchPath (pathIsPrefix false) as a dynamic programme, one row
// per path node, so a pattern of many "**" cannot take exponential time:
// "**" consumes one path node and then either ends or keeps consuming.
func matchNodes(pattern, device []string, measurement string, withMeasurement bool) bool {
	n := len(device)
	if withMeasurement {
		n++
	}
	node := func(i int) string {
		if i < len(device) {
			return device[i]
		}
		return measurement
	}
	m := len(pattern)
	// next[j] is whether path[i+1:] matches pattern[j:]; cur the same for path[i:].
	next := make([]bool, m+1)
	cur := make([]bool, m+1)
	next[m] = true // the empty path matches the empty pattern
	for i := n - 1; i >= 0; i-- {
		cur[m] = false
		for j := m - 1; j >= 0; j-- {
			if pattern[j] == MultiLevelWildcard {
				cur[j] = next[j+1] || next[j]
			} else {
				cur[j] = next[j+1] && nodeMatch(pattern[j], node(i))
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// nodeMatch matches one pattern node against one path node: "*" and "**"
// match anything, a node holding "*" is a glob where "*" is any run of
// characters, any other node must be equal.
//
// IoTDB turns such a node into a Java regular expression by replacing "*"
// with ".*" (PathPatternUtil.isNodeMatch), so other regex characters in a
// node would act as regex there; node names of IoTDB's grammar hold none
// outside backquotes, and here every other character is literal.
func nodeMatch(pattern, node string) bool {
	if pattern == OneLevelWildcard || pattern == MultiLevelWildcard {
		return true
	}
	if !strings.Contains(pattern, OneLevelWildcard) || pattern[0] == '`' {
		// A backquoted node is a name, stars and all.
		return pattern == node
	}
	return glob(pattern, node)
}

// glob matches s against a pattern whose only metacharacter is "*",
// backtracking to the last star only, so it runs in O(len(p)*len(s)).
func glob(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			mark++
			pi, si = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
