package ndjson

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireMessage is a JSON-RPC message as it is on the wire: a request (with
// a method, and an id if it is a call) or a response.
type wireMessage struct {
	Version string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  *string         `json:"method"` // a pointer: present, even empty, makes a request
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// decodeMessage decodes one message as the go-sdk's jsonrpc.DecodeMessage
// does, with encoding/json (which allocates no per-value buffer).
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	return w.message()
}

func (w *wireMessage) message() (jsonrpc.Message, error) {
	if w.Version != "2.0" {
		return nil, fmt.Errorf("jsonrpc is %q, not \"2.0\"", w.Version)
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, err
	}
	if w.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *w.Method, Params: w.Params}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("a response with no id")
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil { // not a typed nil in the error interface
		resp.Error = w.Error
	}
	return resp, nil
}

// decodeBatch decodes a JSON-RPC batch: an array of at least one message.
func decodeBatch(data []byte) ([]jsonrpc.Message, error) {
	var ws []wireMessage
	if err := json.Unmarshal(data, &ws); err != nil {
		return nil, err
	}
	if len(ws) == 0 {
		return nil, errors.New("an empty batch")
	}
	msgs := make([]jsonrpc.Message, len(ws))
	for i := range ws {
		msg, err := ws[i].message()
		if err != nil {
			return nil, fmt.Errorf("batch message %d: %w", i+1, err)
		}
		msgs[i] = msg
	}
	return msgs, nil
}
