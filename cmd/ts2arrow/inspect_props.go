package main

import (
	be "encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/tsfile"
)

// inspectProperty is one footer property in inspect's JSON, in footer
// order. TsFile 2.5 stores property values as bytes that may be null (Java
// TsFileMetadata: Map<String, byte[]>), so a value is shown as what it
// is: null, text, or bytes.
type inspectProperty struct {
	Key string `json:"key"`
	// Null is true for a null value; the fields below are then absent.
	Null bool `json:"null,omitempty"`
	// Text is the value when it is UTF-8 text without control
	// characters (tab and line breaks aside); absent otherwise.
	Text *string `json:"text,omitempty"`
	// Hex is every byte of a non-null value, "" for an empty one.
	Hex *string `json:"hex,omitempty"`
	// PointCount is the count of a tablePointCount.<table> property:
	// 8 bytes big-endian (TsFile 2.5), or decimal text (an earlier
	// revision of the same tool wrote Long.toString).
	PointCount *int64 `json:"point_count,omitempty"`
}

// isText reports whether a property value reads as text: UTF-8 without
// control characters other than tab and line breaks. An 8-byte count is
// valid UTF-8 (its zero bytes are NUL) but not text.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// pointCount decodes the value of a tablePointCount.<table> property, as
// TsFile 2.5's TsFileIOWriter writes it (BytesUtils.longToBytes: 8 bytes
// big-endian) or as the decimal text an earlier revision wrote. Eight
// decimal digits would be a count above 3.4e18 read as bytes, so they are
// read as text.
func pointCount(key string, p tsfile.Property) (int64, bool) {
	if !strings.HasPrefix(key, tsfile.TablePointCountPrefix) || p.Null {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(p.Value), 10, 64); err == nil && n >= 0 {
		return n, true
	}
	if len(p.Value) == 8 {
		if n := int64(be.BigEndian.Uint64(p.Value)); n >= 0 {
			return n, true
		}
	}
	return 0, false
}

// inspectProperties describes the footer properties of f in footer order,
// leaving out key material (encryptKey).
func inspectProperties(props []tsfile.Property) (byKey map[string]string, list []inspectProperty) {
	byKey, list = map[string]string{}, []inspectProperty{}
	for _, p := range props {
		if p.Key == aead.LegacyPropKey {
			continue
		}
		ip := inspectProperty{Key: p.Key, Null: p.Null}
		if !p.Null {
			h := hex.EncodeToString(p.Value)
			ip.Hex = &h
			if isText(p.Value) {
				s := string(p.Value)
				ip.Text = &s
				byKey[p.Key] = s
			} else {
				byKey[p.Key] = "0x" + h
			}
			if n, ok := pointCount(p.Key, p); ok {
				ip.PointCount = &n
			}
		}
		list = append(list, ip)
	}
	return byKey, list
}

// propertyLine is the text form of a property after "property:": the
// key, then "is null", or "= " and the value: bare text when that cannot
// be mistaken for anything else, else quoted; bytes as 0x and hex; a table
// point count with its count.
func propertyLine(p inspectProperty) string {
	switch {
	case p.Null:
		return p.Key + " is null"
	case p.PointCount != nil:
		v := "0x" + *p.Hex
		if p.Text != nil {
			v = strconv.Quote(*p.Text)
		}
		return fmt.Sprintf("%s = %s (%d points)", p.Key, v, *p.PointCount)
	case p.Text == nil:
		return fmt.Sprintf("%s = 0x%s (%d bytes)", p.Key, *p.Hex, len(*p.Hex)/2)
	}
	t := *p.Text
	if t == "" || strings.HasPrefix(t, "0x") || strings.HasPrefix(t, `"`) || strings.TrimSpace(t) != t ||
		strings.ContainsAny(t, "\t\n\r") || strings.HasSuffix(t, "points)") || strings.HasSuffix(t, "bytes)") {
		t = strconv.Quote(t)
	}
	return p.Key + " = " + t
}
