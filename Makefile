# mcpvisor developer targets. `make test` is what CI runs (via .ci/run).
GO ?= go
PKGS := ./...

.PHONY: build test demo vet fmt fuzz stress bench bench-go bench-peers bench-gateway ci chaos conformance-suite conformance-client conformance-auth

build:
	$(GO) build -o bin/mcpvisor ./cmd/mcpvisor

# The README's test command: installs the npm servers the conformance
# tests supervise and the clients the compatibility matrix runs (test/clients:
# the TypeScript SDK, the MCP Inspector, Claude Code and Node 22), with npm
# ci when a lockfile is newer than its install, then runs every test with
# the race detector.
NPM_STAMP := test/conformance/node_modules/.package-lock.json
CLIENTS_STAMP := test/clients/node_modules/.package-lock.json

test: $(NPM_STAMP) $(CLIENTS_STAMP)
	$(GO) test -race -count=1 $(PKGS)

$(NPM_STAMP): test/conformance/package-lock.json test/conformance/package.json
	cd test/conformance && npm ci --no-audit --no-fund --loglevel=error

$(CLIENTS_STAMP): test/clients/package-lock.json test/clients/package.json
	cd test/clients && npm ci --no-audit --no-fund --loglevel=error

demo: build
	bin/mcpvisor run --config docs/examples/demo.mcp.json

vet:
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: run gofmt -w"; exit 1; }

# Each fuzz target of every package that has one, for FUZZTIME (default
# 1m) each.
FUZZTIME ?= 1m
fuzz:
	@for dir in $$($(GO) list -f '{{.Dir}}' $(PKGS)); do \
		for t in $$(cat $$dir/*_test.go 2>/dev/null | grep -o '^func Fuzz[A-Za-z0-9_]*' | cut -c6-); do \
			echo "== $$dir $$t"; (cd $$dir && $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) .) || exit 1; \
		done; \
	done

# The chaos test (test/chaos) injecting faults for CHAOS_DURATION; `make
# test` runs it for 45s. CHAOS_SEED replays a run: the seed is printed at
# the start and on failure. CHAOS_TIMEOUT bounds the whole go test run.
CHAOS_DURATION ?= 5m
CHAOS_SEED ?=
CHAOS_TIMEOUT ?= 3h
chaos:
	CHAOS_DURATION=$(CHAOS_DURATION) CHAOS_SEED=$(CHAOS_SEED) $(GO) test -race -count=1 -v -run '^TestChaos$$' -timeout $(CHAOS_TIMEOUT) ./test/chaos/

# Repeat the actor and watcher tests to shake out flakes.
STRESS ?= 20
stress:
	$(GO) test -race -count=$(STRESS) ./actors/... ./watcher/ ./test/...

# Go micro-benchmarks of the packages.
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./reconciler/... ./watcher/ ./actors/... ./test/e2e/

# The end-to-end benchmark harness (test/bench, a module of its own: not
# part of `go test ./...`): edit, crash, cold start, close, idle and resync
# against the real binary, printed as Markdown tables (docs/benchmarks.md).
# BENCHFLAGS picks scenarios and sizes, e.g. BENCHFLAGS='-only edit -edits 5'.
bench:
	cd test/bench && $(GO) run . $(BENCHFLAGS)

# Side by side with mcp-hub, on the npm reference servers pinned in
# test/bench/peers (npm ci when the lockfile is newer than the install);
# redraws docs/edit-to-ready.png.
PEERS_STAMP := test/bench/peers/node_modules/.package-lock.json

bench-peers: $(PEERS_STAMP)
	cd test/bench && $(GO) run . -only peers -plot ../../docs/edit-to-ready.png $(BENCHFLAGS)

# The gateway, `mcpvisor serve`: call latency (direct, serve over stdio
# and HTTP, mcp-hub's /mcp), 64-caller throughput, start of slow servers
# cold and warm, edit to notified client; redraws docs/call-latency.png.
bench-gateway: $(PEERS_STAMP)
	cd test/bench && $(GO) run . -only gateway -call-plot ../../docs/call-latency.png $(BENCHFLAGS)

$(PEERS_STAMP): test/bench/peers/package-lock.json test/bench/peers/package.json
	cd test/bench/peers && npm ci --no-audit --no-fund --loglevel=error

# The official MCP conformance suite's server scenarios, against the
# go-sdk's conformance server directly and through `mcpvisor serve`
# (test/mcpconformance/run.sh; see docs/reliability.md). .ci/run runs it
# after `make test`.
conformance-suite:
	bash test/mcpconformance/run.sh

# The official MCP conformance suite's client scenarios that need no OAuth,
# with mcpvisor's own sessions as the client (test/mcpclient/run.sh; see
# docs/reliability.md). .ci/run runs it.
conformance-client:
	bash test/mcpclient/run.sh

# The suite's client auth/* scenarios with mcpvisor as the client
# (test/mcpclient/auth/run.sh; expected failures listed beside it). In CI.
conformance-auth:
	bash test/mcpclient/auth/run.sh

ci:
	bash .ci/run
