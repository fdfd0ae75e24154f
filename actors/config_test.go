package actors_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A config file that stops parsing keeps the servers last parsed from it
// running, and says so; deleting the file does stop them.
func TestConfig_BadSaveKeepsTheLastGoodServers(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t, "s")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	rec.WaitState(ctx, 0, "s", messages.StateReady)

	for _, broken := range []string{`{"mcpServers": {"s": {"command": `, ``} {
		if err := os.WriteFile(cfg, []byte(broken), 0o600); err != nil {
			t.Fatal(err)
		}
		mark := rec.Len()
		actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
		_, ev := rec.WaitFor(ctx, mark, "config loaded", func(e messages.Event) bool { _, ok := e.(*messages.ConfigLoaded); return ok })
		loaded := ev.(*messages.ConfigLoaded)
		if loaded.Changed || !anyDiagnostic(loaded.Diagnostics, "keeping") {
			t.Fatalf("after saving %q: %+v, want unchanged with a diagnostic saying the servers are kept", broken, loaded)
		}
		if _, _, err := sup.Resync(ctx, true); err != nil { // a barrier through the fleet actor
			t.Fatal(err)
		}
		if got := transitions(rec, mark, "s"); len(got) != 0 {
			t.Fatalf("s changed state after a bad save: %v", got)
		}
		if st := sup.Status(); len(st.ConfigErrors) == 0 {
			t.Fatal("status shows no config error after a bad save")
		}
	}

	mark := rec.Len()
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
	rec.WaitState(ctx, mark, "s", messages.StateStopped)
}

func anyDiagnostic(ds []messages.Diagnostic, substr string) bool {
	for _, d := range ds {
		if strings.Contains(d.Message, substr) {
			return true
		}
	}
	return false
}

// The generation is the version of the desired state: a save that only
// reformats the file (white space, comments, key order) keeps it and
// restarts nothing, while the positions shown in status follow the text.
// Such a save used to bump the generation.
func TestConfig_FormattingOnlySaveKeepsTheGeneration(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t, "s")
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mcpServers": {"s": {"command": "in-memory", "args": ["a"], "callTimeout": "5s"}, "bad": {"command": 1}}}`)
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	_, ready := rec.WaitState(ctx, 0, "s", messages.StateReady)
	before := sup.Status()

	write(`// reformatted
{
  "mcpServers": {
    "bad": {"command": 1},

    "s": {
      "callTimeout": "5s", // same value
      "args": [ "a" ],
      "command": "in-memory",
    },
  },
}`)
	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
	_, ev := rec.WaitFor(ctx, mark, "config loaded", func(e messages.Event) bool { _, ok := e.(*messages.ConfigLoaded); return ok })
	if loaded := ev.(*messages.ConfigLoaded); loaded.Changed || loaded.Generation != before.Generation {
		t.Fatalf("after a formatting-only save: %+v, want generation %d unchanged", loaded, before.Generation)
	}
	if _, _, err := sup.Resync(ctx, true); err != nil { // a barrier through the fleet actor
		t.Fatal(err)
	}
	after := sup.Status()
	if after.Generation != before.Generation {
		t.Fatalf("status generation %d → %d after a formatting-only save", before.Generation, after.Generation)
	}
	lines := map[string]int{}
	for _, st := range after.Servers {
		lines[st.Name] = st.Source.Line
	}
	if lines["s"] != 6 || lines["bad"] != 4 {
		t.Fatalf("source lines after the save = %v, want s at 6 and bad at 4", lines)
	}
	if got := transitions(rec, mark, "s"); len(got) != 0 || after.Servers[1].Session != ready.Session {
		t.Fatalf("s changed after a formatting-only save: %v, session %d → %d", got, ready.Session, after.Servers[1].Session)
	}

	write(`{"mcpServers": {"s": {"command": "in-memory", "args": ["a"], "callTimeout": "6s"}, "bad": {"command": 1}}}`)
	mark = rec.Len()
	actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
	_, ev = rec.WaitFor(ctx, mark, "changed config", func(e messages.Event) bool { l, ok := e.(*messages.ConfigLoaded); return ok && l.Changed })
	if loaded := ev.(*messages.ConfigLoaded); loaded.Generation != before.Generation+1 {
		t.Fatalf("after changing a setting: %+v, want generation %d", loaded, before.Generation+1)
	}
}

// Status names the config files in precedence order, as the Supervisor
// resolved them: relative ones against WorkDir, ~ against Home.
func TestConfig_StatusNamesTheResolvedFilesInOrder(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	work, home := t.TempDir(), t.TempDir()
	writeConfig(t, filepath.Join(work, "project.json"), map[string]any{"p": map[string]any{"command": "in-memory"}})
	writeConfig(t, filepath.Join(home, "home.json"), map[string]any{"h": map[string]any{"command": "in-memory"}})
	sup, rec := startInMemory(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), newFleet(t, echoServers("p", "h")),
		actors.Options{ConfigPaths: []string{"project.json", "~/home.json"}, WorkDir: work, Home: home})
	rec.WaitState(ctx, 0, "h", messages.StateReady)
	want := []string{filepath.Join(work, "project.json"), filepath.Join(home, "home.json")}
	if got := sup.Status().ConfigFiles; !slices.Equal(got, want) {
		t.Fatalf("Status().ConfigFiles = %q, want %q", got, want)
	}
}
