package config

import (
	"bytes"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// lineIndex converts byte offsets into 1-based line and column numbers.
// Columns count bytes, as Go's own tools do, so a position is exact whatever
// the file's characters. hujson's tree carries byte offsets; the index is
// built once per file so that each lookup is a binary search.
type lineIndex struct {
	path string
	// starts[i] is the offset of the first byte of line i+1.
	starts []int
	size   int
}

func newLineIndex(path string, data []byte) lineIndex {
	starts := make([]int, 1, 1+bytes.Count(data, []byte{'\n'}))
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, off)
	}
	return lineIndex{path: path, starts: starts, size: len(data)}
}

// pos returns the position of the byte at off. Offsets outside the data are
// clamped, so a position is always valid: line ≥ 1, column ≥ 1, and the line
// exists in the file.
func (ix lineIndex) pos(off int) messages.Position {
	off = max(0, min(off, ix.size))
	line := sort.Search(len(ix.starts), func(i int) bool { return ix.starts[i] > off }) - 1
	return messages.Position{Path: ix.path, Line: line + 1, Column: off - ix.starts[line] + 1}
}

// jsonString is a decoded JSON string literal together with where its raw
// text starts in the file, so that a byte of the decoded value (say the $
// of an unset ${VAR}) can be pointed at exactly.
type jsonString struct {
	value string
	raw   hujson.Literal // including the quotes
	start int            // file offset of the opening quote
}

// decodeString decodes a string literal. The common case, no escapes and
// valid UTF-8, needs no allocation beyond the string itself; anything else
// goes through encoding/json (via hujson), which is authoritative.
func decodeString(lit hujson.Literal, start int) jsonString {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return jsonString{value: string(inner), raw: lit, start: start}
	}
	return jsonString{value: lit.String(), raw: lit, start: start}
}

// offset maps a byte index of the decoded value to the file offset of the
// raw character that produced it. It follows encoding/json's decoding:
// escapes, surrogate pairs, and invalid bytes or lone surrogates decoded as
// U+FFFD. If the walk does not account for the decoded value exactly (it
// always should), it answers the opening quote, which is still a true
// position for the string.
func (s jsonString) offset(decoded int) int {
	raw := s.raw[1 : len(s.raw)-1]
	d := 0
	for i := 0; i < len(raw); {
		if d >= decoded {
			return s.start + 1 + i
		}
		rawLen, decLen := stepRaw(raw[i:])
		i += rawLen
		d += decLen
	}
	if d == len(s.value) && decoded >= d {
		return s.start + 1 + len(raw)
	}
	return s.start
}

// stepRaw measures the first character of a raw JSON string body: how many
// raw bytes it spans and how many bytes it decodes to.
func stepRaw(raw []byte) (rawLen, decLen int) {
	if raw[0] != '\\' {
		r, n := utf8.DecodeRune(raw)
		if r == utf8.RuneError && n <= 1 {
			return 1, utf8.RuneLen(utf8.RuneError)
		}
		return n, n
	}
	if len(raw) < 2 {
		return 1, 1
	}
	if raw[1] != 'u' {
		return 2, 1
	}
	r, ok := hex4(raw[2:])
	if !ok {
		return 2, 1
	}
	if utf16.IsSurrogate(r) {
		if len(raw) >= 12 && raw[6] == '\\' && raw[7] == 'u' {
			if r2, ok := hex4(raw[8:]); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return 12, utf8.RuneLen(dec)
				}
			}
		}
		return 6, utf8.RuneLen(utf8.RuneError)
	}
	return 6, utf8.RuneLen(r)
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}
