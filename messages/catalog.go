package messages

// The catalog beyond tools: what a server offers besides its tools, as
// mcpvisor exposes it. Every item carries its server and a content hash; a
// changed hash under the same key (prompt name, resource URI, template URI
// template) is a changed item.

// Prompt is one prompt of one server. Expose it as
// actors.QualifiedName(Prefix, Name), like a tool.
type Prompt struct {
	Server string `json:"server"`
	// Prefix is the server's exposed prefix (see ServerSpec.Prefix),
	// stamped by the fleet.
	Prefix      string           `json:"prefix"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	// Hash covers name, title, description and arguments.
	Hash string `json:"hash"`
	// Cached marks an item listed from the catalog cache, as Tool.Cached.
	Cached bool `json:"cached,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// RequiredStated says the server sent "required" itself, even as
	// false: the gateway then passes "required": false on as sent.
	RequiredStated bool `json:"requiredStated,omitempty"`
}

// Resource is one resource of one server. Resources keep their URIs: they
// are routed to the server that owns the URI.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
	// Annotations are the server's hints (audience, priority, ...), as
	// JSON data.
	Annotations any `json:"annotations,omitempty"`
	// Hash covers every field above but Server.
	Hash string `json:"hash"`
	// Cached marks an item listed from the catalog cache, as Tool.Cached.
	Cached bool `json:"cached,omitempty"`
}

// ResourceTemplate is one URI template of one server (RFC 6570): a family
// of resources the server can read.
type ResourceTemplate struct {
	Server      string `json:"server"`
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Annotations any    `json:"annotations,omitempty"`
	// Hash covers every field above but Server.
	Hash string `json:"hash"`
	// Cached marks an item listed from the catalog cache, as Tool.Cached.
	Cached bool `json:"cached,omitempty"`
}

// PromptsChanged is published when a server's prompts change, including
// when it becomes ready (everything added) or stops (everything removed).
// Added, Removed and Changed are prompt names as the server names them.
type PromptsChanged struct {
	Server  string   `json:"server"`
	Session uint64   `json:"session"`
	Prompts []Prompt `json:"prompts"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// ResourcesChanged is published when a server's resources change. Added,
// Removed and Changed are URIs.
type ResourcesChanged struct {
	Server    string     `json:"server"`
	Session   uint64     `json:"session"`
	Resources []Resource `json:"resources"`
	Added     []string   `json:"added"`
	Removed   []string   `json:"removed"`
	Changed   []string   `json:"changed"`
}

// ResourceTemplatesChanged is published when a server's resource
// templates change. Added, Removed and Changed are URI templates.
type ResourceTemplatesChanged struct {
	Server    string             `json:"server"`
	Session   uint64             `json:"session"`
	Templates []ResourceTemplate `json:"templates"`
	Added     []string           `json:"added"`
	Removed   []string           `json:"removed"`
	Changed   []string           `json:"changed"`
}

// ResourceUpdated relays a server's notifications/resources/updated for a
// URI someone subscribed to (Supervisor.SubscribeResource).
type ResourceUpdated struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// CatalogKind names a kind of catalog item, in warnings and conflicts.
type CatalogKind string

// The catalog kinds.
const (
	KindTools             CatalogKind = "tools"
	KindPrompts           CatalogKind = "prompts"
	KindResources         CatalogKind = "resources"
	KindResourceTemplates CatalogKind = "resourceTemplates"
)

// CatalogConflict is published when two servers claim the same resource
// URI or URI template: the first in config order (Winner) owns it, the
// other's item (Loser's) is not routed. Published when the conflict
// appears, once per pair of servers and kind for one change, with the
// first key and how many there are; it also shows as a warning on the
// loser's status row for as long as it lasts.
type CatalogConflict struct {
	Kind   CatalogKind `json:"kind"`
	Key    string      `json:"key"`
	Count  int         `json:"count"`
	Winner string      `json:"winner"`
	Loser  string      `json:"loser"`
}

// CatalogItemSkipped is published when a server listed an item too large
// to expose (a description or name beyond a bound): that item is left out,
// its siblings are kept.
type CatalogItemSkipped struct {
	Server string      `json:"server"`
	Kind   CatalogKind `json:"kind"`
	Key    string      `json:"key"`
	Reason string      `json:"reason"`
}

func (*PromptsChanged) EventType() string           { return "prompts.changed" }
func (*ResourcesChanged) EventType() string         { return "resources.changed" }
func (*ResourceTemplatesChanged) EventType() string { return "resourceTemplates.changed" }
func (*ResourceUpdated) EventType() string          { return "resource.updated" }
func (*CatalogConflict) EventType() string          { return "catalog.conflict" }
func (*CatalogItemSkipped) EventType() string       { return "catalog.skipped" }
