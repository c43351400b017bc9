package fromarrow

import "github.com/apache/arrow-go/v18/arrow"

func fieldNames(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}
