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
// as they are in obj (sub-slices of it); an error if obj is not a JSON
// object. It reads obj once to check it and once to split it, with no
// decoder: a relayed result's members are read on every call.
func Members(obj []byte) ([]Member, error) {
	if !json.Valid(obj) {
		return nil, errors.New("not valid JSON")
	}
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	out := make([]Member, 0, 8)
	for i = skipSpace(obj, i+1); i < len(obj) && obj[i] != '}'; {
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		end := skipValue(obj, i) // the key, a string
		key, err := keyOf(obj[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		end = skipValue(obj, i)
		out = append(out, Member{Key: key, Value: obj[i:end:end]})
		i = skipSpace(obj, end)
	}
	return out, nil
}

// keyOf is a JSON string's value (quoted, as in the input).
func keyOf(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var key string
	err := json.Unmarshal(quoted, &key)
	return key, err
}

// skipValue is the index just past the JSON value at obj[i] (obj is
// valid JSON, so only strings and nesting need following).
func skipValue(obj []byte, i int) int {
	depth := 0
	for ; i < len(obj); i++ {
		switch c := obj[i]; c {
		case '"':
			i = skipString(obj, i)
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of an enclosing value: a scalar ended here
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// skipString is the index of the closing quote of the string at obj[i].
func skipString(obj []byte, i int) int {
	for i++; i < len(obj); i++ {
		switch obj[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return i
}

func skipSpace(obj []byte, i int) int {
	for i < len(obj) && (obj[i] == ' ' || obj[i] == '\t' || obj[i] == '\n' || obj[i] == '\r') {
		i++
	}
	return i
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
