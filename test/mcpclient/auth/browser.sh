#!/bin/sh
# A "browser" for the conformance suite's authorization servers, which
# redirect at once: follow the redirects to mcpvisor's loopback listener.
exec curl -sS -L -o /dev/null --max-time 30 "$1"
