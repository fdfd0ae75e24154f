package httpapi

import (
	"net/http"
	"strings"

	"go.uber.org/zap"
)

// routes is the API's table of contents.
func (s *Server) routes(g guard) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/healthz", only(http.MethodGet, http.HandlerFunc(s.healthz)))
	mux.Handle("/metrics", g.wrap(only(http.MethodGet, s.metrics.Handler())))
	mux.Handle("/api/v1/status", g.wrap(only(http.MethodGet, http.HandlerFunc(s.status))))
	mux.Handle("/api/v1/tools", g.wrap(only(http.MethodGet, http.HandlerFunc(s.tools))))
	mux.Handle("/api/v1/tools/call", g.wrap(only(http.MethodPost, http.HandlerFunc(s.callTool))))
	mux.Handle("/api/v1/resync", g.wrap(only(http.MethodPost, http.HandlerFunc(s.resync))))
	mux.Handle("/api/v1/events", g.wrap(only(http.MethodGet, http.HandlerFunc(s.events))))
	mux.Handle("/", g.wrap(http.HandlerFunc(notFound)))
	return s.logRequests(g.checkOrigin(mux))
}

// only answers 405, with a JSON body, to any other method.
func only(method string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, "use "+method+" for "+r.URL.Path)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func notFound(w http.ResponseWriter, r *http.Request) {
	msg := "no such endpoint " + r.URL.Path
	if !strings.HasPrefix(r.URL.Path, "/api/v1/") {
		msg += " (the API lives under /api/v1/; see docs/api.md)"
	}
	writeError(w, http.StatusNotFound, msg)
}

// healthz answers 200 while the fleet is supervised, and 503 with the
// reason once it is not (a core actor failed, or it is shutting down).
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	if err := s.fleet.Err(); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "failed", "error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// logRequests logs every request at debug level: method, path, status and
// duration; never headers or bodies.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.log.Core().Enabled(zap.DebugLevel) {
			next.ServeHTTP(w, r)
			return
		}
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		start := s.clock.Now("httpapi", "request")
		next.ServeHTTP(rec, r)
		s.log.Debug("request", zap.String("method", r.Method), zap.String("path", r.URL.Path),
			zap.Int("status", rec.code), zap.Duration("took", s.clock.Since(start, "httpapi", "request")))
	})
}

// statusRecorder remembers the status code; Unwrap keeps
// http.ResponseController (flushing event streams) working.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
