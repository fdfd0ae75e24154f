package config

import (
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// The values of a server entry's arrays (args, tool lists) and objects
// (env, headers), each element read and checked on its own, and repeated
// keys found.

// stringList reads an array of strings. With expandVars (args) each element
// is expanded and must not contain NUL; without (tool names) each element
// is taken literally and must be non-empty. An empty array is nil, so that
// "args": [] and no args are the same spec.
func (e *entryParser) stringList(v *hujson.Value, field string, expandVars bool) []string {
	if v == nil {
		return nil
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		e.errorAt(v.StartOffset, fmt.Sprintf(`%s must be an array of strings such as ["a", "b"], not %s`, field, kindName(v.Value)))
		return nil
	}
	if len(arr.Elements) == 0 {
		return nil
	}
	out := make([]string, 0, len(arr.Elements))
	for i := range arr.Elements {
		el := &arr.Elements[i]
		label := fieldRef{field: field, index: i}
		if !expandVars {
			s, ok := e.str(el, label)
			if !ok {
				continue
			}
			if s.value == "" {
				e.errorAt(el.StartOffset, label.String()+" is empty: name a tool, or remove the element")
				continue
			}
			out = append(out, s.value)
			continue
		}
		s, ok := e.expand(el, label, false)
		if !ok {
			continue
		}
		if msg := checkNoNUL(s); msg != "" {
			e.errorAt(el.StartOffset, label.String()+" "+msg)
			continue
		}
		out = append(out, s)
	}
	return out
}

// stringMap reads an object of strings (env, headers), checking each name
// and each expanded value. Headers compare names case-insensitively, as HTTP
// does. An empty object is nil.
func (e *entryParser) stringMap(v *hujson.Value, field string, checkKey, checkValue func(string) string, foldCase bool) map[string]string {
	if v == nil {
		return nil
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		e.errorAt(v.StartOffset, fmt.Sprintf(`%s must be an object of strings such as {"NAME": "value"}, not %s`, field, kindName(v.Value)))
		return nil
	}
	if len(obj.Members) == 0 {
		return nil
	}
	out := make(map[string]string, len(obj.Members))
	var buf [smallKeySet]string
	seen := newKeySet(len(obj.Members), foldCase, buf[:0])
	for i := range obj.Members {
		m := &obj.Members[i]
		key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset)
		label := fieldRef{field: field, index: -1, key: key.value}
		if msg := checkKey(key.value); msg != "" {
			e.errorAt(key.start, msg)
			continue
		}
		if !seen.add(key.value) {
			e.errorAt(key.start, fmt.Sprintf("%s is given more than once: remove all but one", label))
			continue
		}
		if lit, ok := m.Value.Value.(hujson.Literal); ok && (lit.Kind() == '0' || lit.Kind() == 't' || lit.Kind() == 'f') {
			e.errorAt(m.Value.StartOffset, label.String()+" must be a string: put the value in double quotes")
			continue
		}
		s, ok := e.expand(&m.Value, label, false)
		if !ok {
			continue
		}
		if msg := checkValue(s); msg != "" {
			e.errorAt(m.Value.StartOffset, label.String()+" "+msg)
			continue
		}
		out[key.value] = s
	}
	return out
}

// keySet detects a repeated key in an object, optionally ignoring case.
// Objects in config files are small, so up to smallKeySet keys are compared
// in place and only a larger object pays for a map.
type keySet struct {
	fold  bool
	small []string
	large map[string]bool
}

const smallKeySet = 8

func newKeySet(n int, fold bool, buf []string) keySet {
	if n > smallKeySet {
		return keySet{fold: fold, large: make(map[string]bool, n)}
	}
	return keySet{fold: fold, small: buf}
}

// add records k and reports whether it was new.
func (s *keySet) add(k string) bool {
	if s.large != nil {
		if s.fold {
			k = strings.ToLower(k)
		}
		if s.large[k] {
			return false
		}
		s.large[k] = true
		return true
	}
	for _, o := range s.small {
		if o == k || (s.fold && strings.EqualFold(o, k)) {
			return false
		}
	}
	s.small = append(s.small, k)
	return true
}
