package config

import (
	"maps"
	"slices"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The keys of a server entry, as the rows of serverFields and the
// messages about them name them.
const (
	fieldType           = "type"
	fieldCommand        = "command"
	fieldArgs           = "args"
	fieldEnv            = "env"
	fieldCwd            = "cwd"
	fieldURL            = "url"
	fieldHeaders        = "headers"
	fieldDisabled       = "disabled"
	fieldConnectTimeout = "connectTimeout"
	fieldCallTimeout    = "callTimeout"
	fieldRestart        = "restart"
	fieldAutostart      = "autostart"
	fieldIdleTimeout    = "idleTimeout"
	fieldAllowTools     = "allowTools"
	fieldDenyTools      = "denyTools"
	fieldInheritEnv     = "inheritEnv"
	fieldPrefix         = "prefix"
	fieldEnvFile        = "envFile"
	fieldHeadersHelper  = "headersHelper"
	fieldResetOnProg    = "resetTimeoutOnProgress"
	fieldRoots          = "roots"
	fieldOAuth          = "oauth"
	fieldUnsolicited    = "allowUnsolicitedRequests"
)

// serverFields is the one table of the fields of a server spec. Adding a
// field to messages.ServerSpec means adding one row here: the row says how
// the field is read from a config entry, whether it is part of the
// fingerprint (a change restarts the session), applies live or decides
// whether the server runs at all, which secrets it holds, and how two
// values compare, and how `mcpvisor trust` previews it. Parsing
// (entryParser.parse), the trust preview (PreviewEntries), Fingerprint,
// ChangedFields, LiveChanges, SecretsOf and SameDesired are all loops
// over this table;
// fields_internal_test.go checks that every ServerSpec field has
// exactly one row.
//
// Rows are in the order of the fingerprint encoding, which must not change
// (see fingerprintVersion): a new fingerprinted field goes at the end and
// hashes nothing when it has its default value, so that existing
// fingerprints, and so running sessions, survive an upgrade.
var serverFields = []serverField{
	{
		key: fieldType, spec: "Transport", reads: forAll, effect: EffectRestart,
		preview: previewType,
		// Read by entryParser.transport together with command and url.
		hash:  func(b []byte, s *messages.ServerSpec) []byte { return appendString(b, string(s.Transport)) },
		equal: func(a, b *messages.ServerSpec) bool { return a.Transport == b.Transport },
	},
	{
		key: fieldCommand, spec: "Command", reads: forStdio, effect: EffectRestart, decidesTransport: true,
		preview: previewCommand,
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.Command = e.command(v)
			e.hintCommandWithSpaces(v, s.Command)
		},
		hash:  func(b []byte, s *messages.ServerSpec) []byte { return appendString(b, s.Command) },
		equal: func(a, b *messages.ServerSpec) bool { return a.Command == b.Command },
	},
	{
		key: fieldArgs, spec: "Args", reads: forStdio, effect: EffectRestart,
		preview: previewArgs,
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.Args = e.stringList(v, fieldArgs, true)
		},
		hash:    func(b []byte, s *messages.ServerSpec) []byte { return appendList(b, s.Args) },
		equal:   func(a, b *messages.ServerSpec) bool { return slices.Equal(a.Args, b.Args) },
		secrets: func(s *messages.ServerSpec) []string { return argSecrets(s.Args) },
	},
	{
		key: fieldEnv, spec: "Env", reads: forStdio, effect: EffectRestart,
		preview: previewEnv,
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.Env = mergeEnv(s.Env, e.stringMap(v, fieldEnv, checkEnvName, checkNoNUL, false))
			e.hintBareVars(v)
		},
		hash:    func(b []byte, s *messages.ServerSpec) []byte { return appendMap(b, s.Env) },
		equal:   func(a, b *messages.ServerSpec) bool { return maps.Equal(a.Env, b.Env) },
		secrets: func(s *messages.ServerSpec) []string { return valueSecrets(s.Env) },
	},
	{
		key: fieldCwd, spec: "Cwd", reads: forStdio, effect: EffectRestart,
		preview: previewCwd,
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.Cwd = e.cwd(v) },
		hash:    func(b []byte, s *messages.ServerSpec) []byte { return appendString(b, s.Cwd) },
		equal:   func(a, b *messages.ServerSpec) bool { return a.Cwd == b.Cwd },
	},
	{
		key: fieldURL, spec: "URL", reads: forRemote, effect: EffectRestart, decidesTransport: true,
		preview: previewURL,
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.URL = e.url(v) },
		hash:    func(b []byte, s *messages.ServerSpec) []byte { return appendString(b, s.URL) },
		equal:   func(a, b *messages.ServerSpec) bool { return a.URL == b.URL },
		secrets: func(s *messages.ServerSpec) []string { return urlSecrets(s.URL, true) },
	},
	{
		key: fieldHeaders, spec: "Headers", reads: forRemote, effect: EffectRestart,
		preview: previewHeaders,
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.Headers = e.stringMap(v, fieldHeaders, checkHeaderName, checkHeaderValue, true)
		},
		hash:    func(b []byte, s *messages.ServerSpec) []byte { return appendMap(b, s.Headers) },
		equal:   func(a, b *messages.ServerSpec) bool { return maps.Equal(a.Headers, b.Headers) },
		secrets: func(s *messages.ServerSpec) []string { return valueSecrets(s.Headers) },
	},
	{
		key: fieldDisabled, spec: "Disabled", reads: forAll, effect: EffectRuns,
		preview: previewRaw(fieldDisabled),
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.Disabled = e.bool(v, fieldDisabled) },
		equal:   func(a, b *messages.ServerSpec) bool { return a.Disabled == b.Disabled },
	},
	{
		key: fieldConnectTimeout, spec: "ConnectTimeout", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldConnectTimeout),
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.ConnectTimeout = e.timeout(v, fieldConnectTimeout)
		},
		equal: func(a, b *messages.ServerSpec) bool { return a.ConnectTimeout == b.ConnectTimeout },
	},
	{
		key: fieldCallTimeout, spec: "CallTimeout", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldCallTimeout),
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.CallTimeout = e.timeout(v, fieldCallTimeout)
		},
		equal: func(a, b *messages.ServerSpec) bool { return a.CallTimeout == b.CallTimeout },
	},
	{
		key: fieldRestart, spec: "Restart", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldRestart),
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.Restart = e.restartPolicy(v) },
		equal:   func(a, b *messages.ServerSpec) bool { return a.Restart == b.Restart },
	},
	{
		// When the server starts: at once (eager) or on first use (lazy).
		// A change applies live: a lazy server that is idle stays idle, an
		// idle one made eager starts.
		key: fieldAutostart, spec: "Autostart", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldAutostart),
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.Autostart = e.autostart(v) },
		equal:   func(a, b *messages.ServerSpec) bool { return a.Autostart == b.Autostart },
	},
	{
		key: fieldIdleTimeout, spec: "IdleTimeout", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldIdleTimeout),
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.IdleTimeout = e.timeout(v, fieldIdleTimeout)
		},
		equal: func(a, b *messages.ServerSpec) bool { return a.IdleTimeout == b.IdleTimeout },
	},
	{
		key: fieldAllowTools, spec: "AllowTools", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldAllowTools),
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.AllowTools = e.stringList(v, fieldAllowTools, false)
		},
		equal: func(a, b *messages.ServerSpec) bool { return slices.Equal(a.AllowTools, b.AllowTools) },
	},
	{
		key: fieldDenyTools, spec: "DenyTools", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldDenyTools),
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.DenyTools = e.stringList(v, fieldDenyTools, false)
		},
		equal: func(a, b *messages.ServerSpec) bool { return slices.Equal(a.DenyTools, b.DenyTools) },
	},
	{
		key: fieldInheritEnv, spec: "InheritEnv", reads: forStdio, effect: EffectRestart,
		preview: previewInheritEnv,
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.InheritEnv = e.envPolicy(v) },
		hash:    func(b []byte, s *messages.ServerSpec) []byte { return appendEnvPolicy(b, s.InheritEnv) },
		equal:   func(a, b *messages.ServerSpec) bool { return sameEnvPolicy(a.InheritEnv, b.InheritEnv) },
	},
	{
		key: fieldResetOnProg, spec: "ResetTimeoutOnProgress", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldResetOnProg),
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.ResetTimeoutOnProgress = e.bool(v, fieldResetOnProg)
		},
		equal: func(a, b *messages.ServerSpec) bool { return a.ResetTimeoutOnProgress == b.ResetTimeoutOnProgress },
	},
	{
		key: fieldRoots, spec: "Roots", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldRoots),
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.Roots = e.roots(v) },
		equal:   func(a, b *messages.ServerSpec) bool { return slices.Equal(a.Roots, b.Roots) },
	},
	{
		key: fieldOAuth, spec: "OAuth", reads: forRemote, effect: EffectRestart,
		preview: previewOAuth,
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.OAuth = e.oauth(v) },
		hash:    func(b []byte, s *messages.ServerSpec) []byte { return appendOAuth(b, s.OAuth) },
		equal:   func(a, b *messages.ServerSpec) bool { return sameOAuth(a.OAuth, b.OAuth) },
		secrets: oauthSecrets,
	},

	{
		// Read before env (see envFirst); its variables are merged into
		// Env, which the fingerprint covers, and are secrets. The path
		// itself hashes nothing when absent, so existing fingerprints stay.
		key: fieldEnvFile, spec: "EnvFile", reads: forStdio, effect: EffectRestart,
		preview: previewEnvFile,
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			var vals map[string]string
			s.EnvFile, vals = e.envFile(v)
			s.Env = mergeEnv(vals, s.Env)
		},
		hash: func(b []byte, s *messages.ServerSpec) []byte {
			if s.EnvFile == "" {
				return b
			}
			return appendString(b, s.EnvFile)
		},
		equal: func(a, b *messages.ServerSpec) bool { return a.EnvFile == b.EnvFile },
	},
	{
		// Claude Code's: a command whose output is more headers, run at
		// connect and again after a 401. Hashes nothing when absent.
		key: fieldHeadersHelper, spec: "HeadersHelper", reads: forRemote, effect: EffectRestart,
		preview: previewHeadersHelper,
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.HeadersHelper = e.headersHelper(v) },
		hash: func(b []byte, s *messages.ServerSpec) []byte {
			if s.HeadersHelper == "" {
				return b
			}
			return appendString(b, s.HeadersHelper)
		},
		equal: func(a, b *messages.ServerSpec) bool { return a.HeadersHelper == b.HeadersHelper },
	},
	{
		key: fieldPrefix, spec: "PrefixOverride", reads: forAll, effect: EffectLive,
		preview: previewRaw(fieldPrefix),
		parse:   func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) { s.PrefixOverride = e.prefix(v) },
		equal: func(a, b *messages.ServerSpec) bool {
			return (a.PrefixOverride == nil) == (b.PrefixOverride == nil) &&
				(a.PrefixOverride == nil || *a.PrefixOverride == *b.PrefixOverride)
		},
	},

	{
		// Lets the server ask its client (sampling, elicitation) outside
		// any call to it; applies to the running session at once.
		key: fieldUnsolicited, spec: "AllowUnsolicitedRequests", reads: forAll, effect: EffectLive,
		parse: func(e *entryParser, v *hujson.Value, s *messages.ServerSpec) {
			s.AllowUnsolicitedRequests = e.bool(v, fieldUnsolicited)
		},
		preview: previewRaw(fieldUnsolicited),
		equal:   func(a, b *messages.ServerSpec) bool { return a.AllowUnsolicitedRequests == b.AllowUnsolicitedRequests },
	},

	// Fields no entry sets: they are derived from where and how the entry
	// is declared.
	{
		// Derived from the name and the prefix field across the whole
		// config (assignPrefixes); a change renames the exposed tools
		// without a restart.
		spec: "Prefix", effect: EffectIdentity,
		equal: func(a, b *messages.ServerSpec) bool { return a.Prefix == b.Prefix },
	},
	{
		spec: "Name", effect: EffectIdentity,
		equal: func(a, b *messages.ServerSpec) bool { return a.Name == b.Name },
	},
	{
		// Only the file counts as part of the desired state: line and
		// column move with every edit above the entry (see SameDesired).
		spec: "Source", effect: EffectIdentity,
		equal: func(a, b *messages.ServerSpec) bool { return a.Source.Path == b.Source.Path },
	},
	{
		// The values of password inputs the entry uses: secrets wherever
		// they are expanded into.
		spec: "Secrets", effect: EffectIdentity,
		equal:   func(a, b *messages.ServerSpec) bool { return slices.Equal(a.Secrets, b.Secrets) },
		secrets: func(s *messages.ServerSpec) []string { return s.Secrets },
	},
	{
		spec: "Fingerprint", effect: EffectIdentity,
		equal: func(a, b *messages.ServerSpec) bool { return a.Fingerprint == b.Fingerprint },
	},
}

// serverField describes one field of messages.ServerSpec; see serverFields.
type serverField struct {
	// key is the field's name in a config entry; "" for a derived field.
	key string
	// spec is the name of the messages.ServerSpec field it fills.
	spec string
	// reads says which transports read the field. A field of another
	// transport's kind is ignored with a warning, or, when it decides
	// the transport (command, url), is a conflict reported by
	// entryParser.transport.
	reads            transportKinds
	decidesTransport bool
	// effect says what a change of the field does to a running server.
	effect FieldEffect
	// parse reads the field's value (never nil, never JSON null) into the
	// spec, recording any problem on the parser. nil for the type field,
	// which entryParser.transport reads, and for derived fields.
	parse func(e *entryParser, v *hujson.Value, s *messages.ServerSpec)
	// hash appends the field's canonical encoding to a fingerprint; set
	// exactly for the fields whose effect is EffectRestart.
	hash func(b []byte, s *messages.ServerSpec) []byte
	// equal compares the field of two specs.
	equal func(a, b *messages.ServerSpec) bool
	// secrets lists the secret values the field holds, expanded; nil for a
	// field that holds none.
	secrets func(s *messages.ServerSpec) []string
	// preview adds to an entry's trust preview what the field, as written,
	// makes mcpvisor do (see EntryPreview); set exactly for the fields
	// an entry can set, so that `mcpvisor trust` shows every one of them.
	preview func(p *previewer, v *hujson.Value)
}

// transportKinds says which servers read a field.
type transportKinds uint8

const (
	forStdio transportKinds = 1 << iota
	forRemote
	forAll = forStdio | forRemote
)

// fieldIndex returns the row of the entry key name, or -1. It allocates
// nothing: the compiler compares the bytes in place.
func fieldIndex(name []byte) int {
	for i := range serverFields {
		if k := serverFields[i].key; k != "" && string(name) == k {
			return i
		}
	}
	return -1
}

// fieldNamed returns the row of an entry key, which must exist.
func fieldNamed(key string) int {
	i := fieldIndex([]byte(key))
	if i < 0 {
		panic("reconciler: no field " + key)
	}
	return i
}

// Rows that entryParser.transport reads directly.
var (
	rowType    = fieldNamed(fieldType)
	rowCommand = fieldNamed(fieldCommand)
	rowURL     = fieldNamed(fieldURL)
	rowHeaders = fieldNamed(fieldHeaders)
	rowEnv     = fieldNamed(fieldEnv)
	rowEnvFile = fieldNamed(fieldEnvFile)
)

// envFirst is the order entryParser.parse reads the rows in: envFile and
// env first, so that the other values can fall back on them (see
// lookupEnv), then the table's order.
var envFirst = func() []int {
	order := []int{rowEnvFile, rowEnv}
	for i := range serverFields {
		if i != rowEnv && i != rowEnvFile {
			order = append(order, i)
		}
	}
	return order
}()
