package flight

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
)

var writeFuzzCorpus = flag.Bool("write-fuzz-corpus", false, "write each Fuzz target's named seeds to testdata/fuzz/<target>/")

// addSeed adds a one-[]byte seed and, with -write-fuzz-corpus, commits it
// to the target's corpus (go test ./flight -run '^Fuzz' -args
// -write-fuzz-corpus).
func addSeed(f *testing.F, name string, data []byte) {
	f.Helper()
	f.Add(data)
	if !*writeFuzzCorpus {
		return
	}
	dir := filepath.Join("testdata", "fuzz", f.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	b := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		f.Fatal(err)
	}
}

// FuzzQuery feeds command descriptors to the query parser: anything it
// accepts must turn into reader options or a clean errBadQuery.
func FuzzQuery(f *testing.F) {
	for name, s := range map[string]string{
		"minimal":  `{"table":"t"}`,
		"full":     `{"table":"weather","files":["a.tsfile","sub/b.tsfile"],"columns":["temp"],"start":"2026-01-01T00:00:00Z","end":1767225600000,"where":{"region":"north"},"limit":10,"compression":"zstd"}`,
		"dates":    `{"table":"t","start":"2026-01-01","end":"2026-01-02T03:04:05.123456789"}`,
		"escape":   `{"table":"t","files":["../x"]}`,
		"huge":     `{"table":"t","start":"9999-12-31T23:59:59Z"}`,
		"trailing": `{"table":"t"} {}`,
		"types":    `{"table":"t","start":1.5,"limit":-1}`,
	} {
		addSeed(f, name, []byte(s))
	}
	f.Fuzz(func(t *testing.T, cmd []byte) {
		q, err := queryFromDescriptor(&arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: cmd})
		if err != nil {
			if !errors.Is(err, errBadQuery) && !errors.Is(err, errOutsideRoot) {
				t.Fatalf("error not classified: %v", err)
			}
			return
		}
		for _, unit := range []arrow.TimeUnit{arrow.Second, arrow.Nanosecond} {
			o, err := q.options(unit)
			if err != nil {
				if !errors.Is(err, errBadQuery) {
					t.Fatalf("options error not classified: %v", err)
				}
				continue
			}
			if o.Time != nil && o.Time.Start > o.Time.End {
				t.Fatalf("reversed range %+v accepted", o.Time)
			}
		}
		for _, p := range q.Files {
			if checkRel(p) != nil {
				t.Fatalf("file %q accepted", p)
			}
		}
	})
}

// FuzzTicket feeds tickets to the verifier: only a ticket signed with the
// key may pass, so every mutation of a valid one must fail cleanly.
func FuzzTicket(f *testing.F) {
	key := []byte("fuzzing key, sixteen+ bytes long")
	s := &signer{key: key, now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
	start, end := int64(5), int64(9)
	good, err := s.sign(&grant{Expires: 1_900_000_000, Table: "weather", Columns: []string{"temp"}, Start: &start, End: &end,
		Where: map[string]string{"region": "north"}, Limit: 3, Parts: []part{{File: "a.tsfile", Version: "10:20", Lo: 0, Hi: 2}}})
	if err != nil {
		f.Fatal(err)
	}
	addSeed(f, "valid", good)
	addSeed(f, "empty", nil)
	addSeed(f, "version-only", []byte{ticketVersion})
	addSeed(f, "unsigned-json", append([]byte{ticketVersion}, `{"t":"weather","p":[]}`...))
	f.Fuzz(func(t *testing.T, tk []byte) {
		g, err := s.verify(tk)
		if err != nil {
			if !errors.Is(err, errBadTicket) && !errors.Is(err, errStale) {
				t.Fatalf("error not classified: %v", err)
			}
			return
		}
		// Any other accepted ticket would be a forgery.
		if string(tk) != string(good) {
			t.Fatalf("accepted a ticket the key did not sign: %q -> %+v", tk, g)
		}
	})
}
