package ndjson_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Whatever a server prints, reading it ends (at the end of the input, or
// earlier with an error), never panics, and every message read encodes
// again.
func FuzzConn_Read(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}` + "\n",
		`{"jsonrpc":"2.0","id":"a","result":{}}` + "\r\n\n",
		`[{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n",
		"{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"c\"\n}\n",
		"[INFO] starting\n",
		`{"jsonrpc":"2.0","method":"d","params":{"s":"unterminated` + "\n",
		"[]\n",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		c := reading(input)
		ctx := context.Background()
		for n := 0; ; n++ {
			if n > len(input) {
				t.Fatalf("read %d messages from %d bytes", n, len(input))
			}
			msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("message %d read but does not encode: %v", n+1, err)
			}
		}
	})
}
