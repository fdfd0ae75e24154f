package verbatim

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A Member is one key of a JSON object and its value as JSON text.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members are obj's members in the order obj has them, their values
// as they are in obj; an error if obj is not a JSON object.
func Members(obj []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// Field is the value of obj's member key, or nil (no such member, or obj
// is not an object).
func Field(obj []byte, key string) json.RawMessage {
	ms, err := Members(obj)
	if err != nil {
		return nil
	}
	for _, m := range ms {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Edit is obj without the members drop says to drop, and with set's
// values put in: in place of a member of the same key, else added at the
// end, in set's order; a nil value drops its key. Everything else is as
// obj had it, in its order.
func Edit(obj []byte, drop func(key string) bool, set ...Member) (json.RawMessage, error) {
	ms, err := Members(obj)
	if err != nil {
		return nil, err
	}
	return Join(ms, drop, set...), nil
}

// Join is the object of members ms, edited as Edit says: for a caller
// that read the members already.
func Join(ms []Member, drop func(key string) bool, set ...Member) json.RawMessage {
	size := 2
	for _, m := range ms {
		size += len(m.Key) + len(m.Value) + 4
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteByte('{')
	first := true
	put := func(key string, v json.RawMessage) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeKey(&b, key)
		b.WriteByte(':')
		b.Write(v)
	}
	done := make([]bool, len(set))
	for _, m := range ms {
		if drop != nil && drop(m.Key) {
			continue
		}
		v := m.Value
		for i, s := range set {
			if s.Key == m.Key && !done[i] {
				v, done[i] = s.Value, true
			}
		}
		if v != nil {
			put(m.Key, v)
		}
	}
	for i, s := range set {
		if !done[i] && s.Value != nil {
			put(s.Key, s.Value)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// writeKey writes key as a JSON string, not HTML-escaped (as the server
// may have sent it).
func writeKey(b *bytes.Buffer, key string) {
	if plain(key) {
		b.WriteByte('"')
		b.WriteString(key)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key)     // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// plain reports whether key needs no escaping in a JSON string (the
// usual case, written without an encoder).
func plain(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}
