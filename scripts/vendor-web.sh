#!/usr/bin/env bash
# Copies the viewer's browser libraries, as pinned in viewer/web/package-lock.json,
# into viewer/static/vendor/ (embedded in the binary) with their licences, and
# writes viewer/static/vendor/manifest.txt (package, version, file, sha256).
# The copies are committed, as go mod vendor's are, so go build needs no npm.
# Run it after changing viewer/web/package.json:
#
#   (cd viewer/web && npm install --package-lock-only --ignore-scripts --save-exact)
#   scripts/vendor-web.sh
#
# TestVendoredWebLibraries fails when a copy differs from the manifest or the
# manifest from the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."

# What each package contributes: its ES module build, nothing else (no source
# maps, no types). A new package needs a line here.
declare -A FILES=(
  [marked]="lib/marked.esm.js"
  [dompurify]="dist/purify.es.mjs"
  [cytoscape]="dist/cytoscape.esm.min.mjs"
)

web=viewer/web
out=viewer/static/vendor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp "$web/package.json" "$web/package-lock.json" "$tmp/"
# npm ci installs exactly the lockfile; no install scripts run.
(cd "$tmp" && npm ci --ignore-scripts --omit=optional --no-audit --no-fund >&2)

rm -rf "$out"
mkdir -p "$out"
manifest="$out/manifest.txt"
{
  echo "# Written by scripts/vendor-web.sh from viewer/web/package-lock.json: do not edit."
  echo "# package version file sha256"
} >"$manifest"

deps=$(node -e 'console.log(Object.keys(require(process.argv[1]).dependencies).sort().join("\n"))' "$PWD/$web/package.json")
for pkg in $deps; do
  src="$tmp/node_modules/$pkg"
  if [ -z "${FILES[$pkg]:-}" ]; then
    echo "vendor-web: no files listed for $pkg: add it to FILES in $0" >&2
    exit 1
  fi
  version=$(node -p 'require(process.argv[1]).version' "$src/package.json")
  mkdir -p "$out/$pkg"
  # Every licence file the package ships (DOMPurify has two: it is dual-licensed).
  licences=$(cd "$src" && ls | grep -iE '^(licen[cs]e|copying)(-[a-z0-9]+)?(\.(md|txt))?$' || true)
  if [ -z "$licences" ]; then
    echo "vendor-web: $pkg ships no LICENSE file" >&2
    exit 1
  fi
  for f in ${FILES[$pkg]} $licences; do
    cp "$src/$f" "$out/$pkg/"
    name="$pkg/$(basename "$f")"
    echo "$pkg $version $name $(sha256sum "$out/$name" | cut -d' ' -f1)" >>"$manifest"
  done
done
echo "vendor-web: wrote $manifest" >&2
