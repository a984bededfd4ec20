#!/usr/bin/env bash
# Runs the MCP conformance suite's server scenarios that apply to a
# tools-only server against `recall serve`, over Streamable HTTP and over
# stdio. Usage: scripts/conformance.sh [http|stdio|all]   (default all)
#
# The suite (@modelcontextprotocol/conformance) only connects to a URL, so
# stdio is reached through supergateway, which turns each HTTP session into a
# `recall serve` process and passes the JSON-RPC messages through unchanged.
# Versions are pinned: conformance 0.1.13 is the newest that runs on Node 20
# (0.1.14 and later import fs.globSync, which Node 22 added).
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.1.13
SUPERGATEWAY_VERSION=4.0.0
# Scenarios for a server that offers tools only: the rest test resources,
# prompts, completions, sampling, elicitation or tools with fixed names
# (test_simple_text, ...) that only the suite's reference server has.
SCENARIOS=(server-initialize ping tools-list logging-set-level)
HTTP_ONLY=(dns-rebinding-protection)
mode=${1:-all}

if ! command -v node >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq nodejs npm
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT

echo "--- installing the suite and the gateway (npm)"
(cd "$work" && echo '{"private":true}' > package.json &&
  npm install --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "supergateway@$SUPERGATEWAY_VERSION" >/dev/null)
suite="node $work/node_modules/@modelcontextprotocol/conformance/dist/index.js"

go build -tags sqlite_fts5 -o "$work/recall" ./cmd/recall
export RECALL_SQLITE_PATH="$work/recall.db" RECALL_LOG_LEVEL=ERROR
# No Ollama is needed for these scenarios; an address nothing listens on keeps
# the run independent of one.
export RECALL_OLLAMA_HOST=http://127.0.0.1:9

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  return 1
}

failed=0
run_scenarios() { # transport url scenario...
  local transport=$1 url=$2
  shift 2
  for s in "$@"; do
    if out=$($suite server --url "$url" --scenario "$s" 2>&1) && grep -q "0 failed" <<<"$out"; then
      echo "PASS  $transport  $s"
    else
      echo "FAIL  $transport  $s"
      sed 's/^/      /' <<<"$out" | tail -20
      failed=1
    fi
  done
}

if [ "$mode" = http ] || [ "$mode" = all ]; then
  port=$(free_port)
  "$work/recall" serve --http "127.0.0.1:$port" &
  pids+=($!)
  wait_port "$port"
  run_scenarios http "http://127.0.0.1:$port/" "${SCENARIOS[@]}" "${HTTP_ONLY[@]}"
fi

if [ "$mode" = stdio ] || [ "$mode" = all ]; then
  port=$(free_port)
  node "$work/node_modules/supergateway/dist/index.js" --stdio "$work/recall serve" \
    --outputTransport streamableHttp --stateful --port "$port" --logLevel none &
  pids+=($!)
  wait_port "$port"
  run_scenarios stdio "http://127.0.0.1:$port/mcp" "${SCENARIOS[@]}"
fi

if [ "$failed" = 0 ]; then echo "all scenarios passed"; fi
exit "$failed"
