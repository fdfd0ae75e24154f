package session

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/actors/internal/transport"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// attachOAuth gives a remote session an OAuth handler over the token
// store, unless OAuth is off or the entry brings its own authorization: an
// Authorization header set by hand, or a headersHelper (which then is all
// the authorization it sends; a 401 is the helper's failure, not a login
// to run). The streamable HTTP transport takes the handler as it is; an
// HTTP+SSE connection, which has no OAuth hook, gets it in front of its
// requests (see transport.Conn.Authorize), and so does the HTTP+SSE connection that
// transport detection may fall back to. Every token the handler obtains
// joins the session's redactor; the stored one's values join it on the
// lifeline, before the connect (reading them is disk I/O).
func (s *sessionActor) attachOAuth(cn *transport.Conn) {
	if s.deps.OAuthDir == "" || config.HasAuthorization(s.spec.Headers) || s.spec.HeadersHelper != "" {
		return
	}
	client, ok := cn.OAuthClient(s.spec.URL, s.spec.OAuth)
	if !ok {
		return
	}
	s.oauth = oauth.NewHandler(oauth.Config{
		Server: s.spec.Name, URL: s.spec.URL, Spec: s.spec.OAuth,
		Store: oauth.Store{Dir: s.deps.OAuthDir}, Clock: s.deps.Clock, Client: client, Context: s.ctx,
		Learn: s.redactor.learn,
	})
	cn.Authorize(s.oauth)
}

// authFailure marks a failure that only a login can cure: the fleet then
// parks the server in needs-auth, with the handler's message saying what
// to run.
func (s *sessionActor) authFailure(m *messages.ServerFailed) *messages.ServerFailed {
	if s.oauth == nil {
		return m
	}
	if na := s.oauth.NeedsAuth(); na != nil {
		m.NeedsAuth, m.Error, m.StderrTail = true, s.redactor.Redact(na.Error()), nil
	}
	return m
}

// authNeeded tells the session actor that a call was refused for want of
// authorization that only a login can give (a scope step-up).
type authNeeded struct{}

// authNeeded parks the server in needs-auth, as listFailed fails it: the
// lifeline then closes the connection.
func (s *sessionActor) authNeeded(c actor.Context) {
	if s.cs == nil || s.failed {
		return
	}
	s.listFailed(c, s.oauth.NeedsAuth())
}
