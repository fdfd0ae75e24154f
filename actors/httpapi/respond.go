package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/mcpvisor/mcpvisor/actors/internal/httpguard"
)

// writeJSON sends v with status code. Encoding errors can only come from
// a client that went away; there is nobody left to tell.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeError sends {"error": msg}.
func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, ErrorBody{Error: msg})
}

// requestError is a bad request body: code and a message that says what
// to send instead.
type requestError struct {
	code int
	msg  string
}

func (e *requestError) Error() string { return e.msg }

// decodeBody reads a bounded application/json body into v, within the
// body timeout. An empty body leaves v as it is. Unknown fields are
// rejected so that a typo ("dryrun") is not silently ignored.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return &requestError{http.StatusUnsupportedMediaType, "send the body as Content-Type: application/json"}
	}
	limit := s.opts.MaxBodyBytes
	raw, err := httpguard.ReadBody(w, r, s.clock, s.opts.BodyTimeout, limit)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", limit)}
	case errors.Is(err, httpguard.ErrBodyTimeout):
		return &requestError{http.StatusRequestTimeout, fmt.Sprintf("request body not received within %s", s.opts.BodyTimeout)}
	case err != nil:
		return &requestError{http.StatusBadRequest, "reading the body: " + err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return &requestError{http.StatusBadRequest, "bad JSON body: " + err.Error()}
	}
	if dec.More() {
		return &requestError{http.StatusBadRequest, "bad JSON body: more than one JSON value"}
	}
	return nil
}

// writeRequestError answers a decodeBody failure.
func writeRequestError(w http.ResponseWriter, err error) {
	var re *requestError
	if errors.As(err, &re) {
		writeError(w, re.code, re.msg)
		return
	}
	writeError(w, http.StatusBadRequest, err.Error())
}
