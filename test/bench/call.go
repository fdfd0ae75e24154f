package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// callLimit bounds every benchmarked call: a call with no answer by then
// is counted as lost, not waited for.
const callLimit = 10 * time.Second

// callTarget is one server the call scenarios measure, and every path to
// it: directly (one raw stdio hop), through `mcpvisor serve` over stdio
// and over streamable HTTP, through mcp-hub's /mcp (when the peer kit is
// installed) and, for the example server, one raw streamable HTTP hop.
type callTarget struct {
	label string
	e     entry
	peers []*mcpPeer
}

func (t *callTarget) close() {
	for _, p := range t.peers {
		p.close()
	}
}

// Path names, as the tables print them.
const (
	pathDirect    = "direct (one raw stdio hop)"
	pathServe     = "mcpvisor serve, stdio"
	pathRawHTTP   = "one raw streamable HTTP hop"
	pathServeHTTP = "mcpvisor serve, streamable HTTP"
	pathHub       = "mcp-hub 4.2.1, /mcp (HTTP+SSE)"
)

// callTargets opens every path to the example server and, with the peer
// kit, to server-everything (its echo tool). Each path runs its own
// server process.
func (h *harness) callTargets(ctx context.Context) ([]*callTarget, *hubManager, error) {
	targets := []*callTarget{{label: "example server", e: entry{Command: h.bin, Args: []string{"example-server"}}}}
	var hub *hubManager
	node, nerr := exec.LookPath("node")
	peers := filepath.Join(h.root, "test", "bench", "peers")
	_, kerr := os.Stat(filepath.Join(peers, "node_modules", "mcp-hub", "dist", "cli.js"))
	if nerr == nil && kerr == nil {
		kit := nodeKit{node: node, peers: peers, work: h.work}
		targets = append(targets, &callTarget{label: "server-everything", e: kit.server("everything", "everything")})
		hub = &hubManager{h: h, peers: peers, node: node}
	} else {
		warnf("no peer kit (node %v, mcp-hub %v): measuring the example server without mcp-hub", nerr, kerr)
	}
	fail := func(err error) ([]*callTarget, *hubManager, error) {
		for _, t := range targets {
			t.close()
		}
		if hub != nil {
			hub.stop()
		}
		return nil, nil, err
	}
	all := fleet{}
	for i, t := range targets {
		name := fmt.Sprintf("t%d", i)
		cfg := filepath.Join(h.work, "call-"+name+".json")
		if err := (fleet{name: t.e}).write(cfg); err != nil {
			return fail(err)
		}
		all[name] = t.e
		for _, open := range []func() (*mcpPeer, error){
			func() (*mcpPeer, error) { return h.directPeer(ctx, pathDirect, t.e) },
			func() (*mcpPeer, error) { return h.serveStdioPeer(ctx, pathServe, cfg, nil, nil) },
			func() (*mcpPeer, error) { return h.serveHTTPPeer(ctx, pathServeHTTP, cfg) },
		} {
			p, err := open()
			if err != nil {
				return fail(fmt.Errorf("%s: %w", t.label, err))
			}
			t.peers = append(t.peers, p)
		}
		if i == 0 {
			p, err := h.rawHTTPPeer(ctx, pathRawHTTP)
			if err != nil {
				return fail(err)
			}
			t.peers = append(t.peers, p)
		}
	}
	if hub != nil {
		// One mcp-hub for both servers, as it is meant to run; each is
		// called by the name mcp-hub gives its echo tool.
		cfg := filepath.Join(h.work, "call-hub.json")
		if err := all.write(cfg); err != nil {
			return fail(err)
		}
		mark := 0
		if _, err := hub.start(ctx, cfg); err != nil {
			return fail(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		_, err := hub.allUp(wctx, mark, all.names())
		cancel()
		if err != nil {
			return fail(fmt.Errorf("mcp-hub: %w", err))
		}
		for i, t := range targets {
			p, err := hub.mcpPeer(ctx, pathHub, fmt.Sprintf("t%d", i))
			if err != nil {
				return fail(err)
			}
			t.peers = append(t.peers, p)
		}
	}
	return targets, hub, nil
}

// benchCall: the added latency of one tool call through each path, in
// rounds that visit every path once in a rotating order, so that the
// machine's drift falls on all of them alike.
func (h *harness) benchCall(ctx context.Context) (string, error) {
	targets, hub, err := h.callTargets(ctx)
	if err != nil {
		return "", err
	}
	defer func() {
		for _, t := range targets {
			t.close()
		}
		if hub != nil {
			hub.stop()
		}
	}()
	rounds, warm := h.opt.callRounds, max(20, h.opt.callRounds/20)
	var body string
	plotData := map[string][]strip{}
	for _, t := range targets {
		lat := make(map[string]sample, len(t.peers))
		lost := map[string]int{}
		for r := range warm + rounds {
			for i := range t.peers {
				p := t.peers[(r+i)%len(t.peers)]
				d, err := p.call(ctx, callLimit)
				if err != nil {
					if ctx.Err() != nil {
						return "", ctx.Err()
					}
					lost[p.name]++
					continue
				}
				if r >= warm {
					lat[p.name] = append(lat[p.name], d)
				}
			}
		}
		direct, rawHTTP := lat[pathDirect], lat[pathRawHTTP]
		var tb table
		tb.head = []string{fmt.Sprintf("%s: echo, %d rounds (every path once a round, rotating)", t.label, rounds), "p50 µs", "p99 µs", "added p50 µs", "added p99 µs", "lost"}
		for _, p := range t.peers {
			s := lat[p.name]
			added50, added99 := "–", "–"
			if p.name != pathDirect {
				added50, added99 = us(s.median()-direct.median()), us(s.p99()-direct.p99())
			}
			tb.add(p.name, us(s.median()), us(s.p99()), added50, added99, fmt.Sprint(lost[p.name]))
		}
		body += tb.String()
		body += callVerdicts(lat, t.label, rawHTTP != nil)
		plotData[t.label] = callStrips(t.peers, lat)
		h.samples["call/"+t.label] = func() map[string]any {
			out := map[string]any{}
			for name, s := range lat {
				out[name+" (ms)"] = s.msList()
			}
			return out
		}()
		body += "\n"
	}
	body += "Added latency is over the direct call's same quantile; \"lost\" counts calls with no answer within " + callLimit.String() + ".\n"
	if h.opt.callPlot != "" {
		if err := h.plotCalls(h.opt.callPlot, targets, plotData); err != nil {
			return body, err
		}
		body += "\nPlot: " + h.opt.callPlot + "\n"
	}
	body += commandLine("call", fmt.Sprintf("-call-rounds %d", rounds))
	return body, nil
}

// callVerdicts states the call targets from the medians.
func callVerdicts(lat map[string]sample, label string, withHTTP bool) string {
	direct := lat[pathDirect].median()
	addedStdio := lat[pathServe].median() - direct
	out := fmt.Sprintf("\nTargets (%s):\n", label)
	bound := direct*12/10 + 20*time.Microsecond
	out += fmt.Sprintf("- stdio: added p50 %s µs against 1.2 × one stdio hop + 20 µs = %s µs (ratio added / hop %.2f): %s.\n",
		us(addedStdio), us(bound), float64(addedStdio)/float64(direct), verdict(addedStdio <= bound))
	if withHTTP {
		hop := lat[pathRawHTTP].median()
		addedHTTP := lat[pathServeHTTP].median() - direct
		hb := hop*12/10 + 20*time.Microsecond
		out += fmt.Sprintf("- streamable HTTP: added p50 %s µs (over the direct stdio call) against 1.2 × one raw HTTP hop (%s µs) + 20 µs = %s µs: %s.\n",
			us(addedHTTP), us(hop), us(hb), verdict(addedHTTP <= hb))
	}
	if hub, ok := lat[pathHub]; ok {
		addedHub := hub.median() - direct
		out += fmt.Sprintf("- against mcp-hub's /mcp (adds %s µs at p50): serve over stdio adds %.2f× and over HTTP %.2f× of that; target at most 0.5×: %s (stdio), %s (HTTP).\n",
			us(addedHub), float64(addedStdio)/float64(addedHub), float64(lat[pathServeHTTP].median()-direct)/float64(addedHub),
			verdict(2*addedStdio <= addedHub), verdict(2*(lat[pathServeHTTP].median()-direct) <= addedHub))
	}
	return out
}

// us formats d in microseconds.
func us(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond)) }

// benchThroughput: -callers concurrent callers on one session for
// -throughput-time, through each path to the example server, alternating
// direct and gateway runs; calls per second and the ratio.
func (h *harness) benchThroughput(ctx context.Context) (string, error) {
	e := entry{Command: h.bin, Args: []string{"example-server"}}
	cfg := filepath.Join(h.work, "throughput.json")
	if err := (fleet{"t0": e}).write(cfg); err != nil {
		return "", err
	}
	var peers []*mcpPeer
	defer func() {
		for _, p := range peers {
			p.close()
		}
	}()
	for _, open := range []func() (*mcpPeer, error){
		func() (*mcpPeer, error) { return h.directPeer(ctx, pathDirect, e) },
		func() (*mcpPeer, error) { return h.serveStdioPeer(ctx, pathServe, cfg, nil, nil) },
		func() (*mcpPeer, error) { return h.rawHTTPPeer(ctx, pathRawHTTP) },
		func() (*mcpPeer, error) { return h.serveHTTPPeer(ctx, pathServeHTTP, cfg) },
	} {
		p, err := open()
		if err != nil {
			return "", err
		}
		peers = append(peers, p)
	}
	n, dur, reps := h.opt.callers, h.opt.throughputTime, h.opt.throughputReps
	rates := map[string][]float64{}
	lost := map[string]int64{}
	for rep := range reps {
		for i := range peers {
			p := peers[(rep+i)%len(peers)]
			calls, l, err := hammer(ctx, p, n, dur)
			if err != nil {
				return "", err
			}
			rates[p.name] = append(rates[p.name], calls/dur.Seconds())
			lost[p.name] += l
			progress("throughput rep %d: %s %.0f calls/s, %d lost", rep, p.name, calls/dur.Seconds(), l)
		}
	}
	var tb table
	tb.head = []string{fmt.Sprintf("%d concurrent callers on one session, %s per run, %d runs each (rotating)", n, dur, reps), "calls/s min / median / max", "lost"}
	for _, p := range peers {
		tb.add(p.name, rateMMM(rates[p.name]), fmt.Sprint(lost[p.name]))
	}
	ratio := medianF(rates[pathServe]) / medianF(rates[pathDirect])
	ratioHTTP := medianF(rates[pathServeHTTP]) / medianF(rates[pathRawHTTP])
	h.samples["throughput"] = map[string]any{"callers": n, "seconds": dur.Seconds(), "calls_per_s": rates, "lost": lost}
	ratioHTTPStdio := medianF(rates[pathServeHTTP]) / medianF(rates[pathDirect])
	body := tb.String() + fmt.Sprintf("\nRatio of medians, gateway / direct: stdio %.2f; streamable HTTP %.2f over the raw HTTP hop (%.2f over the direct stdio path). Target at least 0.5: %s (stdio), %s (HTTP over its hop). Lost calls (no answer within %s): %d.\n",
		ratio, ratioHTTP, ratioHTTPStdio, verdict(ratio >= 0.5), verdict(ratioHTTP >= 0.5), callLimit, lost[pathServe]+lost[pathServeHTTP])
	body += commandLine("throughput", fmt.Sprintf("-callers %d -throughput-time %s -throughput-reps %d", n, dur, reps))
	return body, nil
}

// hammer runs n callers on p for d and returns how many calls were
// answered and how many got no answer within callLimit.
func hammer(ctx context.Context, p *mcpPeer, n int, d time.Duration) (float64, int64, error) {
	var done, lost atomic.Int64
	var firstErr atomic.Pointer[error]
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for time.Now().Before(end) && ctx.Err() == nil {
				_, err := p.call(ctx, callLimit)
				switch {
				case err == nil:
					done.Add(1)
				case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
					lost.Add(1)
				default:
					firstErr.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return 0, 0, fmt.Errorf("%s: %w", p.name, *e)
	}
	return float64(done.Load()), lost.Load(), ctx.Err()
}

func medianF(v []float64) float64 {
	s := make(sample, len(v))
	for i, x := range v {
		s[i] = time.Duration(x * 1000)
	}
	return float64(s.median()) / 1000
}

func rateMMM(v []float64) string {
	s := make(sample, len(v))
	for i, x := range v {
		s[i] = time.Duration(x)
	}
	return fmt.Sprintf("%d / %d / %d", s.min(), s.median(), s.max())
}
