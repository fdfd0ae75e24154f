package config

import (
	"fmt"
	"strings"
)

// MaxEnvFileBytes bounds an envFile.
const MaxEnvFileBytes = 1 << 20

// ParseDotenv reads an envFile in dotenv syntax, as VS Code reads one:
//
//	# a comment
//	KEY=value            unquoted: trimmed, " #…" starts a comment
//	export KEY=value     "export " is allowed and ignored
//	KEY="a\nb \"q\""     double quotes: \n, \r, \t, \", \\ escapes; may span lines
//	KEY='literal $x'     single quotes: taken as written; may span lines
//
// No variables are expanded. A later KEY wins. An error names the line,
// never its text: the values are secrets.
func ParseDotenv(data []byte) (map[string]string, error) {
	if len(data) > MaxEnvFileBytes {
		return nil, fmt.Errorf("is larger than %d bytes", MaxEnvFileBytes)
	}
	out := map[string]string{}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	line := 1
	for len(s) > 0 {
		var raw string
		raw, s, _ = strings.Cut(s, "\n")
		start := line
		line++
		t := strings.TrimSpace(raw)
		if t == "" || t[0] == '#' {
			continue
		}
		t = strings.TrimPrefix(t, "export ")
		key, val, ok := strings.Cut(t, "=")
		key = strings.TrimSpace(key)
		if !ok || !isDotenvKey(key) {
			return nil, fmt.Errorf("line %d is not KEY=value (a name of letters, digits and _, then =)", start)
		}
		val = strings.TrimLeft(val, " \t")
		switch {
		case strings.HasPrefix(val, `"`) || strings.HasPrefix(val, "'"):
			q := val[0]
			body := val[1:]
			for {
				v, end, ok := closeQuote(body, q)
				if ok {
					if rest := strings.TrimSpace(body[end+1:]); rest != "" && rest[0] != '#' {
						return nil, fmt.Errorf("line %d has text after the closing quote", start)
					}
					out[key] = v
					break
				}
				if s == "" {
					return nil, fmt.Errorf("line %d opens a quote that is never closed", start)
				}
				var next string
				next, s, _ = strings.Cut(s, "\n")
				line++
				body += "\n" + next
			}
		default:
			if i := strings.Index(val, " #"); i >= 0 {
				val = val[:i]
			}
			out[key] = strings.TrimSpace(val)
		}
	}
	return out, nil
}

// closeQuote finds the closing quote q in body and returns the value
// (escapes applied inside double quotes) and the quote's index.
func closeQuote(body string, q byte) (string, int, bool) {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == q:
			return b.String(), i, true
		case c == '\\' && q == '"' && i+1 < len(body):
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(body[i]) // \" \\ and anything else: the character
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

func isDotenvKey(k string) bool {
	return k != "" && varNameLen(k) == len(k)
}
