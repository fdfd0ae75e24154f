package exampleserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resources of --resources.
const (
	readmeURI    = "example://static/readme"
	blobURI      = "example://static/blob"
	counterURI   = "example://counter"
	itemTemplate = "example://items/{id}"
	itemPrefix   = "example://items/"
)

// readmeText is the static text resource's content.
const readmeText = "This is the example server's static text resource.\n"

// blob is the static binary resource's content: bytes 0 to 15.
var blob = func() []byte {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// items are the ids example://items/{id} completes to; any other id
// reads as well.
var items = []string{"apple", "apricot", "banana", "cherry"}

// counter is example://counter: a number that every update bumps, so a
// client that re-reads after notifications/resources/updated sees the
// change.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) bump() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *counter) value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (e *example) addResources() {
	e.srv.AddResource(&mcp.Resource{URI: readmeURI, Name: "readme", Title: "Read me", Description: "A static text resource.", MIMEType: "text/plain"}, readStatic)
	e.srv.AddResource(&mcp.Resource{URI: blobURI, Name: "blob", Description: "A static binary resource: the bytes 0 to 15.", MIMEType: "application/octet-stream"}, readStatic)
	e.srv.AddResource(&mcp.Resource{URI: counterURI, Name: "counter", Description: "A number bumped by every update (--update-every, the touch tool); subscribe to follow it.", MIMEType: "text/plain"}, e.readCounter)
	e.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: itemTemplate, Name: "item", Description: "An item by id (completes to apple, apricot, banana, cherry).", MIMEType: "application/json"}, readItem)
	mcp.AddTool(e.srv, &mcp.Tool{Name: "touch", Description: "Sends notifications/resources/updated for a resource (default example://counter, which it bumps)."}, e.touch)
}

func readStatic(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	switch req.Params.URI {
	case readmeURI:
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: readmeURI, MIMEType: "text/plain", Text: readmeText}}}, nil
	case blobURI:
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: blobURI, MIMEType: "application/octet-stream", Blob: blob}}}, nil
	}
	return nil, mcp.ResourceNotFoundError(req.Params.URI)
}

func (e *example) readCounter(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	body := fmt.Sprintf("updates: %d", e.counter.value())
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: counterURI, MIMEType: "text/plain", Text: body}}}, nil
}

func readItem(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, ok := itemID(req.Params.URI)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	body, err := json.Marshal(struct {
		ID       string `json:"id"`
		Template string `json:"template"`
	}{id, itemTemplate})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(body)}}}, nil
}

// itemID is the {id} of an example://items/{id} URI.
func itemID(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, itemPrefix)
	return id, ok && id != "" && !strings.ContainsAny(id, "/?#")
}

// known reports whether uri is one of this server's resources, or an
// instance of its template.
func known(uri string) bool {
	switch uri {
	case readmeURI, blobURI, counterURI:
		return true
	}
	_, ok := itemID(uri)
	return ok
}

var errUnknownResource = errors.New("no such resource")

// subscribe accepts subscriptions to this server's resources only; the
// go-sdk keeps the subscriber lists.
func (e *example) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if !known(req.Params.URI) {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}

func (e *example) unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// touchCounter bumps example://counter and tells its subscribers.
func (e *example) touchCounter(ctx context.Context) {
	e.counter.bump()
	_ = e.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: counterURI})
}

type touchIn struct {
	URI string `json:"uri,omitempty" jsonschema:"the resource to announce as updated (default example://counter)"`
}

func (e *example) touch(ctx context.Context, _ *mcp.CallToolRequest, in touchIn) (*mcp.CallToolResult, any, error) {
	uri := in.URI
	if uri == "" {
		uri = counterURI
	}
	if !known(uri) {
		return nil, nil, fmt.Errorf("touch %q: %w", uri, errUnknownResource)
	}
	if uri == counterURI {
		e.counter.bump()
	}
	if err := e.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		return nil, nil, err
	}
	return text("updated " + uri), nil, nil
}
