package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchNotify: a config edit that adds a server to `mcpvisor serve`, from
// the file write until a gateway client has had tools/list_changed and
// lists the new server's tools; -notify-edits edits, each server taken out
// again before the next. Against the debounce plus the server's own start
// (the raw go-sdk spawn + Connect + ListTools, measured before each edit)
// plus 15 ms.
func (h *harness) benchNotify(ctx context.Context) (string, error) {
	base := fleet{"base": {Command: h.bin, Args: []string{"example-server"}}}
	cfg := filepath.Join(h.work, "notify.json")
	if err := base.write(cfg); err != nil {
		return "", err
	}
	changed := make(chan struct{}, 1)
	p, err := h.serveStdioPeer(ctx, "serve", cfg, nil, func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return "", err
	}
	defer p.close()
	var lat, notified, own sample
	for i := range h.opt.notifyEdits {
		rs, d, err := h.rawStart(ctx, nil, h.bin, "example-server")
		if err != nil {
			return "", err
		}
		rs.close()
		own = append(own, d)
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return "", err
		}
		name := fmt.Sprintf("add%02d", i)
		drain(changed)
		t0 := time.Now()
		if err := base.with(fleet{name: base["base"]}).write(cfg); err != nil {
			return "", err
		}
		first, err := waitTool(ctx, p.cs, changed, name+"__echo", true)
		if err != nil {
			return "", fmt.Errorf("edit %d: %w", i, err)
		}
		lat, notified = append(lat, time.Since(t0)), append(notified, first.Sub(t0))
		// Take it out again, and wait until the gateway has.
		drain(changed)
		if err := base.write(cfg); err != nil {
			return "", err
		}
		if _, err := waitTool(ctx, p.cs, changed, name+"__echo", false); err != nil {
			return "", fmt.Errorf("removal %d: %w", i, err)
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return "", err
		}
	}
	debounce := h.opt.debounce
	over := lat.minus(debounce + own.median())
	h.samples["notify"] = map[string]any{"edits": len(lat), "ms": lat.msList(), "list_changed_ms": notified.msList(), "own_start_ms": own.msList()}
	var t table
	t.head = []string{fmt.Sprintf("figure (%d edits, each adding one example server to serve)", len(lat)), "min / median / p99 ms"}
	t.add("write → list_changed at the client", notified.mmp())
	t.add("write → the client lists the new server's tools", lat.mmp())
	t.add("the server's own start-up: raw go-sdk spawn + Connect + ListTools", own.mmp())
	t.add(fmt.Sprintf("**overhead** = latency − debounce (%s) − median start-up (%s)", ms(debounce), ms(own.median())), "**"+over.mmp()+"**")
	body := t.String() + fmt.Sprintf("\nTarget: median at most debounce + own start + 15 ms (overhead ≤ 15 ms): %s (%s ms).\n", verdict(over.median() <= 15*time.Millisecond), ms(over.median()))
	body += commandLine("notify", fmt.Sprintf("-notify-edits %d", h.opt.notifyEdits))
	return body, nil
}

func drain(c chan struct{}) {
	select {
	case <-c:
	default:
	}
}

// waitTool lists tools after every list_changed until tool is listed
// (present) or not (!present), bounded; it returns when the first
// list_changed arrived.
func waitTool(ctx context.Context, cs *mcp.ClientSession, changed chan struct{}, tool string, present bool) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var first time.Time
	for {
		select {
		case <-changed:
		case <-ctx.Done():
			return first, fmt.Errorf("%s never %s the gateway's list: %w", tool, map[bool]string{true: "reached", false: "left"}[present], ctx.Err())
		}
		if first.IsZero() {
			first = time.Now()
		}
		found := false
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return first, err
			}
			if t.Name == tool {
				found = true
			}
		}
		if found == present {
			return first, nil
		}
	}
}
