package actors

import (
	"bytes"
	"sync"
)

// stderrRing keeps the last lines a server wrote to stderr. It is the
// process's stderr writer, so Write runs on the exec package's copying
// goroutine; Tail may be called from anywhere.
type stderrRing struct {
	mu      sync.Mutex
	lines   []string // ring of at most max complete lines
	next    int      // index of the oldest line once the ring is full
	partial []byte   // an unterminated last line, bounded by maxLine
	max     int
}

const (
	stderrLines   = 64
	stderrLineMax = 1024
)

func newStderrRing(max int) *stderrRing { return &stderrRing{max: max} }

func (r *stderrRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.partial = appendBounded(r.partial, p)
			break
		}
		r.partial = appendBounded(r.partial, p[:i])
		r.push(string(bytes.TrimRight(r.partial, "\r")))
		r.partial = r.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func appendBounded(dst, src []byte) []byte {
	room := stderrLineMax - len(dst)
	if room <= 0 {
		return dst
	}
	if len(src) > room {
		src = src[:room]
	}
	return append(dst, src...)
}

func (r *stderrRing) push(line string) {
	if len(r.lines) < r.max {
		r.lines = append(r.lines, line)
		return
	}
	r.lines[r.next] = line
	r.next = (r.next + 1) % r.max
}

// Tail returns the kept lines, oldest first, plus an unterminated last line.
func (r *stderrRing) Tail() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.lines)+1)
	out = append(out, r.lines[r.next:]...)
	out = append(out, r.lines[:r.next]...)
	if len(r.partial) > 0 {
		out = append(out, string(r.partial))
	}
	return out
}
