package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
)

// insufficientScope is a 403 whose Bearer challenge asks for scope.
func insufficientScope(scope string) *http.Response {
	return &http.Response{StatusCode: http.StatusForbidden, Body: io.NopCloser(strings.NewReader("")),
		Header: http.Header{"Www-Authenticate": {`Bearer error="insufficient_scope", scope="` + scope + `"`}}}
}

// The scopes kept for the next login are the latest challenge's, valid
// scope tokens only and at most maxScopes: each session's challenge once
// added its scopes to all the earlier ones', without end.
func TestHandler_StepUpScopesAreBounded(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t)
	store := Store{Dir: t.TempDir()}
	if err := store.Save(&Record{Server: "remote", Resource: "https://mcp.example/mcp", TokenURL: "https://as.example/token",
		ClientID: "cli", AccessToken: "a", Scopes: []string{"read"}, Expiry: clock.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	stepUp := func(scope string) []string {
		h := NewHandler(Config{Server: "remote", URL: "https://mcp.example/mcp", Store: store, Clock: clock})
		if err := h.Authorize(context.Background(), nil, insufficientScope(scope)); !IsNeedsAuth(err) {
			t.Fatalf("step-up: %v, want needs-auth", err)
		}
		rec, err := store.Load("remote", "https://mcp.example/mcp")
		if err != nil {
			t.Fatal(err)
		}
		return rec.WantScopes
	}
	for i := range 5 { // one session after another, each challenged for another scope
		stepUp(fmt.Sprintf("s%d", i))
	}
	if got := stepUp("write"); !slices.Equal(got, []string{"write"}) {
		t.Errorf("kept scopes %v, want only the latest challenge's [write]", got)
	}
	var many []string
	for i := range 1000 {
		many = append(many, fmt.Sprintf("scope-%d", i))
	}
	got := stepUp(strings.Join(many, " ") + " " + strings.Repeat("x", maxScopeLen+1))
	if len(got) != maxScopes || got[0] != "scope-0" || slices.Contains(got, strings.Repeat("x", maxScopeLen+1)) {
		t.Errorf("kept %d scopes (first %q), want the first %d valid ones", len(got), got[0], maxScopes)
	}
}
