package chaos_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The model is the test's own account of the config: which entries each
// file declares after each write. mcpvisor is never asked what it read: a
// config read is attributed to the writes it saw through a marker (see
// markerField), and the model says what those writes declared.

// serverKind is what an entry runs and how it is expected to behave.
type serverKind string

const (
	kindOK       serverKind = "ok"       // healthy example server
	kindSlow     serverKind = "slow"     // healthy, answers its handshake late (--init-delay)
	kindFlaky    serverKind = "flaky"    // becomes ready, then exits by itself (--exit-after)
	kindWrapped  serverKind = "wrapped"  // sh -c with a grandchild that holds its pipes
	kindHang     serverKind = "hang"     // never answers its handshake (--init-hang, short connectTimeout)
	kindInitFail serverKind = "initfail" // refuses its handshake (--init-fail)
	kindGarbage  serverKind = "garbage"  // writes garbage on stdout (--garbage)
	kindHTTP     serverKind = "http"     // streamable HTTP server run by the test
	kindHTTP500  serverKind = "http500"  // HTTP server that answers every request with a 500
	kindHTTPDown serverKind = "httpdown" // HTTP URL where nothing listens: connection refused
	kindMarker   serverKind = "marker"   // disabled entry that carries the write's marker
	kindInvalid  serverKind = "invalid"  // refers to an unset variable: invalid
)

// broken kinds fail by design and stay failed once their crash-loop
// budget is spent.
func (k serverKind) broken() bool {
	return k == kindHang || k == kindInitFail || k == kindGarbage || k == kindHTTP500 || k == kindHTTPDown
}

// http kinds are reached over streamable HTTP.
func (k serverKind) http() bool { return k == kindHTTP || k == kindHTTP500 || k == kindHTTPDown }

// stdio kinds run a process of ours.
func (k serverKind) stdio() bool {
	return !k.http() && k != kindMarker && k != kindInvalid
}

// entry is one server entry as the test writes it.
type entry struct {
	Kind serverKind
	// Variant selects arguments: the number of extra tools (stdio) and,
	// for flaky servers, how long they live.
	Variant int
	// Secret is a literal secret: an env value (stdio) or a header (http).
	Secret   string
	Disabled bool
	// Live-settable fields: changing them must not restart the server.
	CallTimeout string
	DenyTools   []string
}

// sessionKey is what identifies the session an entry runs: equal keys must
// share a session (mcpvisor's fingerprint covers the same fields, expanded:
// transport, command, args, env, url, headers). Disabled, callTimeout and
// denyTools are not part of it.
func (e entry) sessionKey() string {
	return fmt.Sprintf("%s/%d/%s", e.Kind, e.Variant, e.Secret)
}

// fleetEnv is what every rendering needs beyond the entry itself.
type fleetEnv struct {
	bin       string
	pidFile   string // where wrapped servers append their grandchild's pid
	liveAddr  string // the HTTP server (host:port)
	deadAddr  string // the HTTP server that answers 500
	downAddr  string // a loopback port nothing listens on
	urlPass   string // secret: URL password
	urlPath   string // secret: URL path segment
	urlQuery  string // secret: URL query value
	argToken  string // secret: a bearer token written literally in args
	runMarker string // CHAOS_RUN value of every process of this run
	tokenFile string // holds the API token (secret), which wrapped servers print on stderr
}

// Variables the config refers to, as LookupEnv answers them.
const (
	varToken     = "CHAOS_TOKEN"          // expanded into every stdio entry's env
	varHTTPToken = "CHAOS_HTTP_TOKEN"     // expanded into the HTTP entries' Authorization header
	varUnset     = "CHAOS_UNSET_VARIABLE" // never set: the invalid entry refers to it
)

// render is the JSON value of an entry named name.
func (e entry) render(name string, env *fleetEnv) map[string]any {
	m := map[string]any{}
	switch e.Kind {
	case kindMarker:
		return map[string]any{"command": "chaos-marker", "disabled": true}
	case kindInvalid:
		return map[string]any{"command": env.bin, "args": []string{"example-server"}, "env": map[string]string{"CHAOS_MISSING": "${" + varUnset + "}"}}
	case kindHTTP, kindHTTP500, kindHTTPDown:
		addr := map[serverKind]string{kindHTTP: env.liveAddr, kindHTTP500: env.deadAddr, kindHTTPDown: env.downAddr}[e.Kind]
		m["type"] = "http"
		m["url"] = fmt.Sprintf("http://chaos:%s@%s/mcp/%s?token=%s", env.urlPass, addr, env.urlPath, env.urlQuery)
		m["headers"] = map[string]string{"Authorization": "Bearer ${" + varHTTPToken + "}", "X-Chaos-Key": e.Secret}
	case kindWrapped:
		// The script holds a credential in the clear, as a curl-style
		// wrapper would, and prints it to stderr.
		script := fmt.Sprintf("echo 'calling with Authorization: Bearer %s' >&2; cat %s >&2; sleep 300 & echo $! >> %s; exec %s example-server --name %s --extra-tools %d",
			env.argToken, env.tokenFile, env.pidFile, env.bin, name, e.Variant)
		m["command"] = "/bin/sh"
		m["args"] = []string{"-c", script}
	default:
		args := []string{"example-server", "--name", name, "--extra-tools", strconv.Itoa(e.Variant)}
		switch e.Kind {
		case kindSlow:
			args = append(args, "--init-delay", "150ms")
		case kindFlaky:
			args = append(args, "--exit-after", fmt.Sprintf("%dms", 1000+500*e.Variant), "--exit-code", strconv.Itoa(3+e.Variant))
		case kindHang:
			args = append(args, "--init-hang")
			m["connectTimeout"] = "300ms"
		case kindInitFail:
			args = append(args, "--init-fail")
		case kindGarbage:
			args = append(args, "--garbage")
		}
		m["command"] = env.bin
		m["args"] = args
	}
	if e.Kind.stdio() {
		m["env"] = map[string]string{
			"CHAOS_API_KEY":   e.Secret,
			"CHAOS_EXPANDED":  "${" + varToken + "}",
			"CHAOS_DEFAULTED": "${CHAOS_NOT_SET:-plain-default}",
		}
	}
	if e.Disabled {
		m["disabled"] = true
	}
	if e.CallTimeout != "" {
		m["callTimeout"] = e.CallTimeout
	}
	if len(e.DenyTools) > 0 {
		m["denyTools"] = e.DenyTools
	}
	return m
}

// markerField is the unknown field a valid write puts into its file's
// marker entry. mcpvisor ignores unknown fields with a warning naming
// them, so every config.loaded event says, through its diagnostics, which
// write of each file the read used (the last-good rule repeats the
// diagnostics of the version it keeps). It changes nothing mcpvisor runs.
func markerField(id int) string { return "x-chaos-w" + strconv.Itoa(id) }

// markerName is the marker entry's name in file i.
func markerName(file int) string { return "marker-" + string(rune('a'+file)) }

// invalidName is the entry that is always invalid.
const invalidName = "broken-entry"

// renderFile is the content of a valid write: every entry plus the marker
// field, under "mcpServers" or (VS Code's) "servers", sometimes with a
// leading comment (JSONC).
func renderFile(entries map[string]entry, id, file int, env *fleetEnv, rng *rand.Rand) []byte {
	servers := make(map[string]any, len(entries))
	for name, e := range entries {
		r := e.render(name, env)
		if name == markerName(file) {
			r[markerField(id)] = true
		}
		servers[name] = r
	}
	key := "mcpServers"
	if rng.IntN(4) == 0 {
		key = "servers"
	}
	var data []byte
	if rng.IntN(2) == 0 {
		data, _ = json.MarshalIndent(map[string]any{key: servers}, "", "  ")
	} else {
		data, _ = json.Marshal(map[string]any{key: servers})
	}
	if rng.IntN(3) == 0 {
		data = append([]byte("// chaos write "+strconv.Itoa(id)+"\n"), data...)
	}
	return data
}

// badContent is an unusable file of the given kind, made from good (a
// valid rendering). mcpvisor must keep what the file last contributed.
func badContent(kind string, good []byte, rng *rand.Rand) []byte {
	switch kind {
	case "truncated":
		return good[:rng.IntN(len(good))]
	case "empty":
		return nil
	case "comments-only":
		return []byte("// everything commented out\n/* { \"mcpServers\": {} } */\n")
	case "not-an-object":
		return []byte(`[{"mcpServers": {}}]`)
	default: // "syntax"
		s := string(good)
		i := strings.LastIndexByte(s, '}')
		return []byte(s[:i] + ",,}")
	}
}

var badKinds = []string{"syntax", "truncated", "empty", "comments-only", "not-an-object"}

// dsEntry is one name of a desired state as the model predicts it.
type dsEntry struct {
	key      string
	kind     serverKind
	disabled bool
	invalid  bool
}

// desired is a predicted desired state: name → entry.
type desired map[string]dsEntry

// merge predicts the desired state of files read with these contents (nil:
// the file contributes nothing), in precedence order: the first file to
// declare a name wins.
func merge(files ...map[string]entry) desired {
	out := desired{}
	for _, f := range files {
		for name, e := range f {
			if _, taken := out[name]; taken {
				continue
			}
			out[name] = dsEntry{key: e.sessionKey(), kind: e.Kind, disabled: e.Disabled, invalid: e.Kind == kindInvalid}
		}
	}
	return out
}

// valid counts the valid entries (disabled ones included): what
// config.loaded calls servers.
func (d desired) valid() int {
	n := 0
	for _, e := range d {
		if !e.invalid {
			n++
		}
	}
	return n
}

func (d desired) equal(o desired) bool { return maps.Equal(d, o) }

func (d desired) String() string {
	names := slices.Sorted(maps.Keys(d))
	parts := make([]string, 0, len(names))
	for _, n := range names {
		e := d[n]
		s := n + "=" + e.key
		if e.disabled {
			s += "(disabled)"
		}
		if e.invalid {
			s += "(invalid)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
