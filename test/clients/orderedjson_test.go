package clients_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The transcripts are compared as ordered JSON: an object is its members
// in the order they arrived, so that a key order changed on the way, an
// explicit false or empty field dropped, or a field added all show in a
// diff. Values are object, []any, string, json.Number, bool or nil.

// member is one key of an object and its value.
type member struct {
	Key   string
	Value any
}

// object is a JSON object in wire order.
type object []member

// get returns the value under key.
func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// without returns o minus key.
func (o object) without(key string) object {
	return slices.DeleteFunc(slices.Clone(o), func(m member) bool { return m.Key == key })
}

// with returns o with key's value replaced (in place in the order).
func (o object) with(key string, v any) object {
	out := slices.Clone(o)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = v
		}
	}
	return out
}

// decodeOrdered parses JSON text keeping object key order.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := object{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, member{key.(string), v})
		}
		_, err := dec.Token() // '}'
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token() // ']'
		return arr, err
	default:
		return tok, nil
	}
}

// orderedKeys are the fields under which key order is compared: what a
// user sees in that order (a tool's arguments, an elicitation form's
// fields, structured content). Elsewhere key order is not compared (see
// differences_test.go).
var orderedKeys = map[string]bool{
	"inputSchema":       true,
	"outputSchema":      true,
	"requestedSchema":   true,
	"structuredContent": true,
}

// canonical returns v with the key order of every object outside the
// orderedKeys fields sorted, so that only those fields' order counts.
func canonical(v any) any { return canonicalIn(v, false) }

func canonicalIn(v any, ordered bool) any {
	switch v := v.(type) {
	case object:
		out := make(object, 0, len(v))
		for _, m := range v {
			out = append(out, member{m.Key, canonicalIn(m.Value, ordered || orderedKeys[m.Key])})
		}
		if !ordered {
			slices.SortStableFunc(out, func(a, b member) int { return strings.Compare(a.Key, b.Key) })
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = canonicalIn(e, ordered)
		}
		return out
	default:
		return v
	}
}

// walk returns v with f applied to every value, depth first (children
// before their parent); key is the member name a value is under ("" in an
// array or at the top).
func walk(v any, f func(key string, v any) any) any { return walkUnder("", v, f) }

func walkUnder(key string, v any, f func(string, any) any) any {
	switch x := v.(type) {
	case object:
		out := make(object, len(x))
		for i, m := range x {
			out[i] = member{m.Key, walkUnder(m.Key, m.Value, f)}
		}
		v = out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = walkUnder("", e, f)
		}
		v = out
	}
	return f(key, v)
}

// indent renders v as indented JSON text in its own key order: a diff of
// two renderings reads like a diff of the messages.
func indent(v any) string {
	var b strings.Builder
	writeIndented(&b, v, "")
	return b.String()
}

func writeIndented(b *strings.Builder, v any, pad string) {
	switch x := v.(type) {
	case object:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range x {
			key, _ := json.Marshal(m.Key)
			b.WriteString(pad + "  " + string(key) + ": ")
			writeIndented(b, m.Value, pad+"  ")
			if i < len(x)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(pad + "}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(pad + "  ")
			writeIndented(b, e, pad+"  ")
			if i < len(x)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(pad + "]")
	default:
		s, _ := json.Marshal(x)
		b.Write(s)
	}
}
