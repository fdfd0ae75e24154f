package messages

import "time"

// Transport names how a session reaches its server.
type Transport string

// The transports mcpvisor speaks.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http" // streamable HTTP
	TransportSSE   Transport = "sse"  // legacy HTTP+SSE
)

// RestartPolicy says what happens after a server fails.
type RestartPolicy string

// The restart policies.
const (
	// RestartOnFailure retries a failed server with exponential backoff until
	// its crash-loop budget is spent. It is the default.
	RestartOnFailure RestartPolicy = "on-failure"
	// RestartNever leaves a failed server failed until a resync or a config
	// change.
	RestartNever RestartPolicy = "never"
)

// Autostart says when a server is started.
type Autostart string

// The autostart policies.
const (
	// AutostartEager starts the server as soon as it is desired and keeps
	// it running. It is the default.
	AutostartEager Autostart = "eager"
	// AutostartLazy keeps the server idle (StateIdle) until a call, get or
	// read needs it, and stops it again after IdleTimeout without use.
	AutostartLazy Autostart = "lazy"
)

// Position locates something in a config file. Line and Column are 1-based;
// zero means unknown.
type Position struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// ServerSpec is one server as the config wants it, with every variable
// already expanded. It is immutable once built.
type ServerSpec struct {
	Name      string            `json:"name"`
	Transport Transport         `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// EnvFile is the entry's envFile, resolved; its variables are already
	// in Env (under the entry's own).
	EnvFile string            `json:"envFile,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// HeadersHelper is a shell command whose standard output is a JSON
	// object of more headers (Claude Code's field), run in the config
	// file's folder at connect and again after a 401.
	HeadersHelper string `json:"headersHelper,omitempty"`
	Disabled      bool   `json:"disabled,omitempty"`
	// InheritEnv says which of mcpvisor's own environment variables a
	// stdio server inherits; nil means the Supervisor's default (every
	// variable, unless its options say otherwise).
	InheritEnv *EnvPolicy `json:"inheritEnv,omitempty"`

	// ConnectTimeout bounds spawn plus handshake; zero means the default.
	ConnectTimeout time.Duration `json:"connectTimeout,omitempty"`
	// CallTimeout bounds one tool call; zero means the default.
	CallTimeout time.Duration `json:"callTimeout,omitempty"`
	// Restart is the restart policy; empty means RestartOnFailure.
	Restart RestartPolicy `json:"restart,omitempty"`
	// Autostart is when the server starts; empty means the Supervisor's
	// default (Options.Autostart, eager unless set).
	Autostart Autostart `json:"autostart,omitempty"`
	// IdleTimeout is how long a lazy server runs without use before it is
	// stopped, back to idle; zero means it keeps running once started.
	IdleTimeout time.Duration `json:"idleTimeout,omitempty"`
	AllowTools  []string      `json:"allowTools,omitempty"`
	DenyTools   []string      `json:"denyTools,omitempty"`
	// PrefixOverride is the entry's own prefix field: the prefix its tools
	// are exposed under instead of the derived one; "" exposes them by
	// their own names. nil means the entry has none.
	PrefixOverride *string `json:"prefixOverride,omitempty"`

	// Prefix is what the server's tools are exposed under
	// (prefix__tool), unique across the config: PrefixOverride when set,
	// else derived from Name (see config.DerivePrefix). "" exposes the
	// tools by their own names.
	Prefix string `json:"prefix"`

	// Secrets are the values of VS Code password inputs (and envFile
	// values) the entry uses, for redaction; never serialised.
	Secrets []string `json:"-"`

	// ResetTimeoutOnProgress restarts a call's timeout at every
	// notifications/progress the server sends for it (long-running tools
	// that report progress); off by default.
	ResetTimeoutOnProgress bool `json:"resetTimeoutOnProgress,omitempty"`
	// Roots are the file:// URIs mcpvisor answers the server's roots/list
	// with (and advertises the roots capability for); a change is
	// announced to the running server with notifications/roots/list_changed.
	Roots []string `json:"roots,omitempty"`
	// AllowUnsolicitedRequests lets the server send sampling and
	// elicitation requests outside any call to it (right after
	// initialize, say); off, they are refused. Applies live.
	AllowUnsolicitedRequests bool `json:"allowUnsolicitedRequests,omitempty"`
	// OAuth configures how a remote server's OAuth authorization is
	// obtained; nil means the defaults (the authorization-code grant with
	// dynamic client registration, when the server asks for it).
	OAuth *OAuthSpec `json:"oauth,omitempty"`

	// Source is where the entry was declared (the position of its name).
	Source Position `json:"source"`
	// Fingerprint is a stable hash of the expanded session-affecting fields
	// (transport, command, args, env, cwd, url, headers, inheritEnv). Two
	// specs with the same fingerprint can share one live session.
	Fingerprint string `json:"fingerprint"`
}

// The OAuth grants mcpvisor can use.
const (
	// GrantAuthorizationCode needs a person once: `mcpvisor auth login`.
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials needs nobody: the daemon fetches its own tokens.
	GrantClientCredentials = "client_credentials"
)

// OAuthSpec is a server's oauth config object, expanded.
type OAuthSpec struct {
	// ClientID and ClientSecret are a pre-registered client.
	ClientID     string   `json:"clientId,omitempty"`
	ClientSecret string   `json:"-"` // a secret: never serialised
	Scopes       []string `json:"scopes,omitempty"`
	// ClientMetadataURL is a client ID metadata document URL, used where
	// the authorization server supports them.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Grant is GrantAuthorizationCode (when empty) or GrantClientCredentials.
	Grant string `json:"grant,omitempty"`
	// PrivateKeyFile is a PEM key for private_key_jwt client authentication.
	PrivateKeyFile string `json:"privateKeyFile,omitempty"`
	// Issuer and TokenURL name the authorization server (its issuer
	// identifier, its token endpoint) that ClientSecret and PrivateKeyFile
	// may authenticate to: a server naming another one is refused. Empty,
	// the first one the server names is recorded with the token and held.
	Issuer   string `json:"issuer,omitempty"`
	TokenURL string `json:"tokenUrl,omitempty"`
}

// EnvPolicy says which variables of mcpvisor's environment a stdio server
// inherits. With All, every one; otherwise only the minimal base (PATH,
// HOME, USER, LOGNAME, SHELL, TERM, TZ, TMPDIR, LANG and LC_*) plus the
// names in Allow. The server's own env is always added on top.
type EnvPolicy struct {
	All bool `json:"all,omitempty"`
	// Allow names variables, or prefixes ending in "*" ("NODE_*").
	Allow []string `json:"allow,omitempty"`
}

// InvalidServer is a config entry that cannot run, with the reason.
type InvalidServer struct {
	Name   string   `json:"name"`
	Source Position `json:"source"`
	Reason string   `json:"reason"`
	// State is how the entry is shown: empty means StateInvalid (it breaks
	// a rule); StateUntrusted marks an entry of a project file the user
	// has not approved, which was not even read beyond its name;
	// StateNeedsInput an entry that refers to a VS Code input that has
	// no value yet.
	State State `json:"state,omitempty"`
}

// EntryState is the state the entry is shown in: State, or StateInvalid
// when State is empty.
func (s InvalidServer) EntryState() State {
	if s.State == "" {
		return StateInvalid
	}
	return s.State
}

// Severity grades a diagnostic.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	// SeverityNote marks what mcpvisor did quietly (a field of another
	// tool ignored or mapped); only check --verbose shows notes.
	SeverityNote Severity = "note"
)

// Diagnostic is one problem found in a config file.
type Diagnostic struct {
	Position
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}
