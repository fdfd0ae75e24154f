package ndjson

// framer follows the nesting of the JSON fed to it, line by line, so that
// a value spread over several lines is known to be whole in one pass over
// its bytes. It does not validate: decoding does. Outside a string, only
// brackets count; inside one, only its closing quote and escapes.
type framer struct {
	depth    int
	inString bool
	escaped  bool
}

func (f *framer) feed(b []byte) {
	for _, c := range b {
		switch {
		case f.escaped:
			f.escaped = false
		case f.inString:
			switch c {
			case '\\':
				f.escaped = true
			case '"':
				f.inString = false
			}
		case c == '"':
			f.inString = true
		case c == '{' || c == '[':
			f.depth++
		case c == '}' || c == ']':
			f.depth--
		}
	}
}

// open reports whether what was fed is an unfinished value: a bracket not
// yet closed, or a string.
func (f *framer) open() bool { return f.depth > 0 || f.inString }
