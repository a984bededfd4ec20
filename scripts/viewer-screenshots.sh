#!/usr/bin/env bash
# Runs the viewer's browser tests in headless Chromium and copies one
# screenshot of each page into docs/viewer/, where README's Viewer section
# shows them. Run it after a change to how a page looks.
set -euo pipefail
cd "$(dirname "$0")/.."

# The screenshots kept, by the name a browser test saves them under.
SHOTS=(
  list list-phone search search-superseded memory-complete memory-change-log memory-markdown chart-point-to-event
  edit-form memory-promote-form memory-edge-added create-form graph-depth2-selected graph-depth3-capped
  graph-folded graph-live-joined review-queue review-reason stale-revalidate-confirm golden-audit-trail
  files-shop journal health-doctor trash-archived bulk-delete-confirm delete-view-confirm live-reconnecting
  help memory-dark memory-phone read-only-list read-only-memory token-asked
  memory-moved journal-live list-by-author list-empty list-phone-filters list-by-source memory-stored-through
)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go test -tags sqlite_fts5 -count=1 -run Browser -artifacts -outputdir "$out" ./viewer/

mkdir -p docs/viewer
rm -f docs/viewer/*.png
for name in "${SHOTS[@]}"; do
  shot=$(find "$out/_artifacts" -name "$name.png" -print -quit)
  if [ -z "$shot" ]; then
    echo "viewer-screenshots: no test saved $name.png" >&2
    exit 1
  fi
  cp "$shot" "docs/viewer/$name.png"
done
echo "viewer-screenshots: ${#SHOTS[@]} screenshots in docs/viewer/"
