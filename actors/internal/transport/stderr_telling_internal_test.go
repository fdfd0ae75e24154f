package transport

import "testing"

// The reason a failed server shows is the stderr line that says what is
// wrong, not the summary after it. Brave's search server ends with
// "Invalid configuration", after the line that names the missing key and
// where to give it; only the stderr tail of `status --json` showed that.
func TestTellingLine_PrefersTheLineThatSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	const brave = "A Brave API key is required via --brave-api-key, BRAVE_API_KEY environment variable"
	for _, tt := range []struct {
		name string
		tail []string
		want string
	}{
		{"brave", []string{"Starting Brave Search MCP Server", brave, "Invalid configuration"}, brave},
		{"last of the highest rank", []string{"error: x is missing", "error: y is missing", "fatal: giving up"}, "error: y is missing"},
		{"an error over a plain last line", []string{"Error: connection refused", "Node.js v22.1.0"}, "Error: connection refused"},
		{"usage when nothing else tells", []string{"Usage: server [options]", "  --port N"}, "Usage: server [options]"},
		{"stack frames say nothing", []string{
			"Error: Cannot find module '/app/dist/index.js'",
			"    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
			"    at handleError (/app/error.js:3:9)",
			"Node.js v22.1.0",
		}, "Error: Cannot find module '/app/dist/index.js'"},
		{"python", []string{"Traceback (most recent call last):", `  File "/app/missing.py", line 3, in <module>`, "ModuleNotFoundError: No module named 'mcp'"}, "ModuleNotFoundError: No module named 'mcp'"},
		{"nothing telling: the last line", []string{"starting", "listening on stdio", ""}, "listening on stdio"},
		{"case does not matter", []string{"PERMISSION DENIED: /data", "bye"}, "PERMISSION DENIED: /data"},
		{"empty", nil, ""},
	} {
		if got := tellingLine(tt.tail); got != tt.want {
			t.Errorf("%s: tellingLine(%q) = %q, want %q", tt.name, tt.tail, got, tt.want)
		}
	}
}
