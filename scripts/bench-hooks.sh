#!/usr/bin/env bash
# Times the hooks as whole processes (BenchmarkHookFigures in
# tests/hooks_figures_bench_test.go) and the MCP server's spawn + initialize
# (BenchmarkSpawnInitialize in tests/mcp_bench_test.go) on this tree and on an
# older commit, in the same run: for each figure the older build runs first and
# this tree's right after, so that a shared machine's load falls on both alike.
# The older commit gets this tree's benchmark files; its binary answers no hooks
# on a socket, so the "server" figures are this tree's alone.
#
#   scripts/bench-hooks.sh a176b15            # the commit before the hooks' budgets and socket
#   RUNS='prompt-1k-ollama-down spawn-initialize' scripts/bench-hooks.sh a176b15
#
# RECALL_BENCH_OLLAMA / RECALL_BENCH_MODEL time prompt-10k-vectors against a
# real Ollama (see the benchmark). spawn-initialize also times the official MCP
# memory server (npm @modelcontextprotocol/server-memory) in the same run: it is
# installed with npm into ~/.cache/recall-bench unless RECALL_BENCH_MCP_MEMORY
# names its command. RECALL_BENCH_SEEDS=DIR keeps the seeded databases in
# DIR/old and DIR/new for the next run (seeding 100k takes minutes).
# RECALL_BENCH_RUNS=N times N hooks per figure instead of 30: each figure
# starts from a fresh copy of its database, and a few hundred runs show one
# whose write-ahead log hooks have grown all day.
# Output: benchmark lines, "old" then "new".
set -euo pipefail
base=${1:?usage: scripts/bench-hooks.sh <older commit>}
here=$(cd "$(dirname "$0")/.." && pwd)
old=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$old" >/dev/null 2>&1 || rm -rf "$old"' EXIT
git -C "$here" worktree add --quiet --detach "$old" "$base" >/dev/null
cp "$here/tests/hooks_figures_bench_test.go" "$here/tests/mcp_bench_test.go" "$old/tests/"
if ! grep -qs '^type Records struct' "$old"/memory/*.go; then # before memory.Records
  printf 'package tests\n\nimport "github.com/recall-mcp/recall/storage"\n\ntype seedRecords = storage.Records\n' >"$old/tests/bench_compat_test.go"
fi
if [[ ! -d $old/storage/sqlite ]]; then # before the SQLite store moved to storage/sqlite
  mkdir -p "$old/storage/sqlite"
  printf 'package sqlite\n\nimport "github.com/recall-mcp/recall/storage"\n\ntype DB = storage.DB\n\nvar Open = storage.Open\n' >"$old/storage/sqlite/compat.go"
fi

figures=${RUNS:-spawn-initialize prompt-1k-ollama-down prompt-10k-vectors prompt-100k-vectors post-tool-use-5MB-transcript post-tool-use-50MB-transcript prompt-10k-hung-ollama}

if [[ " $figures " == *" spawn-initialize "* && -z "${RECALL_BENCH_MCP_MEMORY:-}" ]] && command -v npm >/dev/null; then
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/recall-bench
  if [[ ! -x $cache/node_modules/.bin/mcp-server-memory ]]; then
    npm install --silent --no-audit --no-fund --prefix "$cache" @modelcontextprotocol/server-memory >&2
  fi
  export RECALL_BENCH_MCP_MEMORY=$cache/node_modules/.bin/mcp-server-memory
fi

# One test binary per tree, built before anything is timed.
for dir in "$old" "$here"; do
  (cd "$dir" && go test -tags sqlite_fts5 -c -o "$old/$(basename "$dir").test" ./tests/)
done
bench() { # tree, regexp
  local seeds=${RECALL_BENCH_SEEDS:+$RECALL_BENCH_SEEDS/$([[ $1 == "$here" ]] && echo new || echo old)}
  (cd "$1/tests" && RECALL_BENCH_SEEDS=$seeds "$old/$(basename "$1").test" -test.run '^$' -test.bench "$2" -test.benchtime "${BENCHTIME:-1x}" -test.timeout 60m 2>&1) | grep -E '^Benchmark|FAIL|panic' || true
}
for f in $figures; do
  echo "== $f"
  if [[ $f == spawn-initialize ]]; then
    echo "-- old ($base)"; BENCHTIME=${SPAWNS:-30x} bench "$old" 'BenchmarkSpawnInitialize$'
    echo "-- new"; BENCHTIME=${SPAWNS:-30x} bench "$here" 'BenchmarkSpawnInitialize$'
    continue
  fi
  echo "-- old ($base)"; bench "$old" "BenchmarkHookFigures/$f/direct\$"
  echo "-- new"; bench "$here" "BenchmarkHookFigures/$f/"
done
