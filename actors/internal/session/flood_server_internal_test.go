package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/quartz"
)

// floodServer is an MCP server scripted by hand over a pair of streams, as
// the hostile server of finding R1 was: it answers the handshake, ping and
// tools/list, and sends notifications/tools/list_changed as fast as it can
// write them, which the go-sdk's own server never does (it coalesces its
// notifications within 10 ms). Its one tool is named after how many
// notifications it has sent ("v0", "v1", ...), so a listing says which of
// them it saw; it counts the tools/list requests it answers, and when each
// came (on clock).
type floodServer struct {
	r     *bufio.Reader
	clock quartz.Clock
	// afterFirstList, if positive, is a flood the server writes right
	// after its first tools/list answer (the connect's), before it reads
	// anything more: the stdio test's flood, with no test goroutine to
	// start it.
	afterFirstList int
	// longAfterFirstList, if positive, is the length of a line the
	// server writes right after its first tools/list answer, as a
	// notification whose params fill it, before it goes on serving.
	longAfterFirstList int
	// countFile, if set, gets the number of tools/list answered, written
	// before each answer (the stdio test reads it once the process is
	// gone).
	countFile string

	mu    sync.Mutex // guards w and times
	w     io.Writer
	times []time.Time // when each tools/list came, on clock

	sent atomic.Int64 // notifications written so far
}

// serve answers requests until r ends.
func (s *floodServer) serve() error {
	for {
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("flood server: %q: %w", line, err)
		}
		if len(req.ID) == 0 {
			continue // a notification (initialized) or a response
		}
		switch req.Method {
		case "initialize":
			s.answer(req.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"flood","version":"1"}}`)
		case "tools/list":
			n := s.listed()
			s.answer(req.ID, fmt.Sprintf(`{"tools":[{"name":"v%d","inputSchema":{"type":"object"}}]}`, s.sent.Load()))
			if n == 1 && s.afterFirstList > 0 {
				s.flood(s.afterFirstList)
			}
			if n == 1 && s.longAfterFirstList > 0 {
				s.writeLong(s.longAfterFirstList)
			}
		case "ping":
			s.answer(req.ID, `{}`)
		default:
			s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", req.ID))
		}
	}
}

// listed records a tools/list and returns how many there were.
func (s *floodServer) listed() int {
	s.mu.Lock()
	s.times = append(s.times, s.clock.Now())
	n := len(s.times)
	s.mu.Unlock()
	if s.countFile != "" {
		_ = os.WriteFile(s.countFile, []byte(strconv.Itoa(n)), 0o600)
	}
	return n
}

// lists is when each tools/list came, in order.
func (s *floodServer) lists() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times...)
}

// flood writes n tools/list_changed notifications, in writes of up to
// floodChunk, each chunk counted in sent before it is written, so a
// listing answered later names it.
func (s *floodServer) flood(n int) {
	const line = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n"
	for n > 0 {
		k := min(n, floodChunk)
		n -= k
		s.sent.Add(int64(k))
		s.write(strings.Repeat(line, k))
	}
}

// floodChunk is how many notifications go in one write.
const floodChunk = 256

// writeLong writes a notification of n bytes, its newline included.
func (s *floodServer) writeLong(n int) {
	const head, tail = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`, `"}}` + "\n"
	s.write(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
}

func (s *floodServer) answer(id json.RawMessage, result string) {
	s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result))
}

// write writes whole lines, one write at a time.
func (s *floodServer) write(lines string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = io.WriteString(s.w, lines)
}

// Environment of the test binary run as a flood server (runFloodServer).
const (
	floodEnv      = "MCPVISOR_SESSION_TEST_FLOOD"       // notifications after the connect's listing
	floodCountEnv = "MCPVISOR_SESSION_TEST_FLOOD_COUNT" // where the count of tools/list goes
	longLineEnv   = "MCPVISOR_SESSION_TEST_LONG_LINE"   // the length of a line after the connect's listing
)

// runFloodServer serves MCP on stdin and stdout as a flood server if the
// test binary was started as one (TestMain), and reports whether it was.
func runFloodServer() bool {
	n, err := strconv.Atoi(os.Getenv(floodEnv))
	long, err2 := strconv.Atoi(os.Getenv(longLineEnv))
	if err != nil && err2 != nil {
		return false
	}
	s := &floodServer{r: bufio.NewReader(os.Stdin), w: os.Stdout, clock: quartz.NewReal(),
		afterFirstList: n, longAfterFirstList: long, countFile: os.Getenv(floodCountEnv)}
	if err := s.serve(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return true
}
