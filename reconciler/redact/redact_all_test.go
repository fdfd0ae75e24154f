package redact_test

import (
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// RedactAll finds secrets as Redact does but cuts nothing: a secret past
// MaxBytes is replaced, and the text around it is kept whole.
func TestRedactor_RedactAll(t *testing.T) {
	t.Parallel()
	r := redact.New("s3cret-value", "overlapping-s3cret")
	long := strings.Repeat("a", 2*redact.MaxBytes)
	got := r.RedactAll(long + " s3cret-value, overlapping-s3cret-value " + long)
	want := long + " " + redact.Mark + ", " + redact.Mark + " " + long
	if got != want {
		t.Errorf("RedactAll: %d bytes, want %d (%q...)", len(got), len(want), got[len(long):len(long)+60])
	}
	if got := r.RedactAll(long); got != long {
		t.Errorf("RedactAll changed text without secrets")
	}
	var none *redact.Redactor
	if got := none.RedactAll("s3cret-value"); got != "s3cret-value" {
		t.Errorf("nil Redactor: %q", got)
	}
}
