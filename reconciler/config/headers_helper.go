package config

import (
	"encoding/json"
	"fmt"
)

// MaxHelperOutputBytes bounds what a headersHelper may print.
const MaxHelperOutputBytes = 64 << 10

// ParseHelperHeaders reads the output of a headersHelper (Claude Code's
// field): a JSON object of header names to string values, such as
// {"Authorization": "Bearer …"}. Names must be HTTP header names, values
// free of line breaks and NUL. Errors name the header, never a value: the
// values are secrets.
func ParseHelperHeaders(out []byte) (map[string]string, error) {
	if len(out) > MaxHelperOutputBytes {
		return nil, fmt.Errorf("printed more than %d bytes", MaxHelperOutputBytes)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(out, &raw); err != nil || raw == nil {
		return nil, fmt.Errorf(`did not print a JSON object of headers, such as {"Authorization": "Bearer …"}`)
	}
	headers := make(map[string]string, len(raw))
	for name, v := range raw {
		if msg := checkHeaderName(name); msg != "" {
			return nil, fmt.Errorf("printed a bad header: %s", msg)
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("printed header %q with a value that is not a string", name)
		}
		if msg := checkHeaderValue(s); msg != "" {
			return nil, fmt.Errorf("printed header %q: %s", name, msg)
		}
		headers[name] = s
	}
	return headers, nil
}
