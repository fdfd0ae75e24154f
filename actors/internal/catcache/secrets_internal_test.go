package catcache

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// A catalog that holds a value of mcpvisor's inherited environment (own,
// as the Supervisor passes them) is not cached; the warning names the
// server, not the value.
func TestCatalogCache_RefusesAnInheritedValue(t *testing.T) {
	t.Parallel()
	const inherited = "PLANTED-INHERITED-SECRET-3f7c"
	dir := t.TempDir()
	leaky := entryFor("leaky", 0)
	leaky.Tools[0].Description = "uses " + inherited
	core, logs := observer.New(zapcore.WarnLevel)
	runCache(t, dir, MaxEntryBytes, MaxTotalBytes, zap.New(core), func(c *Cache) {
		c.Store(specFor("leaky"), leaky, []string{inherited})
		c.Store(specFor("plain"), entryFor("plain", 10), []string{inherited})
	})
	if got := cachedFiles(t, dir); len(got) != 1 || got[0] != cacheFile("plain", "/cfg/mcp.json") {
		t.Errorf("files %v, want only plain's", got)
	}
	warned := logs.FilterMessageSnippet("not cached").All()
	if len(warned) != 1 || warned[0].ContextMap()["server"] != "leaky" {
		t.Errorf("warnings %v, want one about leaky", logs.All())
	}
	for _, e := range logs.All() {
		if strings.Contains(e.Message+e.ContextMap()["server"].(string), inherited) {
			t.Errorf("a log line holds the value: %v", e)
		}
	}
}

// The config file's path is where the entry came from, not part of the
// catalog: a catalog is cached though mcpvisor's environment holds that
// path (MCPVISOR_CONFIG=FILE, the way the MCP Inspector CLI configures
// `serve`). Before, the whole entry was checked, path included, and no
// catalog of a config named by MCPVISOR_CONFIG was ever cached.
func TestCatalogCache_ConfigPathInTheEnvironmentIsNotASecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	entry := entryFor("everything", 10)
	runCache(t, dir, MaxEntryBytes, MaxTotalBytes, zap.NewNop(), func(c *Cache) {
		c.Store(specFor("everything"), entry, []string{entry.Source})
	})
	if got := cachedFiles(t, dir); len(got) != 1 || got[0] != cacheFile("everything", entry.Source) {
		t.Errorf("files %v, want everything's", got)
	}
}
