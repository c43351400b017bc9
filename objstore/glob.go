package objstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Glob returns the URLs of the objects matching a pattern URL (`**` any
// number of segments, `*`, `?`, `[...]`, `{a,b}` as doublestar), listing
// only below the pattern's literal prefix, sorted. The bucket must be
// literal.
func Glob(ctx context.Context, pattern string, o *Options) ([]string, error) {
	s, pat, err := Open(ctx, pattern, o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if !doublestar.ValidatePattern(pat) {
		return nil, fmt.Errorf("objstore: glob %s: bad pattern", pattern)
	}
	objs, err := s.List(ctx, literalPrefix(pat))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, obj := range objs {
		if ok, _ := doublestar.Match(pat, obj.Key); ok {
			out = append(out, s.URL(obj.Key))
		}
	}
	return out, nil
}

// literalPrefix returns the directories of pattern before its first
// special character: every match's key starts with it.
func literalPrefix(pattern string) string {
	i := strings.IndexAny(pattern, `*?[{\`)
	if i < 0 {
		return pattern
	}
	return pattern[:strings.LastIndexByte(pattern[:i], '/')+1]
}
