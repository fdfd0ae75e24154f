package transport

import (
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// A secret straddling the line cut is redacted whole: cutting first once
// left 24 of its 25 characters in the tail. Lines stay bounded, written
// in one piece or byte by byte, terminated or not.
func TestStderrRing_RedactsBeforeCutting(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789abcdefX" // 25 bytes
	line := strings.Repeat("x", stderrLineMax-24) + secret + strings.Repeat("y", 100)
	for _, tt := range []struct {
		name  string
		write func(r *stderrRing)
	}{
		{"one write", func(r *stderrRing) { _, _ = r.Write([]byte(line + "\n")) }},
		{"byte by byte", func(r *stderrRing) {
			for i := range len(line) + 1 {
				_, _ = r.Write([]byte((line + "\n")[i : i+1]))
			}
		}},
		{"unterminated", func(r *stderrRing) { _, _ = r.Write([]byte(line)) }},
		{"crlf", func(r *stderrRing) { _, _ = r.Write([]byte(line + "\r\n")) }},
	} {
		r := newStderrRing(stderrLines)
		r.redactWith(redact.New(secret))
		tt.write(r)
		tail := r.Tail()
		if len(tail) != 1 {
			t.Fatalf("%s: tail has %d lines, want 1", tt.name, len(tail))
		}
		if got := tail[0]; strings.Contains(got, secret[:redact.MinSecretBytes]) || len(got) > stderrLineMax {
			t.Errorf("%s: line of %d bytes ends %q: want at most %d bytes and no part of the secret", tt.name, len(got), got[len(got)-40:], stderrLineMax)
		}
	}
}
