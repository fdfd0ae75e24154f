package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// rawEntry is one server entry as written, before any parsing of its
// fields: enough to decide whether it is trusted.
type rawEntry struct {
	name   string
	source messages.Position
	hash   string
	value  *hujson.Value
}

// rawEntries finds the server entries of a config file the way ParseFile
// does (the same top-level keys, the same name decoding), without reading
// a single field of them. ok is false when the file as a whole is not
// usable; duplicates are all listed, in file order.
func rawEntries(path string, data []byte) (entries []rawEntry, ok bool) {
	if bytes.HasPrefix(data, utf8BOM) {
		data = append([]byte("   "), data[len(utf8BOM):]...)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, false
	}
	if _, ok := checkNesting(data); !ok {
		return nil, false
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, false
	}
	top, isObj := root.Value.(*hujson.Object)
	if !isObj {
		return nil, false
	}
	lines := newLineIndex(path, data)
	for i := range top.Members {
		m := &top.Members[i]
		key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset)
		if key.value != "mcpServers" && key.value != "servers" {
			continue
		}
		switch v := m.Value.Value.(type) {
		case *hujson.Object:
			for j := range v.Members {
				sm := &v.Members[j]
				name := decodeString(sm.Name.Value.(hujson.Literal), sm.Name.StartOffset)
				entries = append(entries, rawEntry{
					name:   name.value,
					source: lines.pos(name.start),
					hash:   entryHash(name.value, &sm.Value),
					value:  &sm.Value,
				})
			}
		case hujson.Literal:
			if v.Kind() != 'n' {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return entries, true
}

// entryHash is the SHA-256 of an entry's name and value as written, with
// comments, whitespace and trailing commas removed: reformatting a file or
// editing a comment keeps its entries approved; changing a character of a
// value (an escape included) does not.
func entryHash(name string, v *hujson.Value) string {
	c := v.Clone()
	c.Minimize()
	h := sha256.New()
	h.Write([]byte("mcpvisor entry\x00"))
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(c.Pack())
	return hex.EncodeToString(h.Sum(nil))
}
