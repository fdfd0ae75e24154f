package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpvisor/mcpvisor/actors/peercred"
)

// ErrForeignCallback aborts a login when the loopback listener receives,
// from the logging-in user, a redirect whose state is not the login's:
// another program on this machine is trying to hand the login a code of
// its own (or an old browser tab answered). No code is exchanged.
var ErrForeignCallback = errors.New("a callback with a state that is not this login's arrived at the login's loopback listener " +
	"(another program on this machine, or an old browser tab): the login is aborted and no code was exchanged; run `mcpvisor auth login` again")

// ErrDuplicateCallback aborts a login when a second redirect with the
// login's state arrives: someone else knows the state, so whichever code
// came first may be theirs. The token, if any, is discarded.
var ErrDuplicateCallback = errors.New("a second callback with this login's state arrived at the login's loopback listener " +
	"(another program on this machine knows the login's state, or the browser sent it again): the login is aborted and its token discarded; run `mcpvisor auth login` again")

// callback is the loopback listener the authorization server redirects
// the browser to. It hands the flow at most one redirect: one that comes
// on a connection the logging-in user owns (on Linux the client socket's
// owner in /proc/net/tcp, through peercred; elsewhere the state check
// alone), to /callback, carrying the state of the authorization request
// under way. Another user's connection, another path, a favicon request
// are answered "ignored" and change nothing. A redirect from the user
// with another state, or a second one with the right state, aborts the
// login (ErrForeignCallback, ErrDuplicateCallback): with the URL kept
// out of every argv only another program of the user's can send one, and
// the login must say so rather than guess which code is the browser's.
type callback struct {
	redirect string
	me       uint32
	ignored  func(string) // told, once, of a request from another user
	srv      *http.Server
	served   chan struct{}

	handlers sync.WaitGroup // requests being answered; close waits for them

	mu       sync.Mutex
	closed   bool   // close has begun: requests are turned away
	state    string // of the authorization request under way; "" before the flow asks
	taken    bool   // a redirect with state was handed to the flow
	noted    bool   // ignored was called
	failure  error  // why the login is aborted; set once
	failed   chan struct{}
	results  chan callbackResult
	shutdown sync.Once
}

// callbackResult is one redirect handed to the flow: the code, state and
// issuer, or the authorization server's error.
type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenForCallback listens on the loopback port port (0: a free one;
// a port that is taken falls back to a free one, whose redirect then
// differs from a registered one) and serves redirects until close.
func listenForCallback(port int, ignored func(string)) (*callback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil && port != 0 {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("loopback listener: %w", err)
	}
	cb := &callback{
		redirect: "http://" + ln.Addr().String() + "/callback",
		me:       uint32(os.Geteuid()),
		ignored:  ignored,
		served:   make(chan struct{}),
		failed:   make(chan struct{}),
		results:  make(chan callbackResult, 1),
	}
	cb.srv = &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second, ConnContext: cb.connOwner}
	go func() { defer close(cb.served); _ = cb.srv.Serve(ln) }()
	return cb, nil
}

// close stops the listener and waits for it and for the requests being
// answered (none blocks); after close no redirect changes the callback's
// verdict (aborted), and Ignored is not called any more.
func (cb *callback) close() {
	cb.shutdown.Do(func() {
		cb.mu.Lock()
		cb.closed = true
		cb.mu.Unlock()
		_ = cb.srv.Close()
		<-cb.served
		cb.handlers.Wait()
	})
}

// begin counts a request in, unless close has begun.
func (cb *callback) begin() bool {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.closed {
		return false
	}
	cb.handlers.Add(1)
	return true
}

// ownerKey is the context key of a connection's owner.
type ownerKey struct{}

// owner is who owns a connection's client end, as far as can be told.
type owner struct {
	user bool   // the logging-in user (or the platform cannot tell)
	who  string // otherwise: "uid N", or why nobody could be found
}

// connOwner records, once per accepted connection and while its client
// end still exists, who owns that end.
func (cb *callback) connOwner(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, ownerKey{}, cb.ownerOf(c))
}

// ownerOf tells who owns the client end of c (c's remote address is that
// end's local one). Where the platform cannot tell
// (peercred.ErrUnsupported) the state check is all there is; an unknown
// socket or an unreadable table counts as someone else's.
func (cb *callback) ownerOf(c net.Conn) owner {
	client, errC := netip.ParseAddrPort(c.RemoteAddr().String())
	server, errS := netip.ParseAddrPort(c.LocalAddr().String())
	if errC != nil || errS != nil {
		return owner{who: "an unknown address"}
	}
	uid, err := peercred.TCPOwner(client, server)
	switch {
	case errors.Is(err, peercred.ErrUnsupported):
		return owner{user: true}
	case err != nil:
		return owner{who: "an owner that cannot be told (" + err.Error() + ")"}
	case uid != cb.me:
		return owner{who: "uid " + strconv.FormatUint(uint64(uid), 10)}
	}
	return owner{user: true}
}

// expect arms the callback for the authorization request at authURL:
// its state is the only one a redirect may carry from now on, and a
// redirect taken for an earlier request and never waited for is dropped
// (wait must not hand it over, nor keep the new one out).
func (cb *callback) expect(authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil || u.Query().Get("state") == "" {
		return errors.New("oauth: the authorization URL carries no state")
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.state, cb.taken = u.Query().Get("state"), false
	select {
	case <-cb.results: // a redirect of an earlier request, never read: not this one's
	default:
	}
	return nil
}

// wait returns the redirect handed over, or the reason the login is
// aborted, or ctx's error.
func (cb *callback) wait(ctx context.Context) (*auth.AuthorizationResult, error) {
	select {
	case r := <-cb.results:
		if err := cb.aborted(); err != nil {
			return nil, err
		}
		return r.res, r.err
	case <-cb.failed:
		return nil, cb.aborted()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// noteIgnored tells the person, once per login, that a request from
// another user's connection was ignored: a login that never completes
// then says why (a browser whose connections another uid owns, or an
// attack).
func (cb *callback) noteIgnored(who string) {
	cb.mu.Lock()
	first := !cb.noted
	cb.noted = true
	cb.mu.Unlock()
	if first && cb.ignored != nil {
		cb.ignored("the login's loopback listener ignored a request on a connection owned by " + who +
			", not by you: if that was your browser, it runs as another user; run `mcpvisor auth login` from that user")
	}
}

// aborted is why the login is aborted, or nil.
func (cb *callback) aborted() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return cb.failure
}

// ServeHTTP answers one request: see callback.
func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !cb.begin() {
		answer(w, http.StatusServiceUnavailable, "ignored: the login is over.")
		return
	}
	defer cb.handlers.Done()
	if o, _ := r.Context().Value(ownerKey{}).(owner); !o.user {
		cb.noteIgnored(o.who)
		answer(w, http.StatusForbidden, "ignored: this connection is not from the user who is logging in.")
		return
	}
	if r.URL.Path != "/callback" {
		answer(w, http.StatusNotFound, "ignored: not the login's callback.")
		return
	}
	if err := cb.take(r.URL.Query()); err != nil {
		answer(w, http.StatusBadRequest, "mcpvisor: the login is aborted. "+err.Error())
		return
	}
	answer(w, http.StatusOK, "mcpvisor has the authorization and is finishing the login: your terminal says how it ends. You can close this window.")
}

// take hands the redirect q to the flow, or aborts the login when q is
// not the one redirect the login expects.
func (cb *callback) take(q url.Values) error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch {
	case cb.failure != nil:
		return cb.failure
	case cb.state == "" || q.Get("state") != cb.state:
		return cb.abort(ErrForeignCallback)
	case cb.taken:
		return cb.abort(ErrDuplicateCallback)
	}
	cb.taken = true
	r := callbackResult{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
	if e := q.Get("error"); e != "" {
		r = callbackResult{err: &AuthorizationError{Code: e, Description: q.Get("error_description")}}
	}
	select {
	case cb.results <- r:
	default: // cannot happen: expect empties it, and one redirect is taken per state
	}
	return nil
}

// abort records err as the login's end; cb.mu is held.
func (cb *callback) abort(err error) error {
	cb.failure = err
	close(cb.failed)
	return err
}

// AuthorizationError is the authorization server's error redirect
// (RFC 6749 §4.1.2.1), with the login's state. Its fields are as the
// redirect carried them; its text has them escaped (printable).
type AuthorizationError struct {
	Code        string
	Description string
}

func (e *AuthorizationError) Error() string {
	if e.Description == "" {
		return "the authorization server refused: " + printable(e.Code)
	}
	return fmt.Sprintf("the authorization server refused: %s (%s)", printable(e.Code), printable(e.Description))
}

// printable is s, text of a redirect anyone could craft, with every rune
// a terminal would not show as itself escaped (control characters and
// escape sequences, bidirectional overrides, invalid UTF-8): the login's
// error is printed to the person's terminal.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != utf8.RuneError && unicode.IsGraphic(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func answer(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, "<!doctype html><p>"+html.EscapeString(text)+"</p>")
}
