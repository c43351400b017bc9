package iceref

import (
	"errors"
	"fmt"
	"strings"
)

// Prefix starts every input that names an Iceberg table.
const Prefix = "iceberg:"

// Form is the spelling of an Iceberg input, as error messages name it.
const Form = "iceberg:CATALOG#NAMESPACE.TABLE (iceberg:sqlite:cat.db#iot.weather, iceberg:postgres://host/db#iot.weather)"

// ErrInput is returned for an input that starts with Prefix but is not
// of the Form.
var ErrInput = errors.New("iceref: bad Iceberg input")

// Ref is a parsed Iceberg input: the catalog URI (as icesync.OpenCatalog
// and ts2arrow sync's --catalog take it) and the table's identifier.
type Ref struct {
	// Catalog is the catalog URI: sqlite:PATH, postgres://..., ...
	Catalog string
	// Namespace is the table's namespace, one element per level.
	Namespace []string
	// Table is the table's name in Namespace.
	Table string
}

// String spells r back as an input.
func (r Ref) String() string {
	return Prefix + r.Catalog + "#" + r.Name()
}

// Name is NAMESPACE.TABLE.
func (r Ref) Name() string {
	return strings.Join(append(r.Namespace[:len(r.Namespace):len(r.Namespace)], r.Table), ".")
}

// IsInput reports whether s is meant as an Iceberg input (it may still
// be malformed: ParseInput says).
func IsInput(s string) bool { return strings.HasPrefix(s, Prefix) }

// ParseInput parses iceberg:CATALOG#NAMESPACE.TABLE. The '#' splits the
// catalog URI from the table's name (a catalog URI holds no fragment, and
// a local path holding '#' would make the split a guess, so a second '#'
// is refused); the last '.' of the name splits the namespace, whose own
// dots separate its levels, as ts2arrow sync's --to does. Anything
// missing or empty is an ErrInput naming the Form.
func ParseInput(s string) (Ref, error) {
	rest, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return Ref{}, fmt.Errorf("%w %q: want %s", ErrInput, s, Form)
	}
	bad := func(what string) (Ref, error) {
		return Ref{}, fmt.Errorf("%w %q: %s; want %s", ErrInput, s, what, Form)
	}
	if strings.ContainsAny(rest, "\x00\n\r") {
		return bad("control characters")
	}
	switch strings.Count(rest, "#") {
	case 0:
		return bad("no '#' between the catalog and NAMESPACE.TABLE")
	case 1:
	default:
		return bad("more than one '#'")
	}
	cat, name, _ := strings.Cut(rest, "#")
	switch {
	case cat == "":
		return bad("no catalog before '#'")
	case IsInput(cat):
		return bad("iceberg: given twice")
	case name == "":
		return bad("no NAMESPACE.TABLE after '#'")
	}
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return bad("the table name has no namespace")
	}
	ns := strings.Split(name[:dot], ".")
	for _, p := range ns {
		if p == "" {
			return bad("an empty namespace level")
		}
	}
	if name[dot+1:] == "" {
		return bad("an empty table name")
	}
	return Ref{Catalog: cat, Namespace: ns, Table: name[dot+1:]}, nil
}
