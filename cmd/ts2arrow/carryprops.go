package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/tsfile"
)

// carriedProps gathers the footer properties of the TsFile inputs that a
// TsFile output keeps (convert IN.tsfile... -o OUT.tsfile), so that a
// conversion from TsFile to TsFile loses none of them: TsFile 2.5's values
// are bytes, null apart from empty, and go through as they are.
//
// Not carried: the encryption properties and the metadata authentication
// tag, which the writer writes for the output itself; a key whose inputs
// disagree (named in a warning); and tablePointCount.<table>, which counts
// what the input holds, not what is written after --start, --end or
// --columns: when an input has one, the output's is counted again
// (fromarrow.Options.TablePointCount).
type carriedProps struct {
	props  []tsfile.Property
	at     map[string]int  // index in props by key
	differ map[string]bool // keys whose inputs disagree
	count  bool            // an input had a table point count
}

// add takes the footer properties of one input.
func (c *carriedProps) add(props []tsfile.Property) {
	if c.at == nil {
		c.at, c.differ = map[string]int{}, map[string]bool{}
	}
	for _, p := range props {
		switch {
		case p.Key == aead.LegacyPropLevel || p.Key == aead.LegacyPropType || p.Key == aead.LegacyPropKey || p.Key == tsfile.MetadataAuthProperty:
			continue
		case strings.HasPrefix(p.Key, tsfile.TablePointCountPrefix):
			c.count = true
			continue
		}
		i, seen := c.at[p.Key]
		if !seen {
			c.at[p.Key] = len(c.props)
			c.props = append(c.props, tsfile.Property{Key: p.Key, Value: bytes.Clone(p.Value), Null: p.Null})
			continue
		}
		if q := c.props[i]; q.Null != p.Null || !bytes.Equal(q.Value, p.Value) {
			c.differ[p.Key] = true
		}
	}
}

// result returns the properties to write, and warns on stderr of each key
// left out because the inputs disagree on it.
func (c *carriedProps) result(stderr io.Writer, out string) []tsfile.Property {
	var keep []tsfile.Property
	for _, p := range c.props {
		if c.differ[p.Key] {
			fmt.Fprintf(stderr, "ts2arrow: warning: footer property %q differs between the inputs; %s is written without it\n", p.Key, out)
			continue
		}
		keep = append(keep, p)
	}
	return keep
}
