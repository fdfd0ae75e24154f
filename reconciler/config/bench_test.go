package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// bigConfig is a JSONC file of n servers: two thirds stdio with args and
// env, one third http with headers, about half of them using ${VAR}, with
// comments and trailing commas as people write them.
func bigConfig(n int) []byte {
	var b strings.Builder
	b.WriteString("// generated for benchmarks\n{\n  \"mcpServers\": {\n")
	for i := range n {
		switch {
		case i%3 == 2:
			fmt.Fprintf(&b, `    "remote-%04d": {
      "type": "http",
      "url": "https://mcp-%d.example.com/v1/mcp?tenant=${TENANT:-acme}",
      "headers": {"Authorization": "Bearer ${TOKEN}", "X-Request-Source": "mcpvisor"},
      "callTimeout": "30s",
    },
`, i, i)
		case i%2 == 0:
			fmt.Fprintf(&b, `    "local-%04d": {
      "command": "npx",
      "args": ["-y", "@example/server-%d@1.2.3", "--root", "${HOME}/work", "--verbose"],
      "env": {"API_KEY": "${TOKEN}", "LOG_LEVEL": "info", "PORT": "80%02d"}, // inline comment
      "allowTools": ["read", "list"],
    },
`, i, i, i%100)
		default:
			fmt.Fprintf(&b, `    "local-%04d": {
      "command": "/usr/local/bin/server-%d",
      "args": ["serve", "--stdio"],
      "env": {"MODE": "ro"},
      "cwd": "/srv/s%d",
      "restart": "never",
    },
`, i, i, i)
		}
	}
	b.WriteString("  },\n}\n")
	return []byte(b.String())
}

// BenchmarkLoad_1000Servers parses, expands, validates, fingerprints and
// merges a 1,000-server file. Target: under 20 ms/op.
func BenchmarkLoad_1000Servers(b *testing.B) {
	data := bigConfig(1000)
	opts := config.LoadOptions{
		Home:      "/home/bench",
		LookupEnv: envOf(map[string]string{"TOKEN": "tok-0123456789", "HOME": "/home/bench"}),
	}
	files := []config.FileContent{{Path: "/proj/.mcp.json", Data: data}}
	cfg, _ := config.Load(files, opts, nil)
	if len(cfg.Servers) != 1000 || len(cfg.Diagnostics) != 0 {
		b.Fatalf("want 1000 valid servers and no diagnostics, got %d servers, %d invalid:\n%s",
			len(cfg.Servers), len(cfg.Invalid), formatDiags(cfg.Diagnostics))
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		config.Load(files, opts, nil)
	}
}

// BenchmarkRedact_StderrLine is the redactor's hot path: one log line
// against the secrets of a large fleet.
func BenchmarkRedact_StderrLine(b *testing.B) {
	var secrets []string
	for i := range 3000 {
		secrets = append(secrets, fmt.Sprintf("secret-value-%06d-abcdef", i))
	}
	r := redact.New(secrets...)
	for _, tc := range []struct{ name, line string }{
		{"clean", "2024-05-01T10:00:00.000Z INFO server listening on stdio, 12 tools registered, ready for requests"},
		{"one secret", "2024-05-01T10:00:00.000Z ERROR auth failed with key secret-value-001234-abcdef, retrying in 5s"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.line)))
			b.ReportAllocs()
			for b.Loop() {
				r.Redact(tc.line)
			}
		})
	}
}

// BenchmarkNewRedactor_3000Secrets is the cost of rebuilding the redactor
// when the config changes.
func BenchmarkNewRedactor_3000Secrets(b *testing.B) {
	var secrets []string
	for i := range 3000 {
		secrets = append(secrets, fmt.Sprintf("secret-value-%06d-abcdef", i))
	}
	b.ReportAllocs()
	for b.Loop() {
		redact.New(secrets...)
	}
}
