package exampleserver_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

func TestResources_ListReadAndTemplate(t *testing.T) {
	t.Parallel()
	for _, pv := range protocols {
		t.Run(pv, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cs := serve(t, ctx, exampleserver.Options{Name: "r", Resources: true}, nil, pv)
			caps := cs.InitializeResult().Capabilities.Resources
			if caps == nil || !caps.Subscribe || !caps.ListChanged {
				t.Fatalf("resources capability: %+v, want subscribe and listChanged", caps)
			}
			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatalf("resources/list: %v", err)
			}
			var uris []string
			for _, r := range list.Resources {
				uris = append(uris, r.URI+" "+r.MIMEType)
			}
			want := []string{"example://counter text/plain", "example://static/blob application/octet-stream", "example://static/readme text/plain"}
			if diff := cmp.Diff(want, uris); diff != "" {
				t.Fatalf("resources (-want +got):\n%s", diff)
			}

			text := readOne(t, cs, "example://static/readme")
			if text.Text != "This is the example server's static text resource.\n" {
				t.Fatalf("readme: %q", text.Text)
			}
			if blob := readOne(t, cs, "example://static/blob"); !bytes.Equal(blob.Blob, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}) {
				t.Fatalf("blob: %v (text %q)", blob.Blob, blob.Text)
			}

			templates, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatalf("resources/templates/list: %v", err)
			}
			if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "example://items/{id}" {
				t.Fatalf("templates: %+v", templates.ResourceTemplates)
			}
			item := readOne(t, cs, "example://items/banana")
			if item.MIMEType != "application/json" || item.Text != `{"id":"banana","template":"example://items/{id}"}` {
				t.Fatalf("item: %+v", item)
			}

			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "example://static/nope"})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("unknown resource: %v, want resource not found", err)
			}
		})
	}
}

func readOne(t *testing.T, cs *mcp.ClientSession, uri string) *mcp.ResourceContents {
	t.Helper()
	res, err := cs.ReadResource(actorstest.Context(t), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("read %s: %+v", uri, res.Contents)
	}
	return res.Contents[0]
}

// updates records the URIs of notifications/resources/updated a client
// receives, in order.
func updates() (chan string, *mcp.ClientOptions) {
	ch := make(chan string, 16)
	return ch, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		ch <- req.Params.URI
	}}
}

// Subscriptions run on the legacy protocol: on 2026-07-28 the go-sdk's
// Subscribe is a subscriptions/listen stream that blocks until cancelled
// and gives the caller no acknowledgement to wait for.
func TestResources_TouchNotifiesSubscribersOnly(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	got, copts := updates()
	cs := serve(t, ctx, exampleserver.Options{Name: "r", Resources: true}, copts, legacy)
	for _, uri := range []string{"example://counter", "example://items/apple"} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	var rpcErr *jsonrpc.Error
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "example://elsewhere"}); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("subscribe to an unknown resource: %v, want resource not found", err)
	}

	if text := readOne(t, cs, "example://counter").Text; text != "updates: 0" {
		t.Fatalf("counter before any update: %q", text)
	}
	// The readme is not subscribed: its touch sends nothing, so the first
	// notification is the counter's (notifications keep their order).
	mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{"uri": "example://static/readme"}}))
	mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{}}))
	if uri := receive(t, ctx, got, "resources/updated"); uri != "example://counter" {
		t.Fatalf("first update for %s, want example://counter", uri)
	}
	if text := readOne(t, cs, "example://counter").Text; text != "updates: 1" {
		t.Fatalf("counter after one touch: %q", text)
	}
	mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{"uri": "example://items/apple"}}))
	if uri := receive(t, ctx, got, "resources/updated"); uri != "example://items/apple" {
		t.Fatalf("update for %s, want example://items/apple", uri)
	}

	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "example://counter"}); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
	mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{}}))
	mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{"uri": "example://items/apple"}}))
	if uri := receive(t, ctx, got, "resources/updated"); uri != "example://items/apple" {
		t.Fatalf("update for %s after unsubscribing the counter, want example://items/apple", uri)
	}

	if text, isErr := resultText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{"uri": "example://elsewhere"}})); !isErr {
		t.Fatalf("touch of an unknown resource succeeded: %s", text)
	}
}

// --update-every bumps the counter and notifies its subscribers on each
// tick of the clock, and Serve stops its ticker when the session ends.
func TestResources_UpdateEveryTicksOnTheClock(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	ticker := clock.Trap().TickerFunc("exampleserver", "resource-updates")
	defer ticker.Close()

	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() {
		served <- exampleserver.Serve(ctx, exampleserver.Options{Name: "t", Resources: true, UpdateEvery: 5 * time.Second, Clock: clock}, st)
	}()
	tick := ticker.MustWait(ctx)
	if tick.Duration != 5*time.Second {
		t.Fatalf("ticker period %s, want 5s", tick.Duration)
	}
	tick.MustRelease(ctx)

	got, copts := updates()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "example://counter"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	for want := 1; want <= 2; want++ {
		d, w := clock.AdvanceNext()
		if d != 5*time.Second {
			t.Fatalf("next tick in %s, want 5s", d)
		}
		w.MustWait(ctx)
		if uri := receive(t, ctx, got, "resources/updated"); uri != "example://counter" {
			t.Fatalf("update for %s", uri)
		}
		if text := readOne(t, cs, "example://counter").Text; text != fmt.Sprintf("updates: %d", want) {
			t.Fatalf("counter after %d ticks: %q", want, text)
		}
	}

	_ = cs.Close()
	if err := receive(t, ctx, served, "end of Serve"); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if d, ok := clock.Peek(); ok {
		t.Fatalf("a timer is still pending after Serve returned (due in %s)", d)
	}
}
