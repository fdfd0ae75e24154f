# mcpvisor developer targets. `make test` is what CI runs (via .ci/run).
GO ?= go
PKGS := ./...

.PHONY: build test demo vet fmt fuzz stress bench ci

build:
	$(GO) build -o bin/mcpvisor ./cmd/mcpvisor

# The README's test command: installs the npm servers the conformance
# tests supervise (npm ci, when the lockfile is newer than the install),
# then runs every test with the race detector.
NPM_STAMP := test/conformance/node_modules/.package-lock.json

test: $(NPM_STAMP)
	$(GO) test -race -count=1 $(PKGS)

$(NPM_STAMP): test/conformance/package-lock.json test/conformance/package.json
	cd test/conformance && npm ci --no-audit --no-fund --loglevel=error

demo: build
	bin/mcpvisor run --config docs/examples/demo.mcp.json

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: run gofmt -w"; exit 1; }

# Each fuzz target for FUZZTIME (default 1m).
FUZZTIME ?= 1m
fuzz:
	@for t in $$($(GO) test -list '^Fuzz' ./reconciler/ | grep ^Fuzz); do \
		echo "== $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) ./reconciler/ || exit 1; done

# Repeat the actor and watcher tests to shake out flakes.
STRESS ?= 20
stress:
	$(GO) test -race -count=$(STRESS) ./actors/ ./watcher/ ./test/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./reconciler/ ./watcher/ ./actors/

ci:
	bash .ci/run
