package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// visor is one `mcpvisor run --listen 127.0.0.1:0` process, with its
// event stream followed over the HTTP API.
type visor struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	exited  <-chan struct{}
	stderr  *tail
	log     *eventLog
	stopSSE context.CancelFunc
}

// startVisor starts `mcpvisor run` on config, with env as its environment
// (nil: the harness's), and returns once its HTTP API answers and its
// event stream is followed from the first event. t0 is taken just before
// the process is started.
func (h *harness) startVisor(ctx context.Context, config string, env []string, extra ...string) (v *visor, t0 time.Time, err error) {
	args := append([]string{"run", "--listen", "127.0.0.1:0", "--config", config}, extra...)
	cmd := exec.Command(h.bin, args...)
	cmd.Dir = h.work
	if env == nil {
		env = os.Environ()
	}
	// The API wants a token: give the daemon one, rather than let it
	// create a token file in the user's state directory.
	cmd.Env = append(env, "MCPVISOR_TOKEN="+apiToken)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, t0, err
	}
	v = &visor{cmd: cmd, stderr: &tail{max: 40}}
	cmd.Stderr = v.stderr
	t0 = time.Now()
	if v.exited, err = h.reaper.start(cmd); err != nil {
		return nil, t0, fmt.Errorf("start mcpvisor: %w", err)
	}
	addr := make(chan string, 1)
	go func() {
		// Drain stdout (mcpvisor prints every event there; a full pipe
		// would stall it), picking out the API address. It ends when the
		// process exits and the reaper's Wait closes the pipe.
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "mcpvisor: HTTP API on http://"); ok {
				select {
				case addr <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout) // after a scan error, keep draining
	}()
	select {
	case a := <-addr:
		v.base = "http://" + a
	case <-v.exited:
		return nil, t0, fmt.Errorf("mcpvisor exited before serving its API: %s", v.stderr)
	case <-time.After(20 * time.Second):
		v.kill()
		return nil, t0, errors.New("mcpvisor printed no API address within 20s")
	case <-ctx.Done():
		v.kill()
		return nil, t0, ctx.Err()
	}
	sseCtx, cancel := context.WithCancel(ctx)
	v.stopSSE = cancel
	v.log = newEventLog(h.reaper.visorEvent)
	if err := v.log.follow(sseCtx, v.base+"/api/v1/events?since=0", apiToken); err != nil {
		v.kill()
		return nil, t0, err
	}
	return v, t0, nil
}

func (v *visor) pid() int { return v.cmd.Process.Pid }

// stop sends SIGTERM and waits (bounded) for the process to exit; then it
// SIGKILLs whatever is left. It returns how long the exit took.
func (v *visor) stop() time.Duration {
	t0 := time.Now()
	_ = v.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-v.exited:
	case <-time.After(20 * time.Second):
		warnf("mcpvisor %d did not exit 20s after SIGTERM: killed", v.pid())
		v.kill()
	}
	v.stopSSE()
	return time.Since(t0)
}

func (v *visor) kill() {
	_ = syscall.Kill(-v.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-v.exited:
	case <-time.After(5 * time.Second):
	}
	if v.stopSSE != nil {
		v.stopSSE()
	}
}

// status is GET /api/v1/status.
func (v *visor) status(ctx context.Context) (messages.Status, error) {
	var st messages.Status
	err := getJSON(ctx, v.base+"/api/v1/status", &st)
	return st, err
}

// resync is POST /api/v1/resync; the answer comes once the servers the
// resync retried have settled.
func (v *visor) resync(ctx context.Context) (resyncAnswer, error) {
	var ans resyncAnswer
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.base+"/api/v1/resync", strings.NewReader("{}"))
	if err != nil {
		return ans, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+apiToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ans, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return ans, fmt.Errorf("resync: %s: %s", resp.Status, b)
	}
	return ans, json.NewDecoder(resp.Body).Decode(&ans)
}

type resyncAnswer struct {
	Complete bool                     `json:"complete"`
	Plan     []messages.PlanStep      `json:"plan"`
	Outcomes []messages.ServerOutcome `json:"outcomes"`
	Note     string                   `json:"note"`
}

// toolNames is GET /api/v1/tools: the fleet-wide tool names.
func (v *visor) toolNames(ctx context.Context) (map[string]bool, error) {
	var ans struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := getJSON(ctx, v.base+"/api/v1/tools", &ans); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, t := range ans.Tools {
		out[t.Name] = true
	}
	return out, nil
}

var apiClient = &http.Client{Timeout: 10 * time.Second}

// apiToken is the bearer token of every mcpvisor the harness starts.
var apiToken = func() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}()

func getJSON(ctx context.Context, url string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+apiToken)
	resp, err := apiClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

// tail keeps the last lines written to it (a process's stderr).
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.lines = append(t.lines, string(t.part[:i]))
		t.part = t.part[i+1:]
		if len(t.lines) > t.max {
			t.lines = t.lines[len(t.lines)-t.max:]
		}
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(append(slices.Clone(t.lines), string(t.part)), "\n")
}
