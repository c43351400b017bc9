package flight

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// errBadTicket reports a ticket that this server did not issue, that was
// altered, or that has expired (codes.PermissionDenied, or
// codes.FailedPrecondition when only expired or planned on a file that
// has since changed).
var errBadTicket = errors.New("flight: invalid ticket")

var errStale = errors.New("flight: stale ticket")

// ticketVersion leads every ticket so that the layout can change without
// old tickets being misread.
const ticketVersion = 1

// ticketVersionDataset leads the tickets of a data directory's table
// (grant.Dataset set, no parts). A version of its own, so that a server
// that does not know data directories refuses such a ticket rather than
// reading its empty parts as "no rows".
const ticketVersionDataset = 2

// maxTicketSize bounds what DoGet accepts before verifying anything.
const maxTicketSize = 1 << 20

// grant is what a ticket authorizes: one table, the filters of the query it
// was planned for, and the partitions to stream, in order. Every field is
// covered by the signature, so a client can neither widen the filters nor
// point a part at another file.
type grant struct {
	Expires     int64             `json:"exp"` // Unix seconds
	Table       string            `json:"t"`
	Tree        bool              `json:"tree,omitempty"`
	Columns     []string          `json:"c"` // null (every column) is not [] (time only)
	Start       *int64            `json:"s,omitempty"`
	End         *int64            `json:"e,omitempty"`
	Where       map[string]string `json:"w,omitempty"`
	Limit       int64             `json:"l,omitempty"`
	Compression string            `json:"z,omitempty"`
	Parts       []part            `json:"p"`
	// Dataset is set, and Parts empty, for a data directory's resolved
	// table (ticketVersionDataset).
	Dataset *datasetGrant `json:"ds,omitempty"`
}

// part is a device range of one file: devices [Lo, Hi) of File.Devices of
// the table in the file version Version identifies.
type part struct {
	File    string `json:"f"`
	Version string `json:"v"`
	Lo      int    `json:"lo"`
	Hi      int    `json:"hi"`
}

// signer issues and verifies tickets: version byte || JSON grant ||
// HMAC-SHA256(key, version byte || JSON grant).
type signer struct {
	key []byte
	now func() time.Time
}

func (s *signer) sign(g *grant) ([]byte, error) {
	body, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 1+len(body)+sha256.Size)
	if g.Dataset != nil {
		out = append(out, ticketVersionDataset)
	} else {
		out = append(out, ticketVersion)
	}
	out = append(out, body...)
	m := hmac.New(sha256.New, s.key)
	m.Write(out)
	return m.Sum(out), nil
}

func (s *signer) verify(t []byte) (*grant, error) {
	if len(t) > maxTicketSize {
		return nil, fmt.Errorf("%w: %d bytes", errBadTicket, len(t))
	}
	if len(t) < 1+sha256.Size+2 || (t[0] != ticketVersion && t[0] != ticketVersionDataset) {
		return nil, fmt.Errorf("%w: not issued by this server", errBadTicket)
	}
	signed, mac := t[:len(t)-sha256.Size], t[len(t)-sha256.Size:]
	m := hmac.New(sha256.New, s.key)
	m.Write(signed)
	if !hmac.Equal(mac, m.Sum(nil)) {
		return nil, fmt.Errorf("%w: signature does not match", errBadTicket)
	}
	var g grant
	if err := json.Unmarshal(signed[1:], &g); err != nil {
		// Only this server's key signs, so this is a key shared with a
		// server of another version.
		return nil, fmt.Errorf("%w: %v", errBadTicket, err)
	}
	if (t[0] == ticketVersionDataset) != (g.Dataset != nil) || g.Dataset != nil && len(g.Parts) > 0 {
		// Signed by this key, so again a server of another version.
		return nil, fmt.Errorf("%w: version %d does not match its content", errBadTicket, t[0])
	}
	if s.now().Unix() > g.Expires {
		return nil, fmt.Errorf("%w: expired at %s", errStale, time.Unix(g.Expires, 0).UTC().Format(time.RFC3339))
	}
	return &g, nil
}
