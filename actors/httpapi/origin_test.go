package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// A request a web page of another origin made is refused with 403 on
// every route and every method (GET included: the event stream is one),
// even with the right token; no Origin (curl, the CLI), the server's own
// origin and a trusted one pass.
func TestOrigin_ForeignOriginRefusedOnEveryRoute(t *testing.T) {
	t.Parallel()
	ts, _ := api(t, httpapi.Options{AllowOrigins: []string{"http://localhost:3000"}})
	own := ts.URL // http://127.0.0.1:PORT: Origin host equals the Host asked for
	all := append(routes[:len(routes):len(routes)], struct{ method, path, body string }{http.MethodGet, "/healthz", ""})
	for _, rt := range all {
		for _, tc := range []struct {
			headers []string
			want    bool // served (not 403)
		}{
			{nil, true},
			{[]string{"Origin: " + own}, true},
			{[]string{"Origin: http://localhost:3000"}, true},
			{[]string{"Sec-Fetch-Site: same-origin"}, true},
			{[]string{"Sec-Fetch-Site: none"}, true},
			{[]string{"Origin: http://evil.example"}, false},
			{[]string{"Origin: http://localhost:3001"}, false},
			{[]string{"Origin: null"}, false},
			{[]string{"Sec-Fetch-Site: cross-site"}, false},
			{[]string{"Sec-Fetch-Site: same-site", "Origin: http://localhost:8080"}, false},
			{[]string{"Sec-Fetch-Site: cross-site", "Origin: http://evil.example"}, false},
		} {
			res := request(t, ts, rt.method, rt.path, rt.body, tc.headers...)
			switch {
			case tc.want && res.code == http.StatusForbidden:
				t.Errorf("%s %s with %v = 403 %s, want it served", rt.method, rt.path, tc.headers, res.body)
			case !tc.want && (res.code != http.StatusForbidden || !strings.Contains(res.errorText(t), "cross-origin request refused")):
				t.Errorf("%s %s with %v = %d %s, want 403", rt.method, rt.path, tc.headers, res.code, res.body)
			}
		}
	}
	res, _ := openEvents(actorstest.Context(t), t, ts.URL+"/api/v1/events", "Origin: http://evil.example")
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("event stream from a foreign origin = %d, want 403", res.StatusCode)
	}
}

func TestOrigin_MalformedAllowOriginIsAnError(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"localhost:3000", "http://", "http://x/path", "://x"} {
		if _, err := httpapi.New(httpapi.Options{AllowOrigins: []string{o}}); err == nil || !strings.Contains(err.Error(), "--allow-origin") {
			t.Errorf("AllowOrigins %q: %v, want an error", o, err)
		}
	}
}
