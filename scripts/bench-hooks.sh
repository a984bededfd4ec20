#!/usr/bin/env bash
# Times the hooks as whole processes (BenchmarkHookFigures in
# tests/hooks_figures_bench_test.go) on this tree and on an older commit, in
# the same run: for each figure the older build runs first and this tree's right
# after, so that a shared machine's load falls on both alike. The older commit
# gets this tree's benchmark file; its binary answers no hooks on a socket, so
# the "server" figures are this tree's alone.
#
#   scripts/bench-hooks.sh a176b15            # the commit before the hooks' budgets and socket
#   RUNS='prompt-1k-ollama-down' scripts/bench-hooks.sh a176b15
#
# RECALL_BENCH_OLLAMA / RECALL_BENCH_MODEL time prompt-10k-vectors against a
# real Ollama (see the benchmark). Output: benchmark lines, "old" then "new".
set -euo pipefail
base=${1:?usage: scripts/bench-hooks.sh <older commit>}
here=$(cd "$(dirname "$0")/.." && pwd)
old=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$old" >/dev/null 2>&1 || rm -rf "$old"' EXIT
git -C "$here" worktree add --detach "$old" "$base" >/dev/null
cp "$here/tests/hooks_figures_bench_test.go" "$old/tests/"

figures=${RUNS:-prompt-1k-ollama-down prompt-10k-vectors prompt-100k-vectors post-tool-use-5MB-transcript prompt-10k-hung-ollama}
bench() { # dir, regexp
  (cd "$1" && go test -tags sqlite_fts5 -run '^$' -bench "$2" -benchtime 1x -timeout 60m ./tests/ 2>&1) | grep -E '^Benchmark|FAIL|panic' || true
}
for f in $figures; do
  echo "== $f"
  echo "-- old ($base)"; bench "$old" "BenchmarkHookFigures/$f/direct\$"
  echo "-- new"; bench "$here" "BenchmarkHookFigures/$f/"
done
