package redact

// Contains reports whether text holds any of r's secrets, in any of the
// forms Redact finds, anywhere in it (Redact looks at the whole text too,
// but its answer is cut). A nil or empty Redactor contains nothing.
func (r *Redactor) Contains(text string) bool {
	if r == nil || r.m == nil {
		return false
	}
	var buf [1]span
	return len(r.m.find(text, buf[:0])) > 0
}
