package ndjson

import (
	"bytes"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A batch is the calls of one JSON-RPC batch read from the peer: their
// responses go back as one batch, once all are written (JSON-RPC 2.0,
// section 6). Its notifications need no answer. Protocol versions from
// 2025-06-18 on have no batches; older peers may send them.
type batch struct {
	unanswered int
	answers    [][]byte
}

// track records the calls among msgs, a batch just read, so that Write
// holds their responses until the batch is answered.
func (c *Conn) track(msgs []jsonrpc.Message) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	b := &batch{}
	for _, msg := range msgs {
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		if c.batches[req.ID] != nil {
			return fmt.Errorf("the batch repeats the id %v of a call not yet answered", req.ID.Raw())
		}
		if c.batches == nil {
			c.batches = map[jsonrpc.ID]*batch{}
		}
		c.batches[req.ID] = b
		b.unanswered++
	}
	return nil
}

// answer adds one encoded response; once it was the last, it returns the
// whole batch encoded, else nil.
func (b *batch) answer(data []byte) []byte {
	b.answers = append(b.answers, data)
	b.unanswered--
	if b.unanswered > 0 {
		return nil
	}
	return append(append([]byte{'['}, bytes.Join(b.answers, []byte{','})...), ']')
}
