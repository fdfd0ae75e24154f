package config_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Whatever a config file holds, every diagnostic and every invalid reason
// is at most redact.MaxTextBytes long: an 8 KiB server name once made an 8 KiB
// diagnostic, and a shadowed one a 16 KiB one.
func TestLoad_TextsAreBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 8<<10)
	key := strings.Repeat("é", 4<<10) // a cut must not split a character
	first := fmt.Sprintf(`{"mcpServers": {%q: {"command": "x", %q: 1, "args": [%q, 1]},
		%q: {"command": "x"}, %[1]q: {"url": "x"}}}`, long, key, "${"+long+"}", long+"x")
	second := fmt.Sprintf(`{"mcpServers": {%q: {"command": "x"}}, "MCPSERVERS": {}}`, long+"x")
	files := []config.FileContent{
		{Path: "/p/" + long + "/a.json", Data: []byte(first)},
		{Path: "/p/b.json", Data: []byte(second)},
		{Path: "/p/c.json", ReadErr: fmt.Errorf("read %s: denied", long)},
	}
	cfg, _ := config.Load(files, testOpts(), nil)
	if len(cfg.Diagnostics) < 4 || len(cfg.Invalid) < 2 {
		t.Fatalf("got %d diagnostics and %d invalid entries, want the long name's problems reported", len(cfg.Diagnostics), len(cfg.Invalid))
	}
	for _, d := range cfg.Diagnostics {
		if len(d.Message) > redact.MaxTextBytes || !utf8.ValidString(d.Message) {
			t.Errorf("diagnostic at %d:%d is %d bytes (valid UTF-8: %v), want at most %d", d.Line, d.Column, len(d.Message), utf8.ValidString(d.Message), redact.MaxTextBytes)
		}
	}
	for _, inv := range cfg.Invalid {
		if len(inv.Reason) > redact.MaxTextBytes {
			t.Errorf("invalid reason of a %d-byte name is %d bytes, want at most %d", len(inv.Name), len(inv.Reason), redact.MaxTextBytes)
		}
	}
}
