package ndjson

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessage is the longest message a Conn reads, the go-sdk's own bound
// for its stdio connection: a longer one ends the connection, and no more
// than this is ever buffered.
const MaxMessage = mcp.DefaultMaxLineLength

// ErrMessageTooLong is in the chain of the error Read returns for a
// message longer than MaxMessage.
var ErrMessageTooLong = errors.New("message too long")

// keepBuffer is the most a Conn keeps between messages of the buffer that
// assembles long or multi-line ones: one huge message does not pin its
// size for the connection's life.
const keepBuffer = 1 << 20

// Transport is a Conn's mcp.Transport: Connect returns a Conn over Reader
// and Writer, which it then owns (Close closes both). Connect it once.
type Transport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
}

// Connect returns the Conn.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	return NewConn(t.Reader, t.Writer), nil
}

// Conn is an mcp.Connection that reads JSON-RPC messages, one per line,
// from r and writes them, one per line, to w. Read is for one goroutine at
// a time; Write and Close for any.
type Conn struct {
	r      *bufio.Reader
	closeR io.Closer
	frame  framer
	value  []byte            // the message being assembled, when it spans reads
	queue  []jsonrpc.Message // a batch's messages not yet read
	lines  int               // lines read, for errors that point at one

	writeMu sync.Mutex
	w       io.WriteCloser
	out     []byte // the line being written; guarded by writeMu
	// batches holds, by request id, the batch each call read in a batch
	// belongs to, until its response is written; guarded by writeMu.
	batches map[jsonrpc.ID]*batch

	closeOnce sync.Once
	closeErr  error

	// broken is the error that ended reading when the stream was at
	// fault (Broken); written once by the reader, read by anyone.
	broken atomic.Pointer[error]
}

// NewConn returns a Conn over r and w; closing it closes both.
func NewConn(r io.ReadCloser, w io.WriteCloser) *Conn {
	return &Conn{r: bufio.NewReaderSize(r, 64<<10), closeR: r, w: w}
}

// SessionID is empty: a stdio connection has no session id.
func (c *Conn) SessionID() string { return "" }

// Read returns the next message. A batch's messages are returned one by
// one, in order.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		msg := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		return msg, nil
	}
	msg, err := c.read()
	var fault *streamFault
	if errors.As(err, &fault) {
		if !errors.Is(fault.err, io.ErrUnexpectedEOF) { // cut short by an exit: the exit says more
			c.broken.CompareAndSwap(nil, &fault.err)
		}
		return nil, fault.err
	}
	return msg, err
}

// read reads the next message of a new value. An error that is the
// stream's fault comes as a *streamFault.
func (c *Conn) read() (jsonrpc.Message, error) {
	data, err := c.readValue()
	if err != nil {
		return nil, err
	}
	if data[0] != '[' {
		msg, err := decodeMessage(data)
		if err != nil {
			return nil, c.lineError(data, err)
		}
		return msg, nil
	}
	msgs, err := decodeBatch(data)
	if err == nil {
		err = c.track(msgs)
	}
	if err != nil {
		return nil, c.lineError(data, err)
	}
	c.queue = msgs[1:]
	return msgs[0], nil
}

// streamFault wraps an error that is the stream's fault, not the reader's
// (a message over the bound, a line that is not JSON-RPC), so Read can
// record it for Broken.
type streamFault struct{ err error }

func (f *streamFault) Error() string { return f.err.Error() }

// Broken is the error that ended reading when what the other end wrote
// was at fault: a message longer than MaxMessage (ErrMessageTooLong in
// its chain) or a line that is not JSON-RPC; nil if reading has not
// ended, or ended otherwise (end of file, a closed pipe). The go-sdk
// closes the connection on a read error without passing it on, so this is
// where the reason a session ended can be found.
func (c *Conn) Broken() error {
	if err := c.broken.Load(); err != nil {
		return *err
	}
	return nil
}

// readValue returns the next JSON value, without the whitespace around
// it. The bytes are valid until the next call.
func (c *Conn) readValue() ([]byte, error) {
	if cap(c.value) > keepBuffer {
		c.value = nil
	}
	c.value = c.value[:0]
	c.frame = framer{}
	for {
		line, err := c.r.ReadSlice('\n')
		if len(c.value)+len(line) > MaxMessage {
			// Cut here: no more than the bound is ever buffered.
			return nil, &streamFault{fmt.Errorf("line %d is a message longer than %d bytes (%d MiB), the bound on one message; the connection was cut there: %w",
				c.lines+1, MaxMessage, MaxMessage>>20, ErrMessageTooLong)}
		}
		if err == nil {
			c.lines++
		}
		c.frame.feed(line)
		whole := !c.frame.open() && err != bufio.ErrBufferFull
		switch {
		case whole && len(c.value) == 0 && err == nil:
			// The usual case, a message on a line of its own: no copy.
			if v := trimSpace(line); len(v) > 0 {
				return v, nil
			}
			continue
		case err != nil && err != bufio.ErrBufferFull:
			return c.lastValue(line, err)
		}
		if !whole && len(c.value) == 0 && err == nil {
			// A value left open by its first line, as a pretty-printing
			// server's is, must at least begin as JSON: a log line such
			// as "[INFO] ..." fails here, not after every line to come.
			if v := trimSpace(line); len(v) > 0 {
				if err := prefixError(v); err != nil {
					return nil, c.lineError(v, err)
				}
			}
		}
		c.value = append(c.value, line...)
		if !whole {
			continue
		}
		if v := trimSpace(c.value); len(v) > 0 {
			return v, nil
		}
		c.value = c.value[:0]
	}
}

// lastValue is what readValue returns when reading stops with err: a last
// value with no newline after it, else the error (io.EOF at a clean end).
func (c *Conn) lastValue(line []byte, err error) ([]byte, error) {
	c.value = append(c.value, line...)
	v := trimSpace(c.value)
	switch {
	case len(v) == 0:
		return nil, err
	case err != io.EOF:
		return nil, err
	case c.frame.open():
		return nil, c.lineError(v, io.ErrUnexpectedEOF)
	}
	return v, nil
}

// lineError says which line a message that could not be read ended on,
// and how long it was, but not what it said: the error reaches the
// server's state (LastError, the events, the API), and a line a server
// printed where a message belonged may hold a secret it was given. Cut
// before redaction, a secret straddling the cut would leave its first
// bytes; so none of the line is quoted. (What a server prints on stderr
// is shown, redacted, in its stderr tail.)
func (c *Conn) lineError(data []byte, err error) error {
	return &streamFault{fmt.Errorf("line %d is not a JSON-RPC message (%d bytes, not shown as they may hold a secret): %w", c.lines, len(data), err)}
}

// Write writes msg as one line. A response to a call that came in a
// batch is held until the batch's last call is answered, and then they
// are written together, as one batch.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok && c.batches[resp.ID] != nil {
		b := c.batches[resp.ID]
		delete(c.batches, resp.ID)
		if data = b.answer(data); data == nil {
			return nil // more of its batch to come
		}
	}
	c.out = append(append(c.out[:0], data...), '\n')
	_, err = c.w.Write(c.out)
	if cap(c.out) > keepBuffer {
		c.out = nil
	}
	return err
}

// Close closes the reader, then the writer; it may be called more than
// once and returns the first call's error.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.closeR.Close(), c.w.Close())
	})
	return c.closeErr
}

// prefixError is nil if data is JSON cut short (what the first line of a
// value spread over several is), else why it is not JSON.
func prefixError(data []byte) error {
	err := json.Unmarshal(data, new(json.RawMessage))
	var syntax *json.SyntaxError
	if err == nil || errors.As(err, &syntax) && syntax.Offset == int64(len(data)) {
		return nil
	}
	return err
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }
